// What the comparison view shows, computed on the extension side (pure): per task each model's
// mean@k / pass@k, the difference and whether it is a regression, largest change first; the
// verdict with its interval; and two episodes' transcripts aligned turn by turn with the turns
// that differ marked.
import type { TranscriptTurn } from '../../feature-api/rollouts';
import { byLargestChange } from '../stats/paired';
import type { ModelComparison } from '../report/table';
import type { ComparisonData, PairRow } from '../protocol/messages';

export function comparisonData(title: string, c: ModelComparison, parts: { a: Map<string, Record<string, number>>; b: Map<string, Record<string, number>> }): ComparisonData {
  return {
    title,
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
