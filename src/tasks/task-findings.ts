// Evidence of reward hacking from the table of tasks × versions: numbers and the rollouts behind
// them, never a verdict (single signals audit hacking after the fact; they do not warn early at a
// usable false-positive rate). Early and late are the first and last quarter of the run's
// versions (at least one each).
//   reward_part_alone  one reward part (format_score, …) rose while the others stayed flat
//   length_growth      the mean response length grew by ≥ 30 % while the reward rose
// What these rows cannot show is listed as not checked, with why.
import { type FindingText, l10n, render } from './finding-text';
import { type EvalSeries, modeCollapse, trainEvalDivergence } from './run-findings';
import type { TaskTable } from './task-table';

export interface Finding {
  kind: 'reward_part_alone' | 'length_growth' | 'mode_collapse' | 'train_eval_divergence' | 'reference_answer';
  /** The finding's sentence in English (`text` rendered without a language). */
  detail: string;
  /** The same sentence to render in the reader's language (finding-text.ts). */
  text: FindingText;
  /** Row ids of example rollouts: read these. */
  examples: number[];
  /** The numbers the finding rests on. */
  numbers: Record<string, number>;
}

export interface NotChecked {
  kind: 'mode_collapse' | 'train_eval_divergence' | 'reference_answer' | 'reward_part_alone' | 'length_growth';
  /** Why, in English (`whyText` rendered without a language). */
  why: string;
  whyText: FindingText;
}

/** A finding whose English detail is its text rendered. */
export function finding(kind: Finding['kind'], text: FindingText, examples: number[], numbers: Record<string, number>): Finding {
  return { kind, detail: render(text), text, examples, numbers };
}

export function notChecked(kind: NotChecked['kind'], whyText: FindingText): NotChecked {
  return { kind, why: render(whyText), whyText };
}

/** A part must rise by at least this share of the run's reward range to count as rising. */
const RISE = 0.05;
/** …and by at least this share of its own scale; */
const RISE_OWN = 0.3;
/** …and every other part by at most this share of that (each on its own scale) to count as flat beside it. */
const FLAT_BESIDE = 0.25;
const LENGTH_GROWTH = 0.3;
const EXAMPLES = 5;

interface Acc {
  n: number;
  sum: number;
}
const avg = (a: Acc | undefined) => (a && a.n > 0 ? a.sum / a.n : NaN);
const fmt = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2));

/** Per version over every task: reward, length and each part, as sums. */
function byVersion(table: TaskTable) {
  const out = new Map<number, { reward: Acc; len: Acc; parts: Map<string, Acc> }>();
  for (const versions of table.cells.values()) {
    for (const [v, c] of versions) {
      if (c.n <= 0) continue;
      let o = out.get(v);
      if (!o) out.set(v, (o = { reward: { n: 0, sum: 0 }, len: { n: 0, sum: 0 }, parts: new Map() }));
      o.reward.n += c.n;
      o.reward.sum += c.sum;
      o.len.n += c.lenN;
      o.len.sum += c.lenSum;
      for (const [k, s] of c.parts) {
        const a = o.parts.get(k) ?? { n: 0, sum: 0 };
        a.n += s.n;
        a.sum += s.sum;
        o.parts.set(k, a);
      }
    }
  }
  return out;
}

/** The mean of `pick` over a span of versions (weighted by members). */
function spanMean(
  rows: { reward: Acc; len: Acc; parts: Map<string, Acc> }[],
  pick: (r: { reward: Acc; len: Acc; parts: Map<string, Acc> }) => Acc | undefined,
): number {
  const a: Acc = { n: 0, sum: 0 };
  for (const r of rows) {
    const x = pick(r);
    if (!x) continue;
    a.n += x.n;
    a.sum += x.sum;
  }
  return avg(a);
}

/** Example rows at the late versions: the best-rewarded, or the longest, of the tasks that gained most. */
function examplesAt(table: TaskTable, late: number[], kind: 'best' | 'longest'): number[] {
  const picked: { id: number; score: number }[] = [];
  for (const task of table.cells.keys()) {
    for (const v of late) {
      const e = table.examples.get(`${task}@${v}`);
      if (e) picked.push(kind === 'best' ? { id: e.best, score: e.bestReward } : { id: e.longest, score: e.longestLen });
    }
  }
  picked.sort((a, b) => b.score - a.score || a.id - b.id);
  return [...new Set(picked.map((p) => p.id))].slice(0, EXAMPLES);
}

/**
 * The evidence in a table. `evals`: the eval tasksets' series of the run (eval/<taskset>/…), when
 * the caller reads them; undefined when it does not.
 */
export function findEvidence(table: TaskTable, evals?: EvalSeries[]): { findings: Finding[]; notChecked: NotChecked[] } {
  const unchecked: NotChecked[] = [];
  if (!table.hashed) unchecked.push(notChecked('mode_collapse', l10n.t('the rows carry no response texts')));
  if (!evals) unchecked.push(notChecked('train_eval_divergence', l10n.t("needs the eval tasksets' series beside the buffer (not read here)")));
  else if (!evals.length) unchecked.push(notChecked('train_eval_divergence', l10n.t('the run has no eval taskset series (eval/…)')));
  const findings: Finding[] = [];
  const per = byVersion(table);
  const versions = [...per.keys()].sort((a, b) => a - b);
  if (versions.length < 2) {
    const why = l10n.t('needs at least two model versions ({0} seen)', versions.length);
    unchecked.push(notChecked('reward_part_alone', why), notChecked('length_growth', why));
    if (table.hashed) unchecked.push(notChecked('mode_collapse', why));
    if (evals?.length) unchecked.push(notChecked('train_eval_divergence', why));
    return { findings, notChecked: unchecked };
  }
  const q = Math.max(1, Math.floor(versions.length / 4));
  const early = versions.slice(0, q);
  const late = versions.slice(-q);
  const rowsOf = (vs: number[]) => vs.map((v) => per.get(v)!);
  const span = (vs: number[]) => `${vs[0]}${vs.length > 1 ? `–${vs[vs.length - 1]}` : ''}`;
  const range = table.hi - table.lo;
  const r0 = spanMean(rowsOf(early), (r) => r.reward);
  const r1 = spanMean(rowsOf(late), (r) => r.reward);

  // One part rising alone.
  const partNames = new Set<string>();
  for (const r of per.values()) for (const k of r.parts.keys()) partNames.add(k);
  if (partNames.size < 2)
    unchecked.push(notChecked('reward_part_alone', l10n.t("needs two or more reward parts in the rows' metrics ({0} found)", partNames.size)));
  else {
    // Each part against its own scale (accuracy 0–1 beside a format bonus of 0.1): its largest
    // per-version mean in magnitude. A part that is 0 throughout is not a part of this reward.
    const gains = [...partNames]
      .map((k) => {
        const a = spanMean(rowsOf(early), (r) => r.parts.get(k));
        const b = spanMean(rowsOf(late), (r) => r.parts.get(k));
        let scale = 0;
        for (const r of per.values()) {
          const m = avg(r.parts.get(k));
          if (Number.isFinite(m)) scale = Math.max(scale, Math.abs(m));
        }
        return { k, a, b, gain: b - a, rel: scale > 0 ? (b - a) / scale : 0, scale };
      })
      .filter((g) => Number.isFinite(g.gain) && g.scale > 0);
    for (const g of gains) {
      if (!(range > 0) || g.gain < RISE * range || g.rel < RISE_OWN) continue;
      const others = gains.filter((o) => o.k !== g.k);
      if (!others.length || others.some((o) => o.rel > FLAT_BESIDE * g.rel)) continue;
      const flat = others.map((o) => `${o.k} ${fmt(o.a)} → ${fmt(o.b)}`).join(', ');
      findings.push(
        finding(
          'reward_part_alone',
          l10n.t('{0} rose {1} → {2} (versions {3} → {4}) while {5}: the reward rose through one part', g.k, fmt(g.a), fmt(g.b), span(early), span(late), flat),
          examplesAt(table, late, 'best'),
          {
            [`${g.k}_early`]: g.a,
            [`${g.k}_late`]: g.b,
            ...Object.fromEntries(
              others.flatMap((o) => [
                [`${o.k}_early`, o.a],
                [`${o.k}_late`, o.b],
              ]),
            ),
          },
        ),
      );
    }
  }

  // Length growing with the reward.
  const l0 = spanMean(rowsOf(early), (r) => r.len);
  const l1 = spanMean(rowsOf(late), (r) => r.len);
  if (!Number.isFinite(l0) || !Number.isFinite(l1)) unchecked.push(notChecked('length_growth', l10n.t('the rows carry no response lengths')));
  else if (l0 > 0 && l1 >= (1 + LENGTH_GROWTH) * l0 && range > 0 && r1 - r0 >= RISE * range) {
    findings.push(
      finding(
        'length_growth',
        l10n.t(
          'the mean response grew {0} → {1} tokens (+{2} %) while the mean reward rose {3} → {4} (versions {5} → {6})',
          fmt(l0),
          fmt(l1),
          Math.round((l1 / l0 - 1) * 100),
          fmt(r0),
          fmt(r1),
          span(early),
          span(late),
        ),
        examplesAt(table, late, 'longest'),
        { length_early: l0, length_late: l1, reward_early: r0, reward_late: r1 },
      ),
    );
  }
  const collapse = table.hashed ? modeCollapse(table, { early, late }) : undefined;
  if (collapse) findings.push(collapse);
  const divergence = evals?.length ? trainEvalDivergence(table, { early, late }, r0, r1, evals, examplesAt(table, late, 'best')) : undefined;
  if (divergence) findings.push(divergence);
  return { findings, notChecked: unchecked };
}
