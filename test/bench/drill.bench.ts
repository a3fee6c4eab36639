// npm run bench -- drill
//
// The rollout drill-down of 10⁶ rows, timed (the unit tests count its work instead:
// test/unit/metrics/store/experiences.test.ts, test/unit/metrics/experiences/table.test.ts):
// - sort by task then run and pack into columns (byTaskThenRun + toColumns), against the plain
//   way, `Array.prototype.sort` comparing the rows' fields;
// - a filter by reward bin and by task text (ExperienceTable.filter), against
//   `Array.prototype.filter` over the same rows.
import { toColumns } from '../../src/metrics/experiences/columns';
import { BINS, ExperienceTable, binOf } from '../../src/metrics/experiences/table';
import type { ExperienceViewRow } from '../../src/metrics/protocol/experience-rows';
import { byTaskThenRun } from '../../src/metrics/view/drill';

const N = Number(process.env.AGENTRL_BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.AGENTRL_BENCH_RUNS ?? 3);

function best<T>(f: () => T): number {
  let min = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const rows: ExperienceViewRow[] = Array.from({ length: N }, (_, i) => ({
  run: 'r',
  endpoint: 'e',
  source: 's',
  table: 't',
  id: i + 1,
  taskId: String((i * 7919) % (N / 8)),
  runId: i % 8,
  modelVersion: 1,
  reward: i % 1000 === 999 ? null : i % 3,
  timestamp: null,
  metrics: { accuracy: i % 2, format_score: 0 },
}));

const pack = best(() => toColumns(byTaskThenRun(rows)));
const plainSort = best(() =>
  rows.slice().sort((a, b) => (a.taskId! < b.taskId! ? -1 : a.taskId! > b.taskId! ? 1 : (a.runId ?? 0) - (b.runId ?? 0) || a.id - b.id)),
);
console.log(`sort + pack ${N} rows: ours ${pack.toFixed(0)} ms, Array.prototype.sort alone ${plainSort.toFixed(0)} ms`);

const table = new ExperienceTable(toColumns(byTaskThenRun(rows)));
const h = table.rewardHistogram()!;
const top = binOf(2, h.lo, h.hi, BINS);
const filter = best(() => {
  table.filter({ rewardBin: top });
  table.filter({ text: 'task-1' });
});
const plainFilter = best(() => {
  rows.filter((r) => r.reward !== null && binOf(r.reward, h.lo, h.hi, BINS) === top);
  rows.filter((r) => r.taskId!.toLowerCase().includes('task-1'));
});
console.log(`two filters of ${N} rows: ours ${filter.toFixed(0)} ms, Array.prototype.filter ${plainFilter.toFixed(0)} ms`);
console.log(
  `BENCH drill rows=${N} pack_ms=${pack.toFixed(0)} plain_sort_ms=${plainSort.toFixed(0)} pack_ratio=${(pack / plainSort).toFixed(2)} filter_ms=${filter.toFixed(1)} plain_filter_ms=${plainFilter.toFixed(1)} filter_ratio=${(filter / plainFilter).toFixed(2)}`,
);
