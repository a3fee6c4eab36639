// The view bench's live path, end to end: a writer process appends real event files at
// `rate` scalars/s, each value stamped with the moment of its append (relay-writer.ts); the
// real relay (its own process) tails them; the real RelayClient + MetricsStore +
// ViewController here feed the real metrics webview in Chromium, whose draws are observed
// by draw-probe.ts. A point's write→screen latency is the time of the first draw whose data
// holds it minus its stamp (one machine clock). Also split: write→host receipt (the point in
// the store) and host receipt→screen.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MetricsStore } from '../../src/metrics/store/store';
import { ViewController } from '../../src/metrics/view/view-controller';
import { silentLogger } from '../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../src/metrics/protocol/ui-strings';
import { RelayClient } from '../../src/relay-protocol/client';
import { repoRoot } from '../harness/paths';
import { startRelay } from '../harness/relay';
import { openWebviewPage } from '../harness/webview-page';
import { sleep } from '../harness/wait';
import { DrawEvent, FrameArrival, instrumentDraws, takeArrivals, takeDraws } from './draw-probe';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;

export interface WriteToScreen {
  /** Stamped points measured (written after the warm-up, drawn). */
  points: number;
  written: number;
  p50: number;
  p99: number;
  max: number;
  /** write → in the host's store. */
  hostP50: number;
  hostP99: number;
  /** in the store → drawn. */
  viewP50: number;
  viewP99: number;
  /** in the store → posted to the webview in a frame (the host's update feed). */
  feedP50: number;
  feedP99: number;
  /** posted → drawn (transport + page). */
  pageP50: number;
  pageP99: number;
  /** posted → arrived in the page (page.evaluate here, webview.postMessage in VS Code). */
  transportP50: number;
  transportP99: number;
  /** arrived → drawn (the page's own time). */
  drawP50: number;
  drawP99: number;
  /** Page: drawing time per card (frame work ÷ cards drawn in it), time between two draws of a card. */
  cardMsP50: number;
  redrawP50: number;
  redrawP99: number;
  /** Points written after the warm-up that were never drawn. */
  undrawn: number;
}

const pct = (xs: Float64Array | number[], p: number) => {
  if (!xs.length) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

export async function writeToScreen(o: { rate: number; seconds: number; warmupSeconds: number; tags: number }): Promise<WriteToScreen> {
  const dir = fs.mkdtempSync(path.join(repoRoot, '.cache', 'bench', 'view-live-'));
  const file = path.join(dir, 'events.out.tfevents.2.live');
  fs.writeFileSync(file, '');
  const store = new MetricsStore();
  let post: (m: unknown) => void = () => undefined;
  const ctl = new ViewController(store, { post: (m) => post(m) }, silentLogger, strings, { smoothing: 0 });
  // Chart id → its series key (from the layouts posted).
  const keyOf = new Map<string, string>();
  // Chart id → (time, points) of each frame posted for it (to split host from page time).
  const posts = new Map<string, { t: number; points: number }[]>();
  ctl.tap((m) => {
    if (m.type === 'layout') for (const c of m.charts) keyOf.set(c.id, c.series[0]?.key ?? '');
    if (m.type !== 'update') return;
    const t = Date.now();
    for (const f of m.frames) {
      const list = posts.get(f.chart) ?? [];
      list.push({ t, points: f.points });
      posts.set(f.chart, list);
    }
  });
  // Per series: when each point index reached the store (Date.now()).
  const arrived = new Map<string, number[]>();
  const wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m), viewport: { width: 1280, height: 2800 } });
  post = (m) => void wp.post(m).catch(() => undefined);
  const relay = await startRelay(['--logdir', dir]);
  const client = new RelayClient({ url: relay.url });
  let writer: ReturnType<typeof spawn> | undefined;
  try {
    while (!(await ctl.probe(1000))) await sleep(50);
    await instrumentDraws(wp.page);
    client.on('points', (b) => {
      ctl.ingest('bench', b);
      const now = Date.now();
      for (const s of store.list()) {
        const a = arrived.get(s.key) ?? [];
        while (a.length < s.length) a.push(now);
        arrived.set(s.key, a);
      }
    });
    client.start();
    await sleep(500);
    const base = Date.now();
    writer = spawn(process.execPath, [path.join(__dirname, 'relay-writer.js'), file, String(o.rate), String(o.seconds), String(o.tags), String(base)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // VIEW_PROFILE=<dir>: the page's JS CPU profile of the live run (live-renderer.cpuprofile).
    const profiler = process.env.VIEW_PROFILE ? await wp.page.context().newCDPSession(wp.page) : undefined;
    if (profiler) {
      await profiler.send('Profiler.enable');
      await profiler.send('Profiler.setSamplingInterval', { interval: 200 });
      await profiler.send('Profiler.start');
    }
    let written = 0;
    writer.stdout!.on('data', (b: Buffer) => (written = Number(String(b).trim())));
    const draws: DrawEvent[] = [];
    const arrivalsIn: FrameArrival[] = [];
    const writerDone = new Promise((r) => writer!.once('exit', r));
    let finished = false;
    void writerDone.then(() => (finished = true));
    while (!finished) {
      await sleep(250);
      draws.push(...(await takeDraws(wp.page)));
      arrivalsIn.push(...(await takeArrivals(wp.page)));
    }
    // Let the last points reach the screen.
    await sleep(1500);
    if (profiler)
      fs.writeFileSync(path.join(process.env.VIEW_PROFILE!, 'live-renderer.cpuprofile'), JSON.stringify((await profiler.send('Profiler.stop')).profile));
    draws.push(...(await takeDraws(wp.page)));
    arrivalsIn.push(...(await takeArrivals(wp.page)));
    const arrivals = new Map<string, { t: number; points: number }[]>();
    for (const a of arrivalsIn) {
      for (const f of a.frames) {
        const list = arrivals.get(f.chart) ?? [];
        list.push({ t: a.t, points: f.points });
        arrivals.set(f.chart, list);
      }
    }
    const probe = await ctl.probe(5000);
    const visible = probe?.charts.filter((c) => c.visible).length ?? 0;
    if (visible < o.tags) throw new Error(`only ${visible} of ${o.tags} charts on screen`);

    const warm = base + o.warmupSeconds * 1000;
    const total: number[] = [];
    const host: number[] = [];
    const view: number[] = [];
    const feed: number[] = [];
    const page: number[] = [];
    const transport: number[] = [];
    const drawn: number[] = [];
    const shown = new Map<string, number>();
    for (const d of draws) {
      const key = keyOf.get(d.chart);
      const cols = key ? store.columns(key) : undefined;
      const arr = key ? arrived.get(key) : undefined;
      if (!key || !cols || !arr) continue;
      const from = shown.get(key) ?? 0;
      const to = Math.min(d.points, cols.length);
      const sent = posts.get(d.chart) ?? [];
      const got = arrivals.get(d.chart) ?? [];
      let k = 0;
      let g = 0;
      for (let i = from; i < to; i++) {
        const stamp = base + cols.value[i];
        if (stamp < warm) continue;
        total.push(d.t - stamp);
        host.push(arr[i] - stamp);
        view.push(d.t - arr[i]);
        while (k < sent.length && sent[k].points <= i) k++;
        if (k < sent.length && sent[k].t <= d.t) {
          feed.push(sent[k].t - arr[i]);
          page.push(d.t - sent[k].t);
        }
        while (g < got.length && got[g].points <= i) g++;
        if (g < got.length && got[g].t <= d.t && k < sent.length) {
          transport.push(got[g].t - sent[k].t);
          drawn.push(d.t - got[g].t);
        }
      }
      if (to > from) shown.set(key, to);
    }
    const cardMs: number[] = [];
    const redraw: number[] = [];
    const lastDraw = new Map<string, number>();
    for (const d of draws) {
      if (d.t < warm) continue;
      cardMs.push(d.frameMs / d.inFrame);
      const last = lastDraw.get(d.chart);
      if (last !== undefined) redraw.push(d.t - last);
      lastDraw.set(d.chart, d.t);
    }
    let undrawn = 0;
    for (const s of store.list()) {
      const cols = store.columns(s.key)!;
      for (let i = shown.get(s.key) ?? 0; i < cols.length; i++) if (base + cols.value[i] >= warm) undrawn++;
    }
    return {
      points: total.length,
      written,
      p50: pct(total, 50),
      p99: pct(total, 99),
      max: total.reduce((a, b) => Math.max(a, b), 0),
      hostP50: pct(host, 50),
      hostP99: pct(host, 99),
      viewP50: pct(view, 50),
      viewP99: pct(view, 99),
      feedP50: pct(feed, 50),
      feedP99: pct(feed, 99),
      pageP50: pct(page, 50),
      pageP99: pct(page, 99),
      transportP50: pct(transport, 50),
      transportP99: pct(transport, 99),
      drawP50: pct(drawn, 50),
      drawP99: pct(drawn, 99),
      cardMsP50: pct(cardMs, 50),
      redrawP50: pct(redraw, 50),
      redrawP99: pct(redraw, 99),
      undrawn,
    };
  } finally {
    writer?.kill('SIGTERM');
    await client.close();
    await relay.stop();
    ctl.dispose();
    await wp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
