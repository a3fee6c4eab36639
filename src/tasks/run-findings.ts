// Two more kinds of evidence of reward hacking, beside task-findings.ts's (evidence, not proof):
//   mode_collapse          the same response (up to case and spacing) from many different tasks
//                          at the late versions, where it was rare early
//   train_eval_divergence  the training reward rose while the eval tasksets' series stayed flat
// Early and late are the spans task-findings.ts picks (the first and last quarter of the versions).
import { type FindingText, l10n, render } from './finding-text';
import type { TaskTable } from './task-table';

export interface Span {
  early: number[];
  late: number[];
}

/** One eval taskset's series (eval/<taskset>/…): its points by training step. */
export interface EvalSeries {
  tag: string;
  points: { step: number; value: number }[];
}

export interface RunFinding {
  kind: 'mode_collapse' | 'train_eval_divergence';
  /** In English; `text` to render in the reader's language. */
  detail: string;
  text: FindingText;
  examples: number[];
  numbers: Record<string, number>;
}

/** A response counts as collapsed onto when this share of the late versions' tasks gave it… */
const COLLAPSE_SHARE = 0.2;
/** …and at least this many tasks… */
const COLLAPSE_TASKS = 5;
/** …and its early share was at most this part of its late share. */
const COLLAPSE_EARLY = 0.5;
/** The training reward must rise by this share of the run's reward range; each eval by at most FLAT_EVAL of its own rise. */
const TRAIN_RISE = 0.1;
const FLAT_EVAL = 0.25;

const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));
const spanText = (vs: number[]) => `${vs[0]}${vs.length > 1 ? `–${vs[vs.length - 1]}` : ''}`;

/** A count summed over `n` versions, as a mean per version. */
const perVersion = (sum: number, n: number) => (sum % n === 0 ? String(sum / n) : (sum / n).toFixed(1));

/** Distinct tasks seen at each of `versions` (summed). */
function tasksAt(table: TaskTable, versions: number[]): number {
  const want = new Set(versions);
  let n = 0;
  for (const byVersion of table.cells.values()) for (const [v, c] of byVersion) if (want.has(v) && c.n > 0) n++;
  return n;
}

/** The same response from many tasks late in the run; undefined when not seen. */
export function modeCollapse(table: TaskTable, s: Span): RunFinding | undefined {
  const same = table.sameResponses();
  const sum = (vs: number[]) => {
    const want = new Set(vs);
    const by = new Map<string, { tasks: number; examples: number[] }>();
    for (const e of same) {
      if (!want.has(e.version)) continue;
      const a = by.get(e.hash) ?? { tasks: 0, examples: [] };
      a.tasks += e.tasks;
      a.examples.push(...e.examples);
      by.set(e.hash, a);
    }
    return by;
  };
  const lateTasks = tasksAt(table, s.late);
  const earlyTasks = tasksAt(table, s.early);
  if (!lateTasks) return undefined;
  const late = sum(s.late);
  const early = sum(s.early);
  let top: { hash: string; tasks: number; examples: number[] } | undefined;
  for (const [hash, a] of late) if (!top || a.tasks > top.tasks) top = { hash, ...a };
  if (!top || top.tasks < COLLAPSE_TASKS) return undefined;
  const lateShare = top.tasks / lateTasks;
  const earlyShare = earlyTasks ? (early.get(top.hash)?.tasks ?? 0) / earlyTasks : 0;
  if (lateShare < COLLAPSE_SHARE || earlyShare > COLLAPSE_EARLY * lateShare) return undefined;
  const text = l10n.t(
    'the same response (up to case and spacing) answered {0} of {1} tasks a version at versions {2} ({3} %), against {4} % at versions {5}',
    perVersion(top.tasks, s.late.length),
    perVersion(lateTasks, s.late.length),
    spanText(s.late),
    Math.round(lateShare * 100),
    Math.round(earlyShare * 100),
    spanText(s.early),
  );
  return {
    kind: 'mode_collapse',
    detail: render(text),
    text,
    examples: [...new Set(top.examples)].slice(0, 5),
    numbers: { tasks_late: top.tasks, share_late: lateShare, share_early: earlyShare },
  };
}

/** The mean of the points in [from, to], or of the first / last quarter of them when none fall there. */
function meanIn(points: EvalSeries['points'], from: number, to: number, fallback: 'first' | 'last'): number {
  const inSpan = points.filter((p) => p.step >= from && p.step <= to && Number.isFinite(p.value));
  const finite = points.filter((p) => Number.isFinite(p.value));
  const q = Math.max(1, Math.floor(finite.length / 4));
  const use = inSpan.length ? inSpan : fallback === 'first' ? finite.slice(0, q) : finite.slice(-q);
  return use.length ? use.reduce((a, p) => a + p.value, 0) / use.length : NaN;
}

/** The training reward rising while every eval series stays flat; undefined when not seen. */
export function trainEvalDivergence(table: TaskTable, s: Span, r0: number, r1: number, evals: EvalSeries[], examples: number[]): RunFinding | undefined {
  const range = table.hi - table.lo;
  if (!(range > 0) || !evals.length) return undefined;
  const trainRise = (r1 - r0) / range;
  if (trainRise < TRAIN_RISE) return undefined;
  const moved = evals
    .map((e) => {
      const a = meanIn(e.points, s.early[0], s.early[s.early.length - 1], 'first');
      const b = meanIn(e.points, s.late[0], s.late[s.late.length - 1], 'last');
      let scale = 0;
      for (const p of e.points) if (Number.isFinite(p.value)) scale = Math.max(scale, Math.abs(p.value));
      return { tag: e.tag, a, b, rel: scale > 0 ? (b - a) / scale : 0 };
    })
    .filter((e) => Number.isFinite(e.a) && Number.isFinite(e.b));
  if (!moved.length || moved.some((e) => e.rel > FLAT_EVAL * trainRise)) return undefined;
  const text = l10n.t(
    'the mean training reward rose {0} → {1} (versions {2} → {3}) while {4}',
    fmt(r0),
    fmt(r1),
    spanText(s.early),
    spanText(s.late),
    moved.map((e) => `${e.tag} ${fmt(e.a)} → ${fmt(e.b)}`).join(', '),
  );
  return {
    kind: 'train_eval_divergence',
    detail: render(text),
    text,
    examples,
    numbers: {
      reward_early: r0,
      reward_late: r1,
      ...Object.fromEntries(
        moved.flatMap((e) => [
          [`${e.tag}_early`, e.a],
          [`${e.tag}_late`, e.b],
        ]),
      ),
    },
  };
}

/** The eval tasksets' headline series among a run's tags: per taskset, its accuracy (else reward) mean. */
export function evalSeriesOf(tags: string[]): string[] {
  const byTaskset = new Map<string, string>();
  const rank = (t: string) => (/\/accuracy\/mean/.test(t) ? 0 : /\/reward\/mean/.test(t) ? 1 : 2);
  for (const t of tags) {
    const m = /^eval\/([^/]+)\/(accuracy|reward)\/mean/.exec(t);
    if (!m) continue;
    const held = byTaskset.get(m[1]);
    if (held === undefined || rank(t) < rank(held) || (rank(t) === rank(held) && t < held)) byTaskset.set(m[1], t);
  }
  return [...byTaskset.values()].sort();
}
