// A relay batch (points of many tags and roles, in arrival order) grouped per series, in
// the store's point shape. Pure.
import type { PointsBatch } from '../../shared/relay-client';
import type { Point } from '../store/series';

export interface BatchSeries {
  tag: string;
  role: string;
  points: Point[];
}

export function seriesOfBatch(b: PointsBatch): BatchSeries[] {
  const groups = new Map<string, BatchSeries>();
  for (const p of b.points) {
    const id = `${p.role}\u0000${p.tag}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { tag: p.tag, role: p.role, points: [] }));
    g.points.push({ step: p.step, wallTime: p.wallTime, value: p.value });
  }
  return [...groups.values()];
}
