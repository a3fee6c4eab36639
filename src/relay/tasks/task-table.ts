// Experience rows folded into one table of tasks × model versions: the counts and sums each
// class and finding needs, never the rows themselves (a 500 k-row buffer is a few thousand
// cells). Rows come as the relay streams them; an `updated` row replaces its first delivery
// (the trainer's read, a late /feedback reward), so each row's contribution is remembered by id.
import type { ExperienceRow } from '../../relay-protocol/messages';
import { fromWireNumber } from '../../relay-protocol/messages';

/** The sums of one task at one model version. */
export interface Cell {
  /** Experiences with a finite reward. */
  n: number;
  sum: number;
  /** The highest reward of a member. */
  max: number;
  /** Members with a response length, and its sum. */
  lenN: number;
  lenSum: number;
  /** Per reward part (the experience's numeric metrics): members and sum. */
  parts: Map<string, { n: number; sum: number }>;
}

/** Why rows could not be placed: counted and named, never dropped silently. */
export interface Skipped {
  /** Neither `task_index` nor `task_id`. */
  noTask: number;
  /** No model version. */
  noVersion: number;
  /** Reward absent, NaN or infinite. */
  noReward: number;
}

/** What identifies tasks in this run. */
export type Identity = 'task_index' | 'eid.task' | 'mixed' | 'none';

interface Placed {
  key: string;
  version: number;
  reward: number;
  len?: number;
  parts?: [string, number][];
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** The key of a row's task: its taskset row when recorded (stable), else eid.task (its position in its batch). */
function taskKeyOf(r: ExperienceRow): { key: string; stable: boolean } | undefined {
  if (r.task_index !== undefined) return { key: r.taskset_id ? `${r.taskset_id}/${r.task_index}` : String(r.task_index), stable: true };
  if (r.task_id !== null && r.task_id !== '') return { key: `eid ${r.task_id}`, stable: false };
  return undefined;
}

export class TaskTable {
  readonly cells = new Map<string, Map<number, Cell>>();
  readonly skipped: Skipped = { noTask: 0, noVersion: 0, noReward: 0 };
  /** Rows placed (a replaced row counts once). */
  rows = 0;
  /** The finite rewards' range over the run. */
  lo = Infinity;
  hi = -Infinity;
  private stable = 0;
  private unstable = 0;
  private readonly placed = new Map<number, Placed | keyof Skipped>();
  /** Example row ids per task and version: the best and the worst member (the rollouts behind a finding). */
  readonly examples = new Map<string, { best: number; bestReward: number; worst: number; worstReward: number; longest: number; longestLen: number }>();

  get identity(): Identity {
    if (this.stable && this.unstable) return 'mixed';
    return this.stable ? 'task_index' : this.unstable ? 'eid.task' : 'none';
  }

  /** Folds in a batch of rows (`source`-qualified ids are the caller's business: one table per source). */
  add(rows: readonly ExperienceRow[]): void {
    for (const r of rows) {
      const before = this.placed.get(r.id);
      if (typeof before === 'string') this.skipped[before]--;
      else if (before) this.apply(before, -1);
      if (before === undefined) this.rows++;
      const p = this.place(r);
      this.placed.set(r.id, p);
      if (typeof p === 'string') this.skipped[p]++;
      else {
        this.apply(p, 1);
        this.example(r.id, p);
      }
    }
  }

  private place(r: ExperienceRow): Placed | keyof Skipped {
    const t = taskKeyOf(r);
    if (!t) return 'noTask';
    if (r.model_version === null) return 'noVersion';
    const reward = r.reward === null ? NaN : fromWireNumber(r.reward);
    if (!finite(reward)) return 'noReward';
    if (t.stable) this.stable++;
    else this.unstable++;
    const parts = r.metrics
      ? Object.entries(r.metrics)
          .map(([k, v]) => [k, fromWireNumber(v)] as [string, number])
          .filter(([, v]) => finite(v))
      : undefined;
    return { key: t.key, version: r.model_version, reward, len: r.response_tokens, parts };
  }

  private apply(p: Placed, sign: 1 | -1): void {
    let byVersion = this.cells.get(p.key);
    if (!byVersion) this.cells.set(p.key, (byVersion = new Map<number, Cell>()));
    let c = byVersion.get(p.version);
    if (!c) byVersion.set(p.version, (c = { n: 0, sum: 0, max: -Infinity, lenN: 0, lenSum: 0, parts: new Map() }));
    c.n += sign;
    c.sum += sign * p.reward;
    // max only grows: a replaced row's old reward may stay the cell's max, which errs towards "rewarded"
    if (sign > 0) c.max = Math.max(c.max, p.reward);
    if (p.len !== undefined) {
      c.lenN += sign;
      c.lenSum += sign * p.len;
    }
    for (const [k, v] of p.parts ?? []) {
      const s = c.parts.get(k) ?? { n: 0, sum: 0 };
      s.n += sign;
      s.sum += sign * v;
      c.parts.set(k, s);
    }
    if (sign > 0) {
      this.lo = Math.min(this.lo, p.reward);
      this.hi = Math.max(this.hi, p.reward);
    }
  }

  private example(id: number, p: Placed): void {
    const k = `${p.key}@${p.version}`;
    const e = this.examples.get(k);
    const len = p.len ?? -1;
    if (!e) {
      this.examples.set(k, { best: id, bestReward: p.reward, worst: id, worstReward: p.reward, longest: id, longestLen: len });
      return;
    }
    if (p.reward > e.bestReward) Object.assign(e, { best: id, bestReward: p.reward });
    if (p.reward < e.worstReward) Object.assign(e, { worst: id, worstReward: p.reward });
    if (len > e.longestLen) Object.assign(e, { longest: id, longestLen: len });
  }

  /** Every model version seen, ascending. */
  versions(): number[] {
    const all = new Set<number>();
    for (const byVersion of this.cells.values()) for (const v of byVersion.keys()) all.add(v);
    return [...all].sort((a, b) => a - b);
  }
}
