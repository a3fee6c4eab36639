// Tests compare relay batches point by point: a batch's columns (PointsBatch, grouped by tag)
// flattened into one object per point, in the order the batch holds them. Pure.
import type { PointsBatch } from '../../src/relay-protocol/messages';

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
  for (const s of b.series)
    for (let i = 0; i < s.step.length; i++) out.push({ run: b.run, role: b.role, tag: s.tag, step: s.step[i], wallTime: s.wallTime[i], value: s.value[i] });
  return out;
}

/**
 * Items grouped by tag, each tag's in their order: how two streams of points compare once
 * batches are grouped by tag (the order across tags within a batch depends on its boundaries).
 */
export function byTag<T>(items: readonly T[], tagOf: (x: T) => string = (x) => (x as { tag: string }).tag): [string, T[]][] {
  const m = new Map<string, T[]>();
  for (const x of items) {
    const t = tagOf(x);
    let l = m.get(t);
    if (!l) m.set(t, (l = []));
    l.push(x);
  }
  return [...m].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
