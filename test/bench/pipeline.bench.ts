// `npm run bench -- pipeline [--steps 5000] [--runs 7] [--timeline-mb 200]`
//
// A job dir of --steps steps with both roles and every timing tag Trinity-RFT logs
// (test/harness/pipeline-run.ts: eval every 10 steps, a checkpoint every 100, the bottleneck
// moving three times), as tensorboardX-format event files. Loaded once the way
// `agentrl pipeline --job-dir` loads it (the relay's readers into a StepTable: load_ms, the
// peer — reading is what the run costs anyway); then, median of --runs, what the view and the
// CLI compute once the run is in memory: the per-step rows for the stacked bars, the shares,
// the segments and verdict, the advice (verdict_ms; the budget is 300 ms); and the same run
// fed to the metrics view's PipelineFeed as the charts get it, its view data worded and its bars
// binned (view_ms). Then Ray's timeline: a --timeline-mb timeline.json (Chrome trace events
// shaped as the real one Ray writes, test/fixtures/pipeline/ray-timeline.json) in the job dir,
// a relay process (`agentrl relay --job-dir`) asked for a window of it the way the view asks:
// timeline_ms from the request to the window received (the relay reads the file in chunks
// on the first request; the budget is 1 s), timeline_cpu_ms the relay's CPU time for it (utime +
// stime at 100 ticks a second: what a loaded machine does not stretch), zoom_ms for a second window, relay_rss_mb the
// relay's peak resident memory (VmHWM; the budget is 200 MB).
// Ends with: BENCH pipeline verdict_ms=<median> view_ms=<median> load_ms=<ms> steps=<n> points=<n>
//   bottleneck=<kind> timeline_ms=<ms> timeline_cpu_ms=<ms> zoom_ms=<ms> relay_rss_mb=<MB> timeline_events=<n>
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
import { english } from '../../src/base/l10n';
import { PipelineFeed } from '../../src/metrics/view/pipeline-feed';
import { RelayClient } from '../../src/relay-protocol/client';
import { repoRoot } from '../harness/paths';
import { startRelay } from '../harness/relay';
import { writeTimeline } from './timeline-file';

const { values } = parseArgs({
  options: { steps: { type: 'string', default: '5000' }, runs: { type: 'string', default: '7' }, 'timeline-mb': { type: 'string', default: '200' } },
});
const steps = Number(values.steps);
const runs = Number(values.runs);
const timelineMb = Number(values['timeline-mb']);

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
void main();

async function main(): Promise<void> {
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

    // The metrics view's side: the same points through PipelineFeed, its view data (worded, bars binned).
    const feed = new PipelineFeed(() => undefined, english, { config: () => config });
    readJobScalars(dir, (role, tag, step, wall, value) => feed.add('job', role, tag, { step: [step], wallTime: [wall ?? 0], value: [value] }));
    const viewTimes: number[] = [];
    let bars = 0;
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      bars = feed.data()?.bars.steps.length ?? 0;
      viewTimes.push(performance.now() - t);
    }
    viewTimes.sort((a, b) => a - b);
    const viewMs = viewTimes[Math.floor(viewTimes.length / 2)];
    console.log(`view data (verdict worded, ${bars} bars): ${viewMs.toFixed(1)} ms (median of ${runs})`);

    // Ray's timeline through a relay process.
    const file = path.join(dir, 'monitor', 'timeline.json');
    const tl = writeTimeline(file, timelineMb * 1024 * 1024, path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray-timeline.json'));
    console.log(`timeline.json: ${(fs.statSync(file).size / 1048576).toFixed(0)} MB, ${tl.events} events over ${(tl.spanUs / 1e6).toFixed(0)} s`);
    const relay = await startRelay(['--job-dir', dir]);
    const client = new RelayClient({ url: relay.url, experiences: false, backoff: { initialMs: 100, maxMs: 1000 } });
    try {
      const run = await new Promise<string>((resolve) => {
        client.on('hello', (h) => resolve(h.runs[0]));
        client.start();
      });
      // the relay's own CPU time for the first window (utime + stime): what the load does not change
      const cpu = (): number => {
        const f = fs.readFileSync(`/proc/${relay.proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
      };
      const cpu0 = cpu();
      let t = performance.now();
      const mid = tl.spanUs / 2;
      const w = (await client.requestTimeline({ run, from: mid, to: mid + tl.spanUs / 100, maxEvents: 20_000 })) as
        { lane: number[]; dropped: number } | undefined;
      const timelineMs = performance.now() - t;
      const timelineCpuMs = cpu() - cpu0;
      t = performance.now();
      const z = (await client.requestTimeline({ run, from: mid, to: mid + tl.spanUs / 1000, maxEvents: 20_000 })) as { lane: number[] } | undefined;
      const zoomMs = performance.now() - t;
      const hwm = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${relay.proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
      console.log(
        `timeline window (1 % of the span): ${w?.lane.length ?? 0} events (+${w?.dropped ?? 0} left out) in ${timelineMs.toFixed(0)} ms, ${timelineCpuMs.toFixed(0)} ms of the relay's CPU (first request: the relay reads the file); zoomed window ${z?.lane.length ?? 0} events in ${zoomMs.toFixed(0)} ms`,
      );
      console.log(
        `budgets: window ≤ 1 s ${timelineMs <= 1000 ? 'met' : 'MISSED'}; relay peak RSS ${hwm.toFixed(0)} MB ≤ 200 MB ${hwm <= 200 ? 'met' : 'MISSED'}`,
      );
      console.log(
        `BENCH pipeline verdict_ms=${median.toFixed(1)} view_ms=${viewMs.toFixed(1)} load_ms=${loadMs.toFixed(0)} steps=${steps} points=${points} bottleneck=${kind} timeline_ms=${timelineMs.toFixed(0)} timeline_cpu_ms=${timelineCpuMs.toFixed(0)} zoom_ms=${zoomMs.toFixed(0)} relay_rss_mb=${hwm.toFixed(0)} timeline_events=${tl.events}`,
      );
    } finally {
      await client.close();
      await relay.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
