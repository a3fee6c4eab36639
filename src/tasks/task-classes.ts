// Which tasks learn: each task's mean reward by model version, and a class read from it.
//   solved at a version: its members' mean reward ≥ the threshold (default: halfway up the
//   run's reward range); the last `window` versions it was seen at (at most all but its first)
//   decide where it ended:
//   always    solved at every version: no signal to learn from
//   learned   not solved at first, solved at each of the last versions
//   forgotten solved once, unsolved at each of the last versions
//   never     never solved (how many members were rewarded at all is reported beside it)
//   flaky     anything else: solved and unsolved in turn, not settled
import type { Cell, TaskTable } from './task-table';

export const TASK_CLASSES = ['learned', 'never', 'always', 'forgotten', 'flaky'] as const;
export type TaskClass = (typeof TASK_CLASSES)[number];

export interface ClassOptions {
  /** Solved at a version when its mean reward ≥ lo + solved × (hi − lo); default 0.5. */
  solved: number;
  /** How many last versions decide where a task ended; default 3. */
  window: number;
}
export const CLASS_DEFAULTS: ClassOptions = { solved: 0.5, window: 3 };

export interface TaskRow {
  task: string;
  class: TaskClass;
  /** The first version whose mean reached the threshold; null when never. */
  first_solved: number | null;
  /** The version at which it last crossed the threshold (either way); null when it never did. */
  flipped: number | null;
  first_seen: number;
  last_seen: number;
  /** Mean reward per version seen. */
  rewards: Record<number, number>;
  /** Mean reward at the last version minus at the first. */
  gain: number;
  /** Mean response length (tokens) at the last version minus at the first; null without lengths. */
  length_change: number | null;
  experiences: number;
  /** Versions at which some member's reward was above the run's lowest (a never-solved task with signal). */
  rewarded_versions: number;
}

export interface TaskReport {
  versions: [number, number] | null;
  threshold: number | null;
  tasks: TaskRow[];
  counts: Record<TaskClass, number>;
}

const mean = (c: Cell) => c.sum / c.n;

/** The threshold a mean reward must reach for "solved" in this run; null when no reward was seen. */
function thresholdOf(table: TaskTable, solved: number): number | null {
  if (!(table.hi >= table.lo)) return null;
  // A run whose rewards are all equal has no range: solved then means above zero.
  return table.hi > table.lo ? table.lo + solved * (table.hi - table.lo) : Math.min(table.hi, 0) + Number.EPSILON;
}

export function classifyTasks(table: TaskTable, opts: ClassOptions = CLASS_DEFAULTS): TaskReport {
  const counts = Object.fromEntries(TASK_CLASSES.map((c) => [c, 0])) as Record<TaskClass, number>;
  const versions = table.versions();
  const threshold = thresholdOf(table, opts.solved);
  const tasks: TaskRow[] = [];
  if (threshold === null) return { versions: null, threshold, tasks, counts };
  for (const [task, byVersion] of table.cells) {
    const seen = [...byVersion.entries()].filter(([, c]) => c.n > 0).sort((a, b) => a[0] - b[0]);
    if (!seen.length) continue;
    const solved = seen.map(([, c]) => mean(c) >= threshold);
    const k = seen.length;
    const w = Math.max(1, Math.min(opts.window, k - 1));
    const tail = solved.slice(k - w);
    const firstSolved = solved.indexOf(true);
    let cls: TaskClass;
    if (firstSolved < 0) cls = 'never';
    else if (solved.every(Boolean)) cls = 'always';
    else if (tail.every(Boolean) && !solved[0]) cls = 'learned';
    else if (tail.every((s) => !s)) cls = 'forgotten';
    else cls = 'flaky';
    let flipped: number | null = null;
    for (let i = 1; i < k; i++) if (solved[i] !== solved[i - 1]) flipped = seen[i][0];
    const first = seen[0][1];
    const last = seen[k - 1][1];
    const rewards: Record<number, number> = {};
    let experiences = 0;
    let rewardedVersions = 0;
    for (const [v, c] of seen) {
      rewards[v] = mean(c);
      experiences += c.n;
      if (c.max > table.lo) rewardedVersions += 1;
    }
    counts[cls]++;
    tasks.push({
      task,
      class: cls,
      first_solved: firstSolved < 0 ? null : seen[firstSolved][0],
      flipped,
      first_seen: seen[0][0],
      last_seen: seen[k - 1][0],
      rewards,
      gain: mean(last) - mean(first),
      length_change: first.lenN > 0 && last.lenN > 0 ? last.lenSum / last.lenN - first.lenSum / first.lenN : null,
      experiences,
      rewarded_versions: rewardedVersions,
    });
  }
  tasks.sort((a, b) => compareTasks(a.task, b.task));
  return { versions: versions.length ? [versions[0], versions[versions.length - 1]] : null, threshold, tasks, counts };
}

/** Task keys in natural order: "2" before "10", taskset 0's before taskset 1's, eid keys last. */
function compareTasks(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

export type TaskSort = 'task' | 'gain' | 'flip' | 'length';

/** Tasks sorted for reading: by reward gain (largest first), by the version they last flipped, or by length change. */
export function sortTasks(tasks: TaskRow[], by: TaskSort): TaskRow[] {
  const out = [...tasks];
  const nullsLast = (x: number | null) => (x === null ? Infinity : x);
  if (by === 'gain') out.sort((a, b) => b.gain - a.gain || compareTasks(a.task, b.task));
  else if (by === 'flip') out.sort((a, b) => nullsLast(a.flipped) - nullsLast(b.flipped) || compareTasks(a.task, b.task));
  else if (by === 'length') out.sort((a, b) => (b.length_change ?? -Infinity) - (a.length_change ?? -Infinity) || compareTasks(a.task, b.task));
  return out;
}
