// The statistics of a model comparison: per task, each model's mean@k and pass@k over its
// repeats; per task the difference between two models; a paired bootstrap over tasks for the
// interval of the mean difference; the plain verdict and the CI gate. Pure, seeded, no I/O.
//
// Why paired and over tasks: tasks differ in difficulty far more than repeats differ from each
// other, so comparing per-task means and resampling tasks (not episodes) is what tells a model
// difference from "we happened to draw easier tasks".
import { english, type L10n } from '../../base/l10n';

/** One model's rewards on one task: one entry per repeat; null = that episode failed (error,
 *  timeout, no reward) and is counted, not scored. */
export type TaskRewards = readonly (number | null)[];

export interface TaskStats {
  /** Repeats that gave a reward. */
  scored: number;
  /** Repeats that failed. */
  failed: number;
  /** Mean reward over the scored repeats (null: none scored). */
  mean: number | null;
  /** Unbiased pass@k over the scored repeats, k = all of them (null: none scored). */
  pass: number | null;
}

/** Reward at or above this counts as a pass (rewards are usually 0/1 or in [0, 1]). */
const DEFAULT_PASS_THRESHOLD = 1;

/** pass@k: the chance that at least one of k of the n samples passes, c of n passed
 *  (1 - C(n-c, k) / C(n, k), computed as a product to stay exact for large n). */
export function passAtK(n: number, c: number, k: number): number {
  if (n <= 0 || k <= 0 || k > n) return Number.NaN;
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

export function taskStats(rewards: TaskRewards, passThreshold = DEFAULT_PASS_THRESHOLD): TaskStats {
  const ok = rewards.filter((r): r is number => typeof r === 'number' && Number.isFinite(r));
  const failed = rewards.length - ok.length;
  if (!ok.length) return { scored: 0, failed, mean: null, pass: null };
  const mean = ok.reduce((s, r) => s + r, 0) / ok.length;
  const c = ok.filter((r) => r >= passThreshold).length;
  return { scored: ok.length, failed, mean, pass: passAtK(ok.length, c, ok.length) };
}

/** Per task, the two models' stats and the difference of their means (b - a). */
export interface TaskComparison {
  task: string;
  a: TaskStats;
  b: TaskStats;
  /** b.mean - a.mean; null when either model has no scored repeat on this task. */
  diff: number | null;
}

export interface Interval {
  lo: number;
  hi: number;
  level: number;
}

export interface Comparison {
  tasks: TaskComparison[];
  /** Tasks both models scored: what the mean difference and its interval rest on. */
  paired: number;
  /** Mean of the per-task differences (b - a) over the paired tasks (null: none). */
  meanDiff: number | null;
  interval: Interval | null;
  /** Repeats per task (the largest seen). */
  repeats: number;
  /** Failed episodes and tasks left out (no scored repeat), per model. */
  failures: { a: { episodes: number; tasks: number }; b: { episodes: number; tasks: number } };
}

export interface CompareOptions {
  passThreshold?: number;
  /** Bootstrap resamples (default 2000). */
  resamples?: number;
  /** Interval level (default 0.95). */
  level?: number;
  /** The bootstrap's seed: the same inputs and seed give the same interval. */
  seed?: number;
}

/** mulberry32: small, fast, reproducible; enough for resampling indices. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Percentile bootstrap interval of the mean of `values` (resampling the values, i.e. tasks). */
export function bootstrapMeanInterval(values: readonly number[], opts: { resamples?: number; level?: number; seed?: number } = {}): Interval | null {
  const n = values.length;
  const level = opts.level ?? 0.95;
  if (n < 2) return null;
  const resamples = opts.resamples ?? 2000;
  const rand = seededRandom(opts.seed ?? 1);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[Math.floor(rand() * n)];
    means[r] = s / n;
  }
  const sorted = Array.from(means).sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return { lo: quantile(sorted, tail), hi: quantile(sorted, 1 - tail), level };
}

/** Compares model b against model a on the tasks either ran (`a`, `b`: task id -> rewards). */
export function compare(a: ReadonlyMap<string, TaskRewards>, b: ReadonlyMap<string, TaskRewards>, opts: CompareOptions = {}): Comparison {
  const ids = [...new Set([...a.keys(), ...b.keys()])];
  const tasks: TaskComparison[] = ids.map((task) => {
    const sa = taskStats(a.get(task) ?? [], opts.passThreshold);
    const sb = taskStats(b.get(task) ?? [], opts.passThreshold);
    return { task, a: sa, b: sb, diff: sa.mean !== null && sb.mean !== null ? sb.mean - sa.mean : null };
  });
  const diffs = tasks.flatMap((t) => (t.diff === null ? [] : [t.diff]));
  const count = (side: 'a' | 'b') => ({
    episodes: tasks.reduce((s, t) => s + t[side].failed, 0),
    tasks: tasks.filter((t) => t[side].mean === null).length,
  });
  const repeats = Math.max(0, ...[...a.values(), ...b.values()].map((r) => r.length));
  return {
    tasks,
    paired: diffs.length,
    meanDiff: diffs.length ? diffs.reduce((s, d) => s + d, 0) / diffs.length : null,
    interval: bootstrapMeanInterval(diffs, opts),
    repeats,
    failures: { a: count('a'), b: count('b') },
  };
}

/** Tasks sorted by the size of their change, largest first (tasks without a difference last). */
export function byLargestChange(tasks: readonly TaskComparison[]): TaskComparison[] {
  return [...tasks].sort((x, y) => (y.diff === null ? -1 : Math.abs(y.diff)) - (x.diff === null ? -1 : Math.abs(x.diff)) || x.task.localeCompare(y.task));
}

export type VerdictKind = 'better' | 'worse' | 'noise' | 'insufficient';

export interface Verdict {
  kind: VerdictKind;
  /** The plain sentence ("new is better than base by 0.07 ± 0.03 on 50 tasks × 4"). */
  text: string;
  /** For 'noise': about how many more tasks would tell a difference of the observed size
   *  (or of `minEffect`, when the observed one is smaller). */
  moreTasks?: number;
}

const fmt = (x: number): string => (Math.abs(x) < 0.005 ? '0.00' : x.toFixed(2));

/**
 * The verdict on b against a. When the interval excludes zero: better/worse by the mean
 * difference ± the interval's half width. Otherwise: noise, with how many more tasks would
 * shrink the interval (∝ 1/√n) below the effect size.
 */
export function verdict(c: Comparison, names: { a: string; b: string }, minEffect = 0.02, l10n: L10n = english): Verdict {
  const shape = c.paired === 1 ? l10n.t('{0} task × {1}', c.paired, c.repeats) : l10n.t('{0} tasks × {1}', c.paired, c.repeats);
  if (c.meanDiff === null || !c.interval) {
    return {
      kind: 'insufficient',
      text: l10n.t(
        'not enough tasks to compare: {0} scored by both models (at least 2 needed)',
        c.paired === 1 ? l10n.t('1 task') : l10n.t('{0} tasks', c.paired),
      ),
    };
  }
  const { lo, hi } = c.interval;
  const half = (hi - lo) / 2;
  if (lo > 0 || hi < 0) {
    const by = [fmt(Math.abs(c.meanDiff)), fmt(half), shape] as const;
    return lo > 0
      ? { kind: 'better', text: l10n.t('{0} is better than {1} by {2} ± {3} on {4}', names.b, names.a, ...by) }
      : { kind: 'worse', text: l10n.t('{0} is worse than {1} by {2} ± {3} on {4}', names.b, names.a, ...by) };
  }
  if (half === 0 && c.meanDiff === 0) {
    return { kind: 'noise', text: l10n.t('no difference: {0} and {1} scored the same on every one of {2}', names.a, names.b, shape) };
  }
  const effect = Math.max(Math.abs(c.meanDiff), minEffect);
  // The half width shrinks as 1/sqrt(n): n' = n * (half / effect)^2 tasks make it as small as the effect.
  const needed = half > 0 ? Math.ceil(c.paired * (half / effect) ** 2) : c.paired;
  const more = Math.max(1, needed - c.paired);
  return {
    kind: 'noise',
    text: l10n.t(
      'no difference distinguishable from noise at this sample size ({0} − {1} = {2}, {3}% interval {4} … {5}, on {6}) — about {7} more tasks would tell',
      names.b,
      names.a,
      fmt(c.meanDiff),
      Math.round(c.interval.level * 100),
      fmt(lo),
      fmt(hi),
      shape,
      more,
    ),
    moreTasks: more,
  };
}

/** The CI gate: b is worse than a beyond `threshold` (mean difference below -threshold) and
 *  the interval excludes zero. */
export function failsGate(c: Comparison, threshold: number): boolean {
  return c.meanDiff !== null && c.interval !== null && c.meanDiff < -threshold && c.interval.hi < 0;
}

/** Why b fails the CI gate against a (undefined: it passes). A gate fails closed: b's failed
 *  episodes beyond a's (calls that errored, a reward that did not run) count against it, and a
 *  comparison with too little to go on fails rather than passes. */
export function gateFailure(c: Comparison, threshold: number): string | undefined {
  const { a, b } = c.failures;
  if (b.episodes > a.episodes) return `${b.episodes} of its episodes failed (the baseline's: ${a.episodes}); a failed episode counts as worse`;
  if (c.meanDiff === null || c.interval === null) return `only ${c.paired} task(s) scored by both models: too few to pass the gate`;
  if (failsGate(c, threshold)) return `worse beyond ${threshold}`;
  return undefined;
}
