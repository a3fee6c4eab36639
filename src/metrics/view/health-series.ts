// The step health of a run's GRPO groups as series next to its reward curve —
// rollout/no_gradient_groups, rollout/truncated, rollout/empty, rollout/nothing_trained (shares,
// src/tokens/group-health.ts STEP_SERIES) — derived from the experience rows the relays list
// (each row's reward, response length, trained tokens and truncation come with it: no tensor is
// decoded again). A step (model version) is derived once, when rows of a later version arrive,
// so its groups are whole; its point's wall time is its newest row's, so deriving it again after
// a window reload adds nothing (the store drops exact repeats). Pure.
import { STEP_SERIES, groupHealth, stepHealth } from '../../tokens/group-health';
import type { PointColumns } from '../store/series';
import type { ExperienceIndex } from '../store/experiences';
import { memberOfRow } from './drill-health';

/** The role the series belong to: the explorer's, as Trinity's own rollout/ metrics. */
export const HEALTH_ROLE = 'explorer';

export class HealthSeries {
  /** Per run: the versions derived, the ones seen and not yet derived, the newest seen. */
  private readonly runs = new Map<string, { done: Set<number>; waiting: Set<number>; newest: number }>();

  constructor(private readonly experiences: ExperienceIndex) {}

  /**
   * Rows of `run` with these model versions were added or replaced: the series points of the
   * steps now complete. The work is that of the versions named and the steps derived (each
   * step's rows read once), not of every version of the run: rows arrive all through a run.
   */
  changed(run: string, versions: Iterable<number | null>): { tag: string; points: PointColumns }[] {
    let r = this.runs.get(run);
    if (!r) {
      // The first change of a run (or the first after a window reload): the versions held already.
      r = { done: new Set(), waiting: new Set(), newest: -Infinity };
      this.runs.set(run, r);
      versions = [...this.experiences.versions(run), ...versions];
    }
    for (const v of versions) {
      if (v === null || r.done.has(v)) continue;
      r.waiting.add(v);
      if (v > r.newest) r.newest = v;
    }
    // The newest version may still be written: only the ones before it are whole.
    const whole = [...r.waiting].filter((v) => v < r.newest).sort((a, b) => a - b);
    if (!whole.length) return [];
    const steps: number[] = [];
    const values: number[][] = STEP_SERIES.map(() => []);
    const walls: number[] = [];
    for (const v of whole) {
      r.waiting.delete(v);
      r.done.add(v);
      const rows = this.experiences.select(run, [v]);
      if (!rows.length) continue;
      const h = stepHealth(groupHealth(rows.map(memberOfRow)));
      steps.push(v);
      STEP_SERIES.forEach((tag, k) => values[k].push(h.series[tag]));
      let wall = 0;
      for (const row of rows) wall = Math.max(wall, wallOf(row.timestamp));
      walls.push(wall);
    }
    if (!steps.length) return [];
    return STEP_SERIES.map((tag, k) => ({
      tag,
      points: { step: Float64Array.from(steps), wallTime: Float64Array.from(walls), value: Float64Array.from(values[k]) },
    }));
  }
}

/** Seconds since the epoch of a row's SQLite timestamp ("2026-11-22 02:39:27", UTC); 0 when it has none. */
function wallOf(ts: string | null): number {
  if (!ts) return 0;
  const t = Date.parse(/^\d{4}-\d\d-\d\d \d/.test(ts) ? `${ts.replace(' ', 'T')}Z` : ts);
  return Number.isFinite(t) ? t / 1000 : 0;
}
