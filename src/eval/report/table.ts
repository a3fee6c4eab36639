// The comparison as text (`agentrl eval`) and as JSON (`--json`): per task each model's
// mean@k / pass@k and the difference, largest change first, then the verdict and what it rests
// on (failed episodes and tasks left out, per model). Pure.
import { byLargestChange, compare, gateFailure, verdict, type Comparison, type Verdict } from '../stats/paired';
import { rewardsByTask, type EvalRecord } from '../run/eval-record';
import type { L10n } from '../../base/l10n';

export interface ModelComparison {
  base: string;
  other: string;
  comparison: Comparison;
  verdict: Verdict;
  /** Set when a gate threshold was given: whether `other` fails it against `base`. */
  gateFailed?: boolean;
  /** Why it fails the gate (failed episodes, too few tasks, worse beyond the threshold). */
  gateReason?: string;
}

/** `l10n`: the language of the verdicts (English without it, as the CLI prints them). */
type CompareOpts = { seed?: number; passThreshold?: number; failIfWorse?: number; l10n?: L10n };

/** Every model against the first (the baseline). */
export function compareModels(record: EvalRecord, opts: CompareOpts = {}): ModelComparison[] {
  const [base, ...others] = record.models;
  if (!base) return [];
  return others.map((m) => comparePair(record, base.name, m.name, opts)!);
}

/** Model `other` against model `base` (by name); undefined when either is not in the record. */
export function comparePair(record: EvalRecord, base: string, other: string, opts: CompareOpts = {}): ModelComparison | undefined {
  const a = record.models.find((m) => m.name === base);
  const b = record.models.find((m) => m.name === other);
  if (!a || !b) return undefined;
  const comparison = compare(rewardsByTask(a.episodes), rewardsByTask(b.episodes), { seed: opts.seed ?? 1, passThreshold: opts.passThreshold });
  const why = opts.failIfWorse !== undefined ? gateFailure(comparison, opts.failIfWorse) : undefined;
  return {
    base,
    other,
    comparison,
    verdict: verdict(comparison, { a: base, b: other }, opts.failIfWorse ?? 0.02, opts.l10n),
    ...(opts.failIfWorse !== undefined ? { gateFailed: why !== undefined, ...(why ? { gateReason: why } : {}) } : {}),
  };
}

const num = (x: number | null, digits = 2): string => (x === null ? '—' : x.toFixed(digits));
const signed = (x: number | null): string => (x === null ? '—' : `${x > 0 ? '+' : x < 0 ? '−' : ' '}${Math.abs(x).toFixed(2)}`);

/** What a verdict rests on: tasks both scored, failures per model. */
function restsOn(c: ModelComparison): string {
  const f = c.comparison.failures;
  const fail = (name: string, x: { episodes: number; tasks: number }) =>
    `${name} ${x.episodes} failed episode${x.episodes === 1 ? '' : 's'}${x.tasks ? ` (${x.tasks} task${x.tasks === 1 ? '' : 's'} left out)` : ''}`;
  return `rests on ${c.comparison.paired} of ${c.comparison.tasks.length} tasks · ${fail(c.base, f.a)} · ${fail(c.other, f.b)}`;
}

export function formatComparison(c: ModelComparison, maxRows = 50): string {
  const rows = byLargestChange(c.comparison.tasks);
  const w = Math.max(4, ...rows.map((r) => r.task.length));
  const head = `${'task'.padEnd(w)}  ${`${c.base} mean`.padStart(10)} ${'pass'.padStart(5)}  ${`${c.other} mean`.padStart(10)} ${'pass'.padStart(5)}  ${'diff'.padStart(6)}`;
  const lines = rows
    .slice(0, maxRows)
    .map(
      (r) =>
        `${r.task.padEnd(w)}  ${num(r.a.mean).padStart(10)} ${num(r.a.pass).padStart(5)}  ${num(r.b.mean).padStart(10)} ${num(r.b.pass).padStart(5)}  ${signed(r.diff).padStart(6)}${r.a.failed || r.b.failed ? `  (failed: ${r.a.failed}/${r.b.failed})` : ''}`,
    );
  const more = rows.length > maxRows ? [`… ${rows.length - maxRows} more task(s)`] : [];
  return [head, ...lines, ...more, '', `${c.verdict.text}`, `  ${restsOn(c)}`, ''].join('\n');
}
