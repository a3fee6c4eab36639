// `npm run bench -- open-run [--steps N] [--trials N] [--skip-tb] [--full-stream] [--viewport WxH]
//                            [--compositing software|gpu] [--runtime node|python3|python3.8]`
//
// Opening a finished run: a Trinity job dir whose one monitor writer (tensorboardX) logged
// 50 tags × 100 000 steps = 5 M scalars, all tags interleaved per step (generated once,
// cached in .cache/bench/open-run/).
//   ours: `agentrl relay --job-dir` (dist/agentrl.js, its own process, loopback); the extension
//         host's side in a process of its own (open-run-host.ts: the real RelayClient, a
//         persisting MetricsStore and the ViewController, talking JSON over IPC as the
//         extension host does to a webview), fresh per trial; the real metrics webview
//         (media/metrics.js) in Chromium. Time from connect until every tag's chart has drawn
//         data covering all its points (draw-probe.ts; an envelope covering the range counts).
//         The client asks for the envelope first (src/relay-protocol/envelope.ts), as the extension does;
//         --full-stream measures the path before it (every point streamed, stored and
//         downsampled). RSS: relay + host + the page's renderer (not headless Chromium's UI or
//         spare renderers), peak from connect until a second after the last chart drew.
//   peer: TensorBoard 2.21 with its Rust data server (tensorboard-peer.ts), process start until
//         every tag's full series has been served by its HTTP API; RSS of its process tree.
// --compositing gpu: Chromium composites and rasterizes on a GPU as a desktop VS Code does, with
// SwiftShader (GL on the CPU) standing in for the graphics card; canvases and tiles then leave the
// renderer for the GPU process, whose growth is printed apart. Its times are SwiftShader's, not a
// GPU's. Default: software compositing, what this machine (no GPU) and a VS Code without one do.
// --runtime: the relay that serves the run, the Node CLI (default) or the Python relay
// (dist/agentrl_relay.py) on that Python; `npm run bench -- relay` reports the latter.
// --viewport WxH: a window shorter than the board pages down one screen whenever the cards on
// screen are complete (all tags drawn = the last screen's). Default: all 50 cards on screen.
// OPENRUN_TRACE=1 prints a timeline (messages both ways, frame arrivals, draws, RSS every 100 ms);
// OPENRUN_TRACE=memory adds the renderer's memory by Chromium allocator (memory-infra dump).
// OPENRUN_PROFILE=<dir> writes CPU profiles there: the page's JS from connect until all is drawn
// (renderer.cpuprofile), Chromium's timeline trace of that span (trace.json), and with node
// --cpu-prof the host process's (CPU.*.cpuprofile) and the bench's own, the page's go-between
// (bench.cpuprofile).
// Ends with: BENCH open-run all_tags_ms=… rss_mb_total=… tb_all_tags_ms=… tb_rss_mb=… ratio=…
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot, venvPython } from '../harness/paths';
import { RelayRuntime, startRelay } from '../harness/relay';
import { launchChromium } from '../harness/browser';
import { openWebviewPage } from '../harness/webview-page';
import { sleep } from '../harness/wait';
import { DrawEvent, FrameArrival, instrumentDraws, takeArrivals, takeDraws } from './draw-probe';
import { busiest, cpuSecondsOf, descendantsMatching, rssMbOf, sampleRss } from './rss-sampler';
import { runTensorBoard } from './tensorboard-peer';
import { BenchHost } from './open-run-host';

const TAGS = 50; // writers.py big
const cacheDir = path.join(process.env.AGENTRL_BENCH_CACHE ?? path.join(repoRoot, '.cache', 'bench'), 'open-run');
const writers = path.join(repoRoot, 'test', 'fixtures', 'relay', 'writers.py');
/** Tall enough that all 50 cards (5 groups of 10, 4 columns) are on screen. */
const VIEWPORT = { width: 1920, height: 4600 };
/** How long RSS is still sampled after every chart has drawn. */
const SETTLE_MS = 1000;
/** The ids of the cards that intersect the window (evaluated in the page). */
const ON_SCREEN = `[...document.querySelectorAll('.card')].filter((c) => { const r = c.getBoundingClientRect(); return r.height > 0 && r.bottom > 0 && r.top < window.innerHeight; }).map((c) => c.dataset.chart)`;

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
  /** Connect → the first chart drew anything / all points. */
  firstDrawMs: number;
  firstCompleteMs: number;
  rssMb: number;
  parts: Record<string, number>;
  /** CPU seconds from connect to all drawn: relay, this process (client + store + controller), renderer. */
  cpu: { relay: number; host: number; renderer: number };
  /** RSS before connecting: the empty page's renderer, the host process and the GPU process (MB). */
  idle: { renderer: number; host: number; gpu: number };
  /** Peak RSS of Chromium's GPU process minus its RSS before connecting (MB). */
  gpuGrowthMb: number;
  /** Complete charts whose drawn grid was checked to span every step. */
  gridsChecked: number;
  gridsCovering: number;
  /** The page's JS heap once all is drawn (MB). */
  heapMb: number;
  updates: number;
  framesPosted: number;
  /** Screens scrolled down (a window shorter than the board). */
  scrolls: number;
}

async function runOurs(
  job: string,
  o: { steps: number; timeoutMs: number; fullStream: boolean; viewport: { width: number; height: number }; compositing: Compositing; runtime: RelayRuntime },
): Promise<OursResult> {
  const storeDir = fs.mkdtempSync(path.join(cacheDir, 'store-'));
  const browser = await launchChromium({ compositing: o.compositing });
  // OPENRUN_TRACE=1: a timeline of the messages both ways, frame arrivals and draws (ms after connect).
  const trace: string[] = [];
  let t0 = 0;
  const note = (what: string) => t0 && trace.push(`${Date.now() - t0} ${what}`);
  let post: (m: unknown) => void = () => undefined;
  const host = new BenchHost(
    storeDir,
    (m) => post(m),
    (what) => trace.push(what),
  );
  const fromPage = (m: unknown) => {
    const v = m as { type?: string; visible?: string[] };
    if (v.type === 'viewport') note(`viewport report (${v.visible?.length} visible)`);
    host.fromPage(m);
  };
  const wp = await openWebviewPage({ browser, onMessage: fromPage, viewport: o.viewport });
  if (process.env.OPENRUN_TRACE) host.trace();
  post = (m) => void wp.post(m).catch(() => undefined);
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined;
  try {
    while (!(await host.probe(1000))) await sleep(50); // the page said ready
    await instrumentDraws(wp.page);
    // The page's renderer: not headless Chromium's own UI renderer nor its spare one, but the
    // one that gets busy when the page does.
    const candidates = descendantsMatching(process.pid, '--type=renderer').filter((p) => !descendantsMatching(process.pid, '--top-chrome-webui').includes(p));
    const renderers = [await busiest(candidates, () => wp.page.evaluate('(() => { const t = Date.now(); while (Date.now() - t < 400); })()'))];
    // Chromium's GPU process (viz: the compositor; with GPU compositing also the canvases and
    // raster tiles, which a real graphics card keeps in its own memory). Shared by every page
    // of the browser, as VS Code's is by the whole window: reported as its growth, not in the total.
    const gpuPids = descendantsMatching(process.pid, '--type=gpu-process');
    const idle = { renderer: renderers.reduce((a, p) => a + rssMbOf(p), 0), host: rssMbOf(host.pid), gpu: gpuPids.reduce((a, p) => a + rssMbOf(p), 0) };
    if (process.env.OPENRUN_TRACE === 'memory') console.log(`idle: ${await rendererDump(wp.page, renderers[0])}`);
    const tSpawn = Date.now();
    relay = await startRelay(['--job-dir', job], { runtime: o.runtime });
    const rss = sampleRss([
      { label: 'relay', pids: [relay.proc.pid!], trees: [] },
      { label: 'host', pids: [host.pid], trees: [] },
      { label: 'renderer', pids: renderers, trees: [] },
    ]);
    const gpuRss = sampleRss([{ label: 'gpu', pids: gpuPids, trees: [] }]);
    const want = TAGS * o.steps;
    const relayPid = relay.proc.pid!;
    const cpuOf = () => ({ relay: cpuSecondsOf(relayPid), host: cpuSecondsOf(host.pid), renderer: renderers.reduce((a, p) => a + cpuSecondsOf(p), 0) });
    // OPENRUN_PROFILE=<dir>: the page's JS CPU profile from connect until all is drawn (renderer.cpuprofile).
    const profiler = process.env.OPENRUN_PROFILE ? await wp.page.context().newCDPSession(wp.page) : undefined;
    // … and Chromium's timeline trace of the same span (trace.json: layout, paint, script per task).
    const tracer = process.env.OPENRUN_PROFILE ? await browser.newBrowserCDPSession() : undefined;
    const traceEvents: unknown[] = [];
    if (tracer) {
      tracer.on('Tracing.dataCollected', (e) => traceEvents.push(...(e.value as unknown[])));
      await tracer.send('Tracing.start', {
        traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink', 'v8.execute'] },
      });
    }
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.send('Profiler.start');
    }
    const cpu0 = cpuOf();
    const tConnect = Date.now();
    t0 = tConnect;
    host.connect(relay.url, o.fullStream, want);
    const complete = new Map<string, number>();
    const arrivals: FrameArrival[] = [];
    let firstDraw = 0;
    const deadline = tConnect + o.timeoutMs;
    // A window shorter than the board: scroll one screen down whenever every card on screen
    // is complete, as a user paging through the charts as fast as they draw.
    const scrolling = o.viewport.height < VIEWPORT.height;
    let scrolls = 0;
    while (complete.size < TAGS && Date.now() < deadline) {
      await sleep(scrolling ? 20 : 100);
      if (scrolling && complete.size > 0) {
        const shown = await wp.page.evaluate<string[]>(ON_SCREEN);
        if (shown.length && shown.every((id) => complete.has(id))) {
          await wp.page.evaluate('window.scrollBy(0, window.innerHeight)');
          scrolls++;
          note(`scrolled one screen (${complete.size} complete)`);
        }
      }
      note(
        `RSS renderer ${renderers.reduce((a, p) => a + rssMbOf(p), 0).toFixed(0)} MB, relay ${rssMbOf(relayPid).toFixed(0)} MB, host ${rssMbOf(host.pid).toFixed(0)} MB`,
      );
      const ev: DrawEvent[] = await takeDraws(wp.page);
      arrivals.push(...(await takeArrivals(wp.page)));
      for (const e of ev) {
        if (!firstDraw && e.points > 0) firstDraw = e.t;
        if (e.points >= o.steps && !complete.has(e.chart)) complete.set(e.chart, e.t);
      }
    }
    // Memory keeps moving after the last draw (raster, compositing, GC): the peak counts a
    // second of it too.
    if (complete.size === TAGS) await sleep(SETTLE_MS);
    const cpu1 = cpuOf();
    if (profiler) {
      const { profile } = await profiler.send('Profiler.stop');
      fs.writeFileSync(path.join(process.env.OPENRUN_PROFILE!, 'renderer.cpuprofile'), JSON.stringify(profile));
    }
    if (tracer) {
      const done = new Promise((r) => tracer.once('Tracing.tracingComplete', r));
      await tracer.send('Tracing.end');
      await done;
      fs.writeFileSync(path.join(process.env.OPENRUN_PROFILE!, 'trace.json'), JSON.stringify({ traceEvents }));
    }
    const peak = await rss.stop();
    const gpuPeak = (await gpuRss.stop()).totalMb;
    const cdp = await wp.page.context().newCDPSession(wp.page);
    await cdp.send('Performance.enable');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const heapMb = (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
    const probe = await host.probe(10_000);
    const stats = await host.stats();
    const receivedAt = host.receivedAt;
    if (complete.size < TAGS) {
      const vis = probe?.charts.filter((x) => x.visible).length;
      throw new Error(`only ${complete.size} of ${TAGS} charts complete after ${o.timeoutMs} ms (${vis} visible, ${stats.points} points received)`);
    }
    const done = Math.max(...complete.values());
    if (process.env.OPENRUN_TRACE) {
      for (const a of arrivals) trace.push(`${a.t - tConnect} page got ${a.frames.length} frames`);
      const drawn = [...complete].sort((a, b) => a[1] - b[1]);
      for (const [i, [chart, t]] of drawn.entries()) if (i % 10 === 0 || i === drawn.length - 1) trace.push(`${t - tConnect} drawn #${i + 1} ${chart}`);
      trace.push(`${receivedAt - tConnect} client held all points`);
      const canvases = await wp.page.evaluate('[...document.querySelectorAll("canvas")].reduce((a, c) => a + c.width * c.height * 4, 0)');
      if (process.env.OPENRUN_TRACE === 'memory') console.log(await rendererDump(wp.page, renderers[0]));
      console.log([...trace.sort((a, b) => parseInt(a) - parseInt(b)), `canvas backing stores: ${(Number(canvases) / 1048576).toFixed(1)} MB`].join('\n'));
    }
    // The data each card drew when complete spans every step: the grid of the last frame that
    // reached it before then covers [0, steps - 1] (checked when the frames carry their grid).
    let covered = 0;
    let checked = 0;
    for (const [chart, t] of complete) {
      let x: [number, number] | undefined;
      for (const a of arrivals) if (a.t <= t) for (const f of a.frames) if (f.chart === chart && f.x) x = f.x;
      if (!x) continue;
      checked++;
      if (x[0] <= 0 && x[1] >= o.steps - 1) covered++;
    }
    // A warning, not a failure: messages of a shape this check does not know would leave it an
    // older frame's grid.
    if (covered < checked) console.error(`warning: only ${covered} of ${checked} complete charts drew a grid known to cover steps 0…${o.steps - 1}`);
    return {
      allTagsMs: done - tConnect,
      fromSpawnMs: done - tSpawn,
      receivedMs: receivedAt ? receivedAt - tConnect : NaN,
      firstDrawMs: firstDraw - tConnect,
      firstCompleteMs: Math.min(...complete.values()) - tConnect,
      rssMb: peak.totalMb,
      parts: peak.partsMb,
      gpuGrowthMb: gpuPeak - idle.gpu,
      cpu: { relay: cpu1.relay - cpu0.relay, host: cpu1.host - cpu0.host, renderer: cpu1.renderer - cpu0.renderer },
      heapMb,
      idle,
      gridsChecked: checked,
      gridsCovering: covered,
      updates: stats.updates,
      framesPosted: stats.frames,
      scrolls,
    };
  } finally {
    await host.close(); // it closes its client and removes the store
    await relay?.stop();
    await wp.close();
    await browser.close();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

/** OPENRUN_TRACE=memory: the renderer's memory by Chromium's allocators (a memory-infra dump, MB). */
async function rendererDump(page: import('playwright-core').Page, pid: number): Promise<string> {
  const cdp = await page.context().browser()!.newBrowserCDPSession();
  const events: { pid: number; name?: string; args?: { dumps?: { allocators?: Record<string, { attrs?: Record<string, { value: string }> }> } } }[] = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as typeof events)));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], memoryDumpConfig: { triggers: [] } } } as never);
  await cdp.send('Tracing.requestMemoryDump' as never, { levelOfDetail: 'detailed' } as never);
  await cdp.send('Tracing.end');
  await done;
  const dump = events.find((e) => e.pid === pid && e.args?.dumps?.allocators);
  const top = Object.entries(dump?.args?.dumps?.allocators ?? {})
    .filter(([name]) => name.split('/').length <= 2)
    .map(([name, a]) => [name, parseInt(a.attrs?.size?.value ?? '0', 16) / 1048576] as const)
    .filter(([, mb]) => mb >= 1)
    .sort((a, b) => b[1] - a[1]);
  const sizes: Record<string, number> = {};
  for (const [name, a] of Object.entries(dump?.args?.dumps?.allocators ?? {})) {
    if (!name.startsWith('shared_memory/') || name.split('/').length !== 2) continue;
    const kb = Math.round(parseInt(a.attrs?.size?.value ?? '0', 16) / 1024);
    sizes[kb] = (sizes[kb] ?? 0) + 1;
  }
  return `renderer ${pid} by allocator: ${top.map(([n, mb]) => `${n} ${mb.toFixed(1)}`).join(', ')}\n  shared memory segments (KB × count): ${Object.entries(
    sizes,
  )
    .sort((a, b) => Number(b[0]) * b[1] - Number(a[0]) * a[1])
    .slice(0, 12)
    .map(([k, n]) => `${k}×${n}`)
    .join(' ')}`;
}

function oursInChild(job: string, steps: number): OursResult {
  // The child gets this process's flags (so every option of ours applies there too).
  const prof = process.env.OPENRUN_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.OPENRUN_PROFILE, '--cpu-prof-name', 'bench.cpuprofile'] : [];
  const r = spawnSync(process.execPath, ['--expose-gc', ...prof, __filename, ...process.argv.slice(2), '--steps', String(steps), '--ours-child', job], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
  });
  const lines = r.stdout.split('\n');
  for (const l of lines) if (l && !l.startsWith('RESULT ')) console.log(l); // the child's own output (traces)
  const line = lines.find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || !line) throw new Error(`ours failed (exit ${r.status}): ${r.stdout.slice(-500)}`);
  return JSON.parse(line.slice('RESULT '.length)) as OursResult;
}

function parseViewport(v: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(v);
  if (!m) throw new Error(`--viewport WIDTHxHEIGHT, not '${v}'`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

type Compositing = 'software' | 'gpu';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', default: '100000' },
      trials: { type: 'string', default: '1' },
      'skip-tb': { type: 'boolean', default: false },
      'full-stream': { type: 'boolean', default: false },
      'ours-child': { type: 'string' },
      viewport: { type: 'string', default: `${VIEWPORT.width}x${VIEWPORT.height}` },
      compositing: { type: 'string', default: 'software' },
      // the relay: node (dist/agentrl.js) or the Python relay on python3 / python3.8
      runtime: { type: 'string', default: 'node' },
    },
  });
  const steps = Number(values.steps);
  const compositing = values.compositing as Compositing;
  if (compositing !== 'software' && compositing !== 'gpu') throw new Error(`--compositing software|gpu, not '${String(values.compositing)}'`);
  if (values['ours-child']) {
    // One trial of ours in a fresh process: its RSS is the host side's alone, not what the
    // previous trials (or the peer's HTTP bodies) left in this process's heap.
    process.stdout.write(
      `RESULT ${JSON.stringify(await runOurs(values['ours-child'], { steps, timeoutMs: 180_000, fullStream: values['full-stream'], viewport: parseViewport(values.viewport), compositing, runtime: values.runtime as RelayRuntime }))}\n`,
    );
    return;
  }
  const trials = Number(values.trials);
  fs.mkdirSync(cacheDir, { recursive: true });
  const job = jobDir(steps);
  const bytes = fs.statSync(path.join(job, 'monitor', 'tensorboard', 'trainer', 'events.out.tfevents.1700000000.bench')).size;
  console.log(
    `open-run (relay: ${values.runtime}): ${TAGS} tags × ${steps.toLocaleString()} steps = ${(TAGS * steps).toLocaleString()} scalars (${(bytes / 1e6).toFixed(0)} MB of event file), ${trials} trial(s)`,
  );
  await (await launchChromium()).close(); // warm the browser binary (not measured)
  const ours: OursResult[] = [];
  const tbs: Awaited<ReturnType<typeof runTensorBoard>>[] = [];
  for (let t = 0; t < trials; t++) {
    const r = oursInChild(job, steps);
    ours.push(r);
    console.log(
      `ours  all tags drawn ${r.allTagsMs} ms after connect (${r.fromSpawnMs} ms after relay spawn) · first chart drew at ${r.firstDrawMs} ms, first complete at ${r.firstCompleteMs} ms · ` +
        `client held all points at ${r.receivedMs} ms · RSS peak ${r.rssMb.toFixed(0)} MB (relay ${r.parts.relay?.toFixed(0)}, host ${r.parts.host?.toFixed(0)}, renderer ${r.parts.renderer?.toFixed(0)}; page JS heap ${r.heapMb.toFixed(0)} MB; before connecting: renderer ${r.idle.renderer.toFixed(0)}, host ${r.idle.host.toFixed(0)}; GPU process +${r.gpuGrowthMb.toFixed(0)} from ${r.idle.gpu.toFixed(0)}) · ` +
        `CPU s relay ${r.cpu.relay.toFixed(1)}, host ${r.cpu.host.toFixed(1)}, renderer ${r.cpu.renderer.toFixed(1)} · ` +
        `${r.updates} updates, ${r.framesPosted} frames posted, ${r.scrolls} screens scrolled; drawn grids spanning every step: ${r.gridsCovering} of ${r.gridsChecked} checked (${TAGS} charts)`,
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
  console.log(
    `ours / tb: time ×${(a / tbMs).toFixed(2)} (from relay spawn ×${(median(ours.map((r) => r.fromSpawnMs)) / tbMs).toFixed(2)}), RSS ×${(rss / tbRss).toFixed(2)}`,
  );
  console.log(`targets: all tags ≤ 1 000 ms (${a <= 1000 ? 'met' : 'NOT met'}), RSS ≤ 400 MB (${rss <= 400 ? 'met' : 'NOT met'})`);
  console.log(`path: ${values['full-stream'] ? 'full stream (before issue 16 §4)' : 'envelope first'}`);
  console.log(
    `BENCH open-run all_tags_ms=${a} rss_mb_total=${rss.toFixed(0)} tb_all_tags_ms=${tbMs} tb_rss_mb=${tbRss.toFixed(0)} ratio=${(a / tbMs).toFixed(2)} ` +
      `from_spawn_ms=${median(ours.map((r) => r.fromSpawnMs))} received_ms=${median(ours.map((r) => r.receivedMs))} first_draw_ms=${median(ours.map((r) => r.firstDrawMs))} ` +
      `rss_relay_mb=${median(ours.map((r) => r.parts.relay ?? NaN)).toFixed(0)} rss_host_mb=${median(ours.map((r) => r.parts.host ?? NaN)).toFixed(0)} rss_renderer_mb=${median(ours.map((r) => r.parts.renderer ?? NaN)).toFixed(0)}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
