// Tests compare relay batches point by point: a batch's columns (PointsBatch, grouped by tag)
// flattened into one object per point, in the order the batch holds them. Pure.
import type { PointsBatch } from '../../src/shared/relay-protocol';

export interface RelayPoint {
  run: string;
  role: string;
  tag: string;
  step: number;
  wallTime: number;
  value: number;
}

export function pointsOf(b: PointsBatch): RelayPoint[] {
  const out: RelayPoint[] = [];
  for (const s of b.series) for (let i = 0; i < s.step.length; i++) out.push({ run: b.run, role: b.role, tag: s.tag, step: s.step[i], wallTime: s.wallTime[i], value: s.value[i] });
  return out;
}

