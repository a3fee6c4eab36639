// What the view's layout message says about each run (roles, start, points, experiences),
// computed from the store. Pure.
import type { RunSummary } from '../protocol/frames';
import type { MetricsStore } from '../store/store';
import type { RunMarks } from './run-marks';

export function runSummaries(store: MetricsStore, marks?: RunMarks): RunSummary[] {
  const runs = new Map<string, RunSummary>();
  for (const s of store.list()) {
    let r = runs.get(s.run);
    if (!r) runs.set(s.run, (r = { run: s.run, roles: [], start: store.runStart(s.run), points: 0, experiences: store.experiences.countFor(s.run) }));
    if (!r.roles.includes(s.role)) r.roles.push(s.role);
    r.points += s.length;
  }
  for (const r of runs.values()) {
    const m = marks?.forRun(r.run);
    if (m) r.marks = m;
  }
  return [...runs.values()].sort((a, b) => a.run.localeCompare(b.run));
}
