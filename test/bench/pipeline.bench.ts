// `npm run bench -- pipeline [--steps 5000] [--runs 7]`
//
// A job dir of --steps steps with both roles and every timing tag Trinity-RFT logs
// (test/harness/pipeline-run.ts: eval every 10 steps, a checkpoint every 100, the bottleneck
// moving three times), as tensorboardX-format event files. Loaded once the way
// `agentrl pipeline --job-dir` loads it (the relay's readers into a StepTable: load_ms, the
// peer — reading is what the run costs anyway); then, median of --runs, what the view and the
// CLI compute once the run is in memory: the per-step rows for the stacked bars, the shares,
// the segments and verdict, the advice (verdict_ms; the budget is 300 ms).
// Ends with: BENCH pipeline verdict_ms=<median> load_ms=<ms> steps=<n> points=<n> bottleneck=<kind>
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { RunConfig } from '../../src/pipeline/advice';
import { stepRows } from '../../src/pipeline/analyze';
import { reportOfRows } from '../../src/pipeline/report';
import { StepTable } from '../../src/pipeline/step-table';
import { readJobScalars } from '../../src/relay/pipeline/job-points';
import { type StepPlan, simulate, writeJob } from '../harness/pipeline-run';

const { values } = parseArgs({ options: { steps: { type: 'string', default: '5000' }, runs: { type: 'string', default: '7' } } });
const steps = Number(values.steps);
const runs = Number(values.runs);

function plan(s: number): StepPlan {
  const phase = Math.floor((s * 4) / steps);
  const jitter = (k: number) => 1 + 0.1 * Math.sin(s * 12.9898 + k);
  const runsOf = phase === 1 ? [2, 2.2 * jitter(1), 1.9, 12 * jitter(2)] : [3 * jitter(1), 3.1, 2.9 * jitter(2), 3];
  return {
    runs: phase === 0 ? runsOf.map((r) => r * 3) : runsOf,
    train: phase === 2 ? 12 * jitter(3) : 3 * jitter(3),
    sync: phase === 3 ? 5 : 0.4,
    ...(s % 100 === 0 ? { checkpoint: 6 } : {}),
    ...(s % 10 === 0 ? { eval: 8 } : {}),
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-bench-'));
try {
  writeJob(dir, simulate(Array.from({ length: steps }, (_, i) => plan(i + 1))));
  const table = new StepTable();
  let points = 0;
  const t0 = performance.now();
  readJobScalars(dir, (role, tag, step, wall, value) => {
    points++;
    table.add(role, tag, step, wall, value);
  });
  const loadMs = performance.now() - t0;
  const config = new RunConfig({ cluster: { node_num: 2, gpu_per_node: 8 }, explorer: { rollout_model: { engine_num: 4, tensor_parallel_size: 2 } } });
  const times: number[] = [];
  let kind = '';
  let segments = 0;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const rows = stepRows(table);
    const r = reportOfRows(table, rows, { config });
    times.push(performance.now() - t);
    kind = r.bottleneck;
    segments = r.segments.length;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(
    `${steps} steps, ${points} points: loaded in ${loadMs.toFixed(0)} ms; rows + report in ${median.toFixed(1)} ms (median of ${runs}; min ${times[0].toFixed(1)}, max ${times[times.length - 1].toFixed(1)}); ${segments} segments, now ${kind}`,
  );
  console.log(`budget: 300 ms after the run is loaded: ${median <= 300 ? 'met' : 'MISSED'}`);
  console.log(`BENCH pipeline verdict_ms=${median.toFixed(1)} load_ms=${loadMs.toFixed(0)} steps=${steps} points=${points} bottleneck=${kind}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
