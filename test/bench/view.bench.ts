// `npm run bench -- view [--points N] [--series N] [--seconds S] [--naive-seconds S] [--live-only]`
//
// 1 M points × 20 series streamed into the metrics webview in real Chromium (the real
// media/metrics.js bundle, the real ViewController + store + chart engine in this process,
// messages through page.evaluate like webview.postMessage), and the same data pushed
// naively: full arrays (one bucket per point) on every update, through the same webview.
// Measured in the page: main-thread work per frame (message handling + the animation frame
// that draws, uPlot's microtask included), rAF intervals, JS heap (CDP); in this process:
// host CPU while streaming. The naive run is time-boxed; it says how far it got.
// Then the live path end to end (write-to-screen.ts): a writer appends stamped event files at
// 10 000 scalars/s, the real relay tails them, the real client + store + controller feed the
// page; write→screen latency of every point, p50 / p99 (`--live-seconds`, `--live-rate`;
// `--live-only` runs just this part; VIEW_PROFILE=<dir> writes the page's JS CPU profile of the live run there).
// Ends with: BENCH view frame_p95_ms=<a> heap_mb=<b> naive_ratio=<c> write_to_screen_p50_ms=<d> write_to_screen_p99_ms=<e>
import { parseArgs } from 'util';
import type { CDPSession, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { openWebviewPage, WebviewPage } from '../harness/webview-page';
import { MetricsStore, type Point } from '../../src/metrics/store/store';
import { ViewController } from '../../src/metrics/view/view-controller';
import { silentLogger } from '../../src/base/log';
import { ChartFrame } from '../../src/metrics/protocol/frames';
import { UI_STRING_KEYS, UiStrings } from '../../src/metrics/protocol/ui-strings';
import { sleep } from '../harness/wait';
import { writeToScreen } from './write-to-screen';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;

interface PageStats {
  frames: number[];
  intervals: number[];
}

/** Instruments the page: work per frame (message handlers + rAF callbacks, with microtasks). */
async function instrument(page: Page): Promise<void> {
  await page.evaluate(() => {
    type Raf = (cb: (t: number) => void) => number;
    const window = globalThis as unknown as {
      __bench: { frames: number[]; intervals: number[]; acc: number; last: number; start: number };
      addEventListener(type: string, f: () => void, capture?: boolean): void;
      requestAnimationFrame: Raf;
    };
    const b = (window.__bench = { frames: [] as number[], intervals: [] as number[], acc: 0, last: 0, start: 0 });
    // Capture listeners on window run before the view's own listener; the bubble listener
    // added now runs after it (and after its microtasks).
    window.addEventListener('message', () => (b.start = performance.now()), true);
    window.addEventListener('message', () => (b.acc += performance.now() - b.start));
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (cb: (t: number) => void) =>
      raf((t) => {
        const s = performance.now();
        cb(t);
        queueMicrotask(() => (b.acc += performance.now() - s));
      });
    // A ticker: one entry per displayed frame (work since the previous frame, interval).
    const tick = (t: number) => {
      if (b.last) {
        b.intervals.push(t - b.last);
        b.frames.push(b.acc);
      }
      b.acc = 0;
      b.last = t;
      raf(tick);
    };
    raf(tick);
  });
}

async function collect(page: Page): Promise<PageStats> {
  return page.evaluate(() => {
    const b = (globalThis as unknown as { __bench: PageStats & { acc: number; last: number } }).__bench;
    const out = { frames: b.frames.splice(0), intervals: b.intervals.splice(0) };
    return out;
  });
}

async function heapMb(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

interface RunResult {
  label: string;
  pointsPerSeries: number;
  seconds: number;
  frameP50: number;
  frameP95: number;
  frameMax: number;
  intervalP50: number;
  intervalP95: number;
  slowFrames: number;
  heapPeakMb: number;
  hostCpuPct: number;
  posted: number;
  bytesPosted: number;
}

function tags(n: number): string[] {
  const base = [
    'rollout/accuracy/mean',
    'rollout/format_score/mean',
    'critic/rewards/mean',
    'actor/pg_loss',
    'actor/kl_loss',
    'actor/entropy',
    'actor/grad_norm',
    'response_length/mean',
    'response_length/max',
    'perf/throughput',
  ];
  return Array.from({ length: n }, (_, i) => (i < base.length ? base[i] : `perf/metric_${i}`));
}

function valueAt(i: number, s: number): number {
  return Math.exp(-s / 300_000) * (1 + i / 10) + 0.05 * Math.sin(s * 0.37 + i) + (s === 612_345 ? 5 : 0);
}

/**
 * Streams `perSeries` points into each of `series` series at `rate` points/s per series, in
 * ticks of 50 ms, for at most `maxSeconds`; `mode` chooses how the host feeds the webview.
 */
async function run(mode: 'ours' | 'naive', o: { series: number; perSeries: number; rate: number; maxSeconds: number }): Promise<RunResult> {
  const store = new MetricsStore();
  let wp: WebviewPage | undefined;
  let bytes = 0;
  let posted = 0;
  const post = (m: unknown) => {
    if (!wp) return;
    posted++;
    bytes += JSON.stringify(m).length;
    void wp.post(m).catch(() => undefined);
  };
  const ctl = new ViewController(store, { post: mode === 'ours' ? post : (m) => (m as { type: string }).type !== 'update' && post(m) }, silentLogger, strings, {
    smoothing: 0,
  });
  const names = tags(o.series);
  // Seed one point per series so the layout exists before streaming starts.
  for (let i = 0; i < names.length; i++) ctl.addPoints('bench', i < 3 ? 'explorer' : 'trainer', names[i], [{ step: 0, wallTime: 1.7e9, value: valueAt(i, 0) }]);
  wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m), viewport: { width: 1280, height: 2800 } });
  const cdp = await wp.page.context().newCDPSession(wp.page);
  await cdp.send('Performance.enable');
  // Wait for the first render of every chart.
  for (let i = 0; i < 100; i++) {
    const r = await ctl.probe(2000);
    if (r && r.charts.filter((c) => c.drawn).length >= names.length) break;
    await sleep(100);
  }
  await instrument(wp.page);
  await collect(wp.page);
  const tickMs = 50;
  const perTick = Math.max(1, Math.round((o.rate * tickMs) / 1000));
  let step = 1;
  let heapPeak = 0;
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  const stats: PageStats = { frames: [], intervals: [] };
  let lastHeap = 0;
  let sampling: Promise<void> | undefined;
  while (step < o.perSeries && Date.now() - t0 < o.maxSeconds * 1000) {
    const tickStart = Date.now();
    const to = Math.min(o.perSeries, step + perTick);
    for (let i = 0; i < names.length; i++) {
      const pts = new Array<Point>(to - step);
      for (let s = step; s < to; s++) pts[s - step] = { step: s, wallTime: 1.7e9 + s * 0.01, value: valueAt(i, s) };
      ctl.addPoints('bench', i < 3 ? 'explorer' : 'trainer', names[i], pts);
    }
    step = to;
    if (mode === 'naive') {
      // Every update: the whole series, one bucket per point, as a full frame.
      const frames: ChartFrame[] = names.map((tag, i) => {
        const key = JSON.stringify(['bench', i < 3 ? 'explorer' : 'trainer', tag]);
        const c = store.columns(key)!;
        const y = Array.from(c.value.subarray(0, c.length));
        return {
          chart: tag,
          rev: step,
          xAxis: 'step',
          origin: 0,
          dx: 1,
          n: c.length,
          start: 0,
          points: c.length,
          series: [{ key, y, lo: y, hi: y, gaps: [] }],
        };
      });
      posted++;
      const msg = { type: 'update', frames };
      bytes += JSON.stringify(msg).length;
      await wp.post(msg); // awaited: the page cannot take them faster
    }
    if (Date.now() - lastHeap > 500 && !sampling) {
      // Sampled without blocking the stream (the page answers between its frames).
      lastHeap = Date.now();
      sampling = Promise.all([heapMb(cdp), collect(wp.page)]).then(([h, s]) => {
        heapPeak = Math.max(heapPeak, h);
        stats.frames.push(...s.frames);
        stats.intervals.push(...s.intervals);
        sampling = undefined;
      });
    }
    await sleep(Math.max(0, tickMs - (Date.now() - tickStart)));
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await sampling;
  await sleep(500);
  const s = await collect(wp.page);
  stats.frames.push(...s.frames);
  stats.intervals.push(...s.intervals);
  heapPeak = Math.max(heapPeak, await heapMb(cdp));
  // The view must still be right: the planted spike is inside the envelope of its chart.
  const probe = mode === 'ours' ? await ctl.probe(10_000) : undefined;
  if (probe && o.perSeries > 612_345) {
    const c = probe.charts.find((x) => x.id === names[0]);
    if (!c || (c.hi ?? 0) < 5) throw new Error(`the spike is not in the envelope of ${names[0]}: ${JSON.stringify(c)}`);
  }
  await wp.close();
  ctl.dispose();
  const busy = stats.frames.filter((f) => f > 0);
  return {
    label: mode,
    pointsPerSeries: step,
    seconds,
    frameP50: pct(busy, 50),
    frameP95: pct(busy, 95),
    frameMax: Math.max(0, ...busy),
    intervalP50: pct(stats.intervals, 50),
    intervalP95: pct(stats.intervals, 95),
    slowFrames: stats.intervals.filter((x) => x > 50).length,
    heapPeakMb: heapPeak,
    hostCpuPct: ((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100,
    posted,
    bytesPosted: bytes,
  };
}

function show(r: RunResult): void {
  console.log(
    `${r.label.padEnd(6)} ${r.pointsPerSeries.toLocaleString().padStart(10)} pts/series in ${r.seconds.toFixed(1)} s · ` +
      `frame work p50 ${r.frameP50.toFixed(1)} ms, p95 ${r.frameP95.toFixed(1)} ms, max ${r.frameMax.toFixed(0)} ms · ` +
      `rAF interval p50 ${r.intervalP50.toFixed(1)} / p95 ${r.intervalP95.toFixed(1)} ms (${r.slowFrames} > 50 ms) · heap peak ${r.heapPeakMb.toFixed(1)} MB · ` +
      `host CPU ${r.hostCpuPct.toFixed(0)} % · ${r.posted} messages, ${(r.bytesPosted / 1e6).toFixed(1)} MB`,
  );
}

/** The live path end to end (write-to-screen.ts), printed. */
async function live(rate: number, seconds: number): Promise<{ p50: number; p99: number }> {
  console.log(
    `live: a writer appends ${rate.toLocaleString()} stamped scalars/s (20 tags) for ${seconds} s → relay → client + store + controller → webview; the first 3 s are warm-up`,
  );
  const r = await writeToScreen({ rate, seconds, warmupSeconds: 3, tags: 20 });
  console.log(
    `live   write→screen p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms over ${r.points.toLocaleString()} points (${r.written.toLocaleString()} written, ${r.undrawn} never drawn) · ` +
      `write→host store p50 ${r.hostP50.toFixed(0)} / p99 ${r.hostP99.toFixed(0)} ms · store→screen p50 ${r.viewP50.toFixed(0)} / p99 ${r.viewP99.toFixed(0)} ms ` +
      `(store→posted p50 ${r.feedP50.toFixed(0)} / p99 ${r.feedP99.toFixed(0)} ms, posted→drawn p50 ${r.pageP50.toFixed(0)} / p99 ${r.pageP99.toFixed(0)} ms = ` +
      `posted→in the page p50 ${r.transportP50.toFixed(0)} / p99 ${r.transportP99.toFixed(0)} ms + in the page→drawn p50 ${r.drawP50.toFixed(0)} / p99 ${r.drawP99.toFixed(0)} ms) · ` +
      `page: ${r.cardMsP50.toFixed(1)} ms per card drawn (p50), a card redrawn every ${r.redrawP50.toFixed(0)} ms (p50) / ${r.redrawP99.toFixed(0)} ms (p99)`,
  );
  console.log(`target: write→screen p99 ≤ 100 ms (${r.p99 <= 100 ? 'met' : 'NOT met'})`);
  return r;
}

async function main() {
  const { values } = parseArgs({
    options: {
      points: { type: 'string', default: '1000000' },
      series: { type: 'string', default: '20' },
      seconds: { type: 'string', default: '20' },
      'naive-seconds': { type: 'string', default: '30' },
      'live-seconds': { type: 'string', default: '25' },
      'live-rate': { type: 'string', default: '10000' },
      'live-only': { type: 'boolean', default: false },
    },
  });
  const perSeries = Number(values.points);
  const series = Number(values.series);
  const seconds = Number(values.seconds);
  // Warm the browser binary and page cache once (not measured).
  await (await launchChromium()).close();
  const liveKeys = (l: { p50: number; p99: number }) => `write_to_screen_p50_ms=${l.p50.toFixed(0)} write_to_screen_p99_ms=${l.p99.toFixed(0)}`;
  if (values['live-only']) {
    console.log(`BENCH view ${liveKeys(await live(Number(values['live-rate']), Number(values['live-seconds'])))}`);
    return;
  }
  console.log(`streaming ${perSeries.toLocaleString()} points × ${series} series into the metrics webview (Chromium), ${seconds} s target`);
  const ours = await run('ours', { series, perSeries, rate: perSeries / seconds, maxSeconds: seconds * 6 });
  show(ours);
  const naive = await run('naive', { series, perSeries, rate: perSeries / seconds, maxSeconds: Number(values['naive-seconds']) });
  show(naive);
  if (naive.pointsPerSeries < perSeries) {
    console.log(
      `naive: time box of ${values['naive-seconds']} s reached at ${naive.pointsPerSeries.toLocaleString()} of ${perSeries.toLocaleString()} points per series (${((100 * naive.pointsPerSeries) / perSeries).toFixed(1)} %)`,
    );
  }
  const ratio = naive.frameP95 / ours.frameP95;
  console.log(
    `naive / ours: frame p95 ×${ratio.toFixed(1)}, heap ×${(naive.heapPeakMb / ours.heapPeakMb).toFixed(1)}, host CPU ×${(naive.hostCpuPct / ours.hostCpuPct).toFixed(1)}, bytes ×${(naive.bytesPosted / ours.bytesPosted).toFixed(0)}`,
  );
  console.log(`targets: frame p95 ≤ 16 ms (${ours.frameP95 <= 16 ? 'met' : 'NOT met'}), heap ≤ 150 MB (${ours.heapPeakMb <= 150 ? 'met' : 'NOT met'})`);
  const l = await live(Number(values['live-rate']), Number(values['live-seconds']));
  console.log(`BENCH view frame_p95_ms=${ours.frameP95.toFixed(1)} heap_mb=${ours.heapPeakMb.toFixed(1)} naive_ratio=${ratio.toFixed(1)} ${liveKeys(l)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
