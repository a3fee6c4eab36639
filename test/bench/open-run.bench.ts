// `npm run bench -- open-run [--steps N] [--trials N] [--skip-tb] [--full-stream]`
//
// Opening a finished run: a Trinity job dir whose one monitor writer (tensorboardX) logged
// 50 tags × 100 000 steps = 5 M scalars, all tags interleaved per step (generated once,
// cached in .cache/bench/open-run/).
//   ours: `agentrl relay --job-dir` (dist/agentrl.js, its own process, loopback); in this
//         process the real RelayClient, MetricsStore (persisting, as the extension's) and
//         ViewController; the real metrics webview (media/metrics.js) in Chromium. The client
//         asks for the envelope first (issue 16 §4), as the extension does; --full-stream
//         measures the path before it (every point streamed, stored and downsampled). Time from
//         connect until every tag's chart has drawn data covering all its points (draw-probe.ts;
//         an envelope covering the range counts). RSS: relay + this process + Chromium renderer.
//   peer: TensorBoard 2.21 with its Rust data server (tensorboard-peer.ts), process start until
//         every tag's full series has been served by its HTTP API; RSS of its process tree.
// Ends with: BENCH open-run all_tags_ms=… rss_mb_total=… tb_all_tags_ms=… tb_rss_mb=… ratio=…
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { MetricsStore } from '../../src/metrics/store/store';
import { ViewController } from '../../src/metrics/view/view-controller';
import { silentLogger } from '../../src/shared/log';
import { UI_STRING_KEYS, UiStrings } from '../../src/shared/metrics-protocol';
import { RelayClient } from '../../src/shared/relay-client';
import { ENVELOPE_BUCKETS } from '../../src/metrics/connect/connections';
import { repoRoot, venvPython } from '../harness/paths';
import { startRelay } from '../harness/relay';
import { launchChromium } from '../harness/browser';
import { openWebviewPage } from '../harness/webview-page';
import { sleep } from '../harness/wait';
import { DrawEvent, instrumentDraws, takeDraws } from './draw-probe';
import { descendantsMatching, sampleRss } from './rss-sampler';
import { runTensorBoard } from './tensorboard-peer';

const TAGS = 50; // writers.py big
const cacheDir = path.join(repoRoot, '.cache', 'bench', 'open-run');
const writers = path.join(repoRoot, 'test', 'fixtures', 'relay', 'writers.py');
const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
/** Tall enough that all 50 cards (5 groups of 10, 4 columns) are on screen. */
const VIEWPORT = { width: 1920, height: 4600 };

/** The cached job dir: <job>/monitor/tensorboard/trainer/events.out.tfevents.… (Trinity's layout). */
function jobDir(steps: number): string {
  const job = path.join(cacheDir, `trinity-job-${steps}`);
  const file = path.join(job, 'monitor', 'tensorboard', 'trainer', 'events.out.tfevents.1700000000.bench');
  if (!fs.existsSync(file)) {
    console.log(`generating ${TAGS} tags × ${steps} steps with tensorboardX (cached in ${path.relative(repoRoot, job)}) …`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const t0 = Date.now();
    const r = spawnSync(venvPython, [writers, 'big', file, String(steps)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('generator failed');
    console.log(`  done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  // Warm the page cache: both sides read a file already in memory.
  fs.readFileSync(file);
  return job;
}

interface OursResult {
  allTagsMs: number;
  /** Relay spawn → all drawn (relay start-up included). */
  fromSpawnMs: number;
  /** Connect → the client held every point. */
  receivedMs: number;
  /** Connect → the host posted the layout / the full frame of every chart. */
  layoutMs: number;
  framesPostedMs: number;
  /** Connect → the first chart drew anything / all points. */
  firstDrawMs: number;
  firstCompleteMs: number;
  rssMb: number;
  parts: Record<string, number>;
  updates: number;
  framesPosted: number;
}

async function runOurs(job: string, o: { steps: number; timeoutMs: number; fullStream: boolean }): Promise<OursResult> {
  const storeDir = fs.mkdtempSync(path.join(cacheDir, 'store-'));
  // As the extension's host: a persisting store with its default memory bound, flushed every 2 s.
  const store = new MetricsStore({ dir: storeDir, memoryLimitBytes: 256 * 1024 * 1024, log: silentLogger });
  const flush = setInterval(() => store.flush(), 2000);
  let post: (m: unknown) => void = () => undefined;
  // When the host posted the layout and the full frame of every chart (where the time goes).
  const posted = { layout: 0, framed: 0, charts: new Set<string>() };
  // OPEN_RUN_TRACE=1: a line per message between relay, host and page, ms after connect.
  const t0 = { connect: 0 };
  const trace = (what: string) => process.env.OPEN_RUN_TRACE && t0.connect && console.log(`  ${String(Date.now() - t0.connect).padStart(6)} ms ${what}`);
  const note = (m: { type?: string; frames?: { chart: string; points: number }[] }) => {
    trace(`host → page ${m.type}${m.frames ? ` (${m.frames.length} frames)` : ''}`);
    if (m.type === 'layout' && !posted.layout) posted.layout = Date.now();
    for (const f of m.type === 'update' ? (m.frames ?? []) : []) if (f.points >= o.steps) posted.charts.add(f.chart);
    if (!posted.framed && posted.charts.size >= TAGS) posted.framed = Date.now();
  };
  let client: RelayClient | undefined;
  const readDetail = (_ep: string, q: Parameters<RelayClient['requestDetail']>[0]) => client!.requestDetail(q);
  const ctl = new ViewController(store, { post: (m) => (note(m as Parameters<typeof note>[0]), post(m)), log: silentLogger, strings, readDetail });
  const browser = await launchChromium();
  const wp = await openWebviewPage({ browser, onMessage: (m) => (trace(`page → host ${(m as { type: string }).type}`), ctl.receive(m)), viewport: VIEWPORT });
  post = (m) => void wp.post(m).catch(() => undefined);
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
  try {
    while (!(await ctl.probe(1000))) await sleep(50); // the page said ready
    await instrumentDraws(wp.page);
    const renderers = descendantsMatching(process.pid, '--type=renderer');
    const tSpawn = Date.now();
    relay = await startRelay(['--job-dir', job]);
    const rss = sampleRss([
      { label: 'relay', pids: [relay.proc.pid!], trees: [] },
      { label: 'bench', pids: [process.pid], trees: [] },
      { label: 'renderer', pids: renderers, trees: [] },
    ]);
    const want = TAGS * o.steps;
    let receivedAt = 0;
    const tConnect = (t0.connect = Date.now());
    client = new RelayClient({ url: relay.url, envelope: o.fullStream ? undefined : { buckets: ENVELOPE_BUCKETS } });
    const c = client;
    let summarized = 0; // points the envelopes stand for
    c.on('points', (b) => {
      ctl.ingest('bench', b);
      if (!receivedAt && c.stats.points + summarized >= want) receivedAt = Date.now();
    });
    c.on('envelope', (m) => {
      trace(`relay → host envelope ${m.tag}`);
      ctl.envelopes.ingest('bench', m);
      summarized += m.points;
      if (!receivedAt && c.stats.points + summarized >= want) receivedAt = Date.now();
    });
    c.start();
    const complete = new Map<string, number>();
    let firstDraw = 0;
    const deadline = tConnect + o.timeoutMs;
    while (complete.size < TAGS && Date.now() < deadline) {
      await sleep(100);
      const ev: DrawEvent[] = await takeDraws(wp.page);
      for (const e of ev) {
        if (!firstDraw && e.points > 0) firstDraw = e.t;
        if (e.points >= o.steps && !complete.has(e.chart)) complete.set(e.chart, e.t);
      }
    }
    const peak = await rss.stop();
    const probe = await ctl.probe(10_000);
    if (complete.size < TAGS) {
      const vis = probe?.charts.filter((x) => x.visible).length;
      throw new Error(`only ${complete.size} of ${TAGS} charts complete after ${o.timeoutMs} ms (${vis} visible, ${c.stats.points} points received)`);
    }
    const done = Math.max(...complete.values());
    return {
      allTagsMs: done - tConnect,
      fromSpawnMs: done - tSpawn,
      receivedMs: receivedAt ? receivedAt - tConnect : NaN,
      layoutMs: posted.layout - tConnect,
      framesPostedMs: posted.framed - tConnect,
      firstDrawMs: firstDraw - tConnect,
      firstCompleteMs: Math.min(...complete.values()) - tConnect,
      rssMb: peak.totalMb,
      parts: peak.partsMb,
      updates: ctl.sent.updates,
      framesPosted: ctl.sent.frames,
    };
  } finally {
    clearInterval(flush);
    await client?.close();
    await relay?.stop();
    ctl.dispose();
    await wp.close();
    await browser.close();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '100000' },
      trials: { type: 'string', default: '1' },
      'skip-tb': { type: 'boolean', default: false },
      'full-stream': { type: 'boolean', default: false },
    },
  });
  const steps = Number(values.steps);
  const trials = Number(values.trials);
  fs.mkdirSync(cacheDir, { recursive: true });
  const job = jobDir(steps);
  const bytes = fs.statSync(path.join(job, 'monitor', 'tensorboard', 'trainer', 'events.out.tfevents.1700000000.bench')).size;
  console.log(`open-run: ${TAGS} tags × ${steps.toLocaleString()} steps = ${(TAGS * steps).toLocaleString()} scalars (${(bytes / 1e6).toFixed(0)} MB of event file), ${trials} trial(s)`);
  await (await launchChromium()).close(); // warm the browser binary (not measured)
  const ours: OursResult[] = [];
  const tbs: Awaited<ReturnType<typeof runTensorBoard>>[] = [];
  for (let t = 0; t < trials; t++) {
    (global as { gc?: () => void }).gc?.();
    const r = await runOurs(job, { steps, timeoutMs: 180_000, fullStream: values['full-stream'] });
    ours.push(r);
    console.log(
      `ours  all tags drawn ${r.allTagsMs} ms after connect (${r.fromSpawnMs} ms after relay spawn) · first chart drew at ${r.firstDrawMs} ms, first complete at ${r.firstCompleteMs} ms · ` +
        `client held all points at ${r.receivedMs} ms, host posted the layout at ${r.layoutMs} ms and every chart's frame at ${r.framesPostedMs} ms · RSS peak ${r.rssMb.toFixed(0)} MB (relay ${r.parts.relay?.toFixed(0)}, host/bench ${r.parts.bench?.toFixed(0)}, renderer ${r.parts.renderer?.toFixed(0)}) · ` +
        `${r.updates} updates, ${r.framesPosted} frames posted`,
    );
    if (values['skip-tb']) continue;
    await sleep(1000);
    const tb = await runTensorBoard(job, { tags: TAGS, steps, timeoutMs: 300_000 });
    tbs.push(tb);
    console.log(
      `tb    all tags served ${tb.allTagsMs} ms after process start (HTTP up at ${tb.serveMs} ms, tag list complete at ${tb.tagsMs} ms) · RSS peak ${tb.rssMb.toFixed(0)} MB · ${tb.requests} requests, ${tb.mbServed.toFixed(0)} MB served`,
    );
  }
  const a = median(ours.map((r) => r.allTagsMs));
  const rss = median(ours.map((r) => r.rssMb));
  const tbMs = tbs.length ? median(tbs.map((r) => r.allTagsMs)) : NaN;
  const tbRss = tbs.length ? median(tbs.map((r) => r.rssMb)) : NaN;
  console.log(`ours / tb: time ×${(a / tbMs).toFixed(2)} (from relay spawn ×${(median(ours.map((r) => r.fromSpawnMs)) / tbMs).toFixed(2)}), RSS ×${(rss / tbRss).toFixed(2)}`);
  console.log(`targets: all tags ≤ 1 000 ms (${a <= 1000 ? 'met' : 'NOT met'}), RSS ≤ 400 MB (${rss <= 400 ? 'met' : 'NOT met'})`);
  console.log(`path: ${values['full-stream'] ? 'full stream (before issue 16 §4)' : 'envelope first'}`);
  console.log(
    `BENCH open-run all_tags_ms=${a} rss_mb_total=${rss.toFixed(0)} tb_all_tags_ms=${tbMs} tb_rss_mb=${tbRss.toFixed(0)} ratio=${(a / tbMs).toFixed(2)} ` +
      `from_spawn_ms=${median(ours.map((r) => r.fromSpawnMs))} received_ms=${median(ours.map((r) => r.receivedMs))} first_draw_ms=${median(ours.map((r) => r.firstDrawMs))} ` +
      `rss_relay_mb=${median(ours.map((r) => r.parts.relay ?? NaN)).toFixed(0)} rss_host_mb=${median(ours.map((r) => r.parts.bench ?? NaN)).toFixed(0)} rss_renderer_mb=${median(ours.map((r) => r.parts.renderer ?? NaN)).toFixed(0)}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
