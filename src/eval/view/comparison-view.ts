// What the comparison view shows, computed on the extension side (pure): per task each model's
// mean@k / pass@k, the difference and whether it is a regression, largest change first; the
// verdict with its interval; and two episodes' transcripts aligned turn by turn with the turns
// that differ marked.
import type { TranscriptTurn } from '../../feature-api/rollouts';
import { byLargestChange } from '../stats/paired';
import type { ModelComparison } from '../report/table';
import type { ComparisonData, OverviewRow, PairRow } from '../protocol/messages';

export interface ComparisonContext {
  title: string;
  dir: string;
  models: string[];
  /** Every other model against the shown baseline. */
  overview: readonly ModelComparison[];
}

export function comparisonData(
  ctx: ComparisonContext,
  c: ModelComparison,
  parts: { a: Map<string, Record<string, number>>; b: Map<string, Record<string, number>> },
): ComparisonData {
  const overview: OverviewRow[] = ctx.overview.map((o) => ({ model: o.other, verdict: o.verdict.text, kind: o.verdict.kind, meanDiff: o.comparison.meanDiff }));
  return {
    title: ctx.title,
    dir: ctx.dir,
    models: ctx.models,
    overview,
    a: c.base,
    b: c.other,
    verdict: c.verdict.text,
    kind: c.verdict.kind,
    interval: c.comparison.interval,
    meanDiff: c.comparison.meanDiff,
    paired: c.comparison.paired,
    tasks: c.comparison.tasks.length,
    failures: { a: c.comparison.failures.a.episodes, b: c.comparison.failures.b.episodes },
    rows: byLargestChange(c.comparison.tasks).map((t) => ({
      task: t.task,
      a: { mean: t.a.mean, pass: t.a.pass, failed: t.a.failed },
      b: { mean: t.b.mean, pass: t.b.pass, failed: t.b.failed },
      diff: t.diff,
      regression: t.diff !== null && t.diff < 0,
      partsA: parts.a.get(t.task) ?? {},
      partsB: parts.b.get(t.task) ?? {},
    })),
  };
}

/** Two transcripts side by side, turn i against turn i. */
export function pairTurns(a: readonly TranscriptTurn[], b: readonly TranscriptTurn[]): PairRow[] {
  const n = Math.max(a.length, b.length);
  return Array.from({ length: n }, (_, i) => ({
    ...(a[i] ? { a: a[i] } : {}),
    ...(b[i] ? { b: b[i] } : {}),
    differs: !a[i] || !b[i] || a[i].kind !== b[i].kind || a[i].text !== b[i].text,
  }));
}
