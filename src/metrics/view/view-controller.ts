// The host side of the metrics view, without vscode: takes relay batches into the store,
// answers the webview's messages, and posts batched updates (layout when charts appear,
// frames of the visible charts, endpoint status) at most MAX_UPDATES_PER_SECOND times a
// second. The vscode adapter (panel.ts) only moves messages; the bench drives this class
// directly against the real webview bundle in Chromium.
import type { ExperiencesMessage } from '../../shared/relay-protocol';
import type { PointsBatch } from '../../shared/relay-client';
import type { Logger } from '../../shared/log';
import {
  DEFAULT_VIEW_OPTIONS,
  EndpointStatus,
  HostMessage,
  MAX_UPDATES_PER_SECOND,
  METRICS_PROTOCOL_VERSION,
  ProbeMessage,
  RenderedMessage,
  RolloutDetail,
  RolloutRef,
  RunSummary,
  UiStrings,
  ViewOptions,
  WebviewMessage,
  parseWebviewMessage,
  sanitizeOptions,
} from '../../shared/metrics-protocol';
import { ChartEngine } from './chart-engine';
import { drillDown } from './drill';
import { LiveDrill } from './live-drill';
import { layoutCharts } from './layout';
import { MetricsStore, Point, seriesKey } from '../store/store';

export interface ViewHooks {
  post(msg: HostMessage | ProbeMessage): void;
  log: Logger;
  strings: UiStrings;
  /** Options changed (persist them). */
  saveOptions?(o: ViewOptions): void;
  exportSeries?(format: 'csv' | 'json', keys: string[]): void;
  exportPng?(chart: string, dataUrl: string): void;
  connect?(): void;
  startDemo?(): void;
  readRollout?(ref: RolloutRef): Promise<RolloutDetail>;
  /** Called after every ingest with what changed (status bar). */
  onData?(): void;
}

export class ViewController {
  readonly engine: ChartEngine;
  private options: ViewOptions;
  private ready = false;
  private layoutDirty = true;
  private statusDirty = true;
  private status: EndpointStatus[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private seriesCount = -1;
  private probes = new Map<number, (r: RenderedMessage) => void>();
  private nextProbe = 1;
  /** Messages posted (tests and the bench read it). */
  readonly sent = { updates: 0, frames: 0, bytes: 0 };
  private readonly liveDrill: LiveDrill;

  constructor(
    readonly store: MetricsStore,
    private readonly hooks: ViewHooks,
    options?: Partial<ViewOptions>,
  ) {
    this.options = { ...DEFAULT_VIEW_OPTIONS, ...sanitizeOptions(options) };
    this.engine = new ChartEngine(store, () => this.options);
    this.liveDrill = new LiveDrill(
      (m, mode) => drillDown(this.store, m.run, m.role, m.chart, m.x, mode),
      (m) => this.post(m),
    );
    store.experiences.onChange = (run, versions) => this.liveDrill.changed(run, versions);
  }

  get viewOptions(): ViewOptions {
    return { ...this.options };
  }

  // ---- data in ---------------------------------------------------------------------------

  /** A relay batch: points grouped per series into the store, the cursor saved with them. */
  ingest(endpoint: string, b: PointsBatch): void {
    const groups = new Map<string, { tag: string; role: string; points: Point[] }>();
    for (const p of b.points) {
      const id = `${p.role}\u0000${p.tag}`;
      let g = groups.get(id);
      if (!g) groups.set(id, (g = { tag: p.tag, role: p.role, points: [] }));
      g.points.push({ step: p.step, wall: p.wallTime, value: p.value });
    }
    for (const g of groups.values()) this.addPoints(b.run, g.role, g.tag, g.points);
    this.store.setCursor(endpoint, b.cursor);
    this.hooks.onData?.();
  }

  /** Adds points of one series (also the bench's entry point). */
  addPoints(run: string, role: string, tag: string, points: Point[]): void {
    const isNew = this.store.get(seriesKey(run, role, tag)) === undefined;
    const ch = this.store.add(run, role, tag, points);
    if (isNew) this.layoutDirty = true;
    else this.engine.onChange(ch);
    this.schedule();
  }

  ingestExperiences(endpoint: string, m: ExperiencesMessage): void {
    this.store.addExperiences(endpoint, m.source, m.run, m.rows);
    this.store.setCursor(endpoint, m.cursor);
    this.layoutDirty = true; // run summaries count experiences
    this.schedule();
  }

  setStatus(status: EndpointStatus[]): void {
    this.status = status;
    this.statusDirty = true;
    this.schedule();
  }

  // ---- webview in ------------------------------------------------------------------------

  /** A message from the webview (validated here). */
  receive(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (!msg) {
      this.hooks.log.warn(`metrics view: ignored a malformed message from the webview`);
      return;
    }
    this.handle(msg);
  }

  private handle(msg: WebviewMessage): void {
    switch (msg.type) {
      case 'ready':
        if (msg.protocol !== METRICS_PROTOCOL_VERSION) this.hooks.log.warn(`metrics view: webview speaks protocol ${msg.protocol}`);
        this.ready = true;
        this.layoutDirty = true;
        this.statusDirty = true;
        this.seriesCount = -1;
        this.engine.invalidateAll(false);
        this.post({ type: 'init', protocol: METRICS_PROTOCOL_VERSION, strings: this.hooks.strings, options: this.viewOptions });
        this.flush();
        return;
      case 'viewport':
        this.engine.setViewport(msg.charts, msg.visible);
        this.schedule();
        return;
      case 'setOptions': {
        const before = this.options;
        this.options = { ...before, ...msg.options };
        if (before.smoothing !== this.options.smoothing || before.xAxis !== this.options.xAxis) {
          this.engine.invalidateAll(before.xAxis !== this.options.xAxis);
          this.schedule();
        }
        this.hooks.saveOptions?.(this.viewOptions);
        return;
      }
      case 'zoom':
        this.engine.setZoom(msg.chart, msg.range);
        this.schedule();
        return;
      case 'drill':
        this.liveDrill.drill(msg, this.options.xAxis);
        return;
      case 'openRollout': {
        const read = this.hooks.readRollout;
        if (!read) {
          this.post({ type: 'rollout', request: msg.request, error: 'not available' });
          return;
        }
        read(msg.ref).then(
          (detail) => this.post({ type: 'rollout', request: msg.request, detail }),
          (e: unknown) => this.post({ type: 'rollout', request: msg.request, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      }
      case 'export':
        this.hooks.exportSeries?.(msg.format, msg.series);
        return;
      case 'exportPng':
        this.hooks.exportPng?.(msg.chart, msg.dataUrl);
        return;
      case 'command':
        if (msg.command === 'demo') this.hooks.startDemo?.();
        else this.hooks.connect?.();
        return;
      case 'log':
        this.hooks.log[msg.level](`metrics webview: ${msg.message}`);
        return;
      case 'rendered': {
        const cb = this.probes.get(msg.request);
        this.probes.delete(msg.request);
        cb?.(msg);
        return;
      }
    }
  }

  /** Re-sends the layout and every visible chart (after the store changed wholesale). */
  refresh(): void {
    this.layoutDirty = true;
    this.engine.invalidateAll(true);
    this.schedule();
  }

  /** The webview went away (panel hidden or closed): nothing is posted until it is ready again. */
  detach(): void {
    this.ready = false;
    this.liveDrill.dispose(); // its pane is gone with the webview
    for (const cb of this.probes.values()) cb({ type: 'rendered', request: 0, charts: [], status: '' });
    this.probes.clear();
  }

  /** Asks the webview what it shows. */
  probe(timeoutMs = 5000): Promise<RenderedMessage | undefined> {
    if (!this.ready) return Promise.resolve(undefined);
    const request = this.nextProbe++;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.probes.delete(request);
        resolve(undefined);
      }, timeoutMs);
      this.probes.set(request, (r) => {
        clearTimeout(t);
        resolve(r);
      });
      this.hooks.post({ type: 'probe', request });
    });
  }

  // ---- out -------------------------------------------------------------------------------

  private schedule(): void {
    if (!this.ready || this.timer) return;
    const wait = Math.max(0, this.lastFlush + 1000 / MAX_UPDATES_PER_SECOND - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Posts what changed now (normally called by the ≤ 10 Hz timer). */
  flush(): void {
    if (!this.ready) return;
    this.lastFlush = Date.now();
    const count = this.store.list().length;
    if (this.layoutDirty || count !== this.seriesCount) {
      this.layoutDirty = false;
      this.seriesCount = count;
      const charts = layoutCharts(this.store.list());
      this.engine.setCharts(charts);
      this.post({ type: 'layout', charts, runs: this.runSummaries() });
    }
    const frames = this.engine.collect();
    if (!frames.length && !this.statusDirty) return;
    const msg: HostMessage = { type: 'update', frames };
    if (this.statusDirty) {
      msg.status = this.status;
      this.statusDirty = false;
    }
    this.sent.updates++;
    this.sent.frames += frames.length;
    this.post(msg);
  }

  private post(msg: HostMessage): void {
    this.hooks.post(msg);
    for (const t of this.taps) t(msg);
  }

  private readonly taps = new Set<(m: HostMessage) => void>();
  /** Observes what is posted to the webview (tests, diagnostics); returns the unsubscribe. */
  tap(cb: (m: HostMessage) => void): () => void {
    this.taps.add(cb);
    return () => this.taps.delete(cb);
  }

  runSummaries(): RunSummary[] {
    const runs = new Map<string, RunSummary>();
    for (const s of this.store.list()) {
      let r = runs.get(s.run);
      if (!r) runs.set(s.run, (r = { run: s.run, roles: [], start: this.store.runStart(s.run), points: 0, experiences: this.store.experiences.countFor(s.run) }));
      if (!r.roles.includes(s.role)) r.roles.push(s.role);
      r.points += s.length;
    }
    return [...runs.values()].sort((a, b) => a.run.localeCompare(b.run));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.detach();
  }
}
