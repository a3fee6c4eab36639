// The host side of the metrics view, without vscode: takes relay batches into the store,
// answers the webview's messages, and has the update feed (update-feed.ts) post batched
// updates (layout when charts appear, frames of the visible charts, endpoint status) paced
// by the page's `drawn` acks. The vscode adapter (panel.ts) only moves
// messages; the bench drives this class directly against the real webview bundle in Chromium.
import type { ExperiencesMessage } from '../../relay-protocol/messages';
import { EnvelopeView, ReadDetail } from './envelope-view';
import type { PointsBatch } from '../../relay-protocol/client';
import type { Logger } from '../../base/log';
import {
  DEFAULT_VIEW_OPTIONS,
  EndpointStatus,
  HostMessage,
  METRICS_PROTOCOL_VERSION,
  ProbeMessage,
  RenderedMessage,
  RolloutDetail,
  RolloutRef,
  RunSummary,
  UiStrings,
  ViewOptions,
  WebviewMessage,
  optionsAffect,
  parseWebviewMessage,
  sanitizeOptions,
} from '../protocol/view-protocol';
import type { MetricsStore } from '../store/store';
import { Point, PointColumns, columnsOf, seriesKey } from '../store/series';
import { ChartEngine } from './chart-engine';
import { drillDown } from './drill';
import { LiveDrill } from './live-drill';
import { ProbeRequests } from './probe-requests';
import { RunMarks, runsForCommit } from './run-marks';
import { runSummaries } from './run-summaries';
import { UpdateFeed } from './update-feed';

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
  /** Reads exact points of an envelope-first source for a zoom (connections → relay `detail`). */
  readDetail?: ReadDetail;
}

export class ViewController {
  readonly engine: ChartEngine;
  private options: ViewOptions;
  private readonly feed: UpdateFeed;
  /** Events marked on runs (online-training commits). */
  readonly marks = new RunMarks();
  private readonly probes = new ProbeRequests();
  private readonly liveDrill: LiveDrill;
  readonly envelopes: EnvelopeView; // envelope-first sources: envelopes in, detail reads out

  constructor(
    readonly store: MetricsStore,
    private readonly hooks: ViewHooks,
    options?: Partial<ViewOptions>,
  ) {
    this.options = { ...DEFAULT_VIEW_OPTIONS, ...sanitizeOptions(options) };
    this.engine = new ChartEngine(store, () => this.options, (need) => this.envelopes.need(need));
    this.feed = new UpdateFeed(store, this.engine, (m) => hooks.post(m), this.marks);
    this.envelopes = new EnvelopeView(store, hooks, this.engine, this.feed);
    this.liveDrill = new LiveDrill(
      (m, mode) => drillDown(this.store, m.run, m.role, m.chart, m.x, mode),
      (m) => this.feed.post(m),
    );
    store.experiences.onChange = (run, versions) => this.liveDrill.changed(run, versions);
  }

  get viewOptions(): ViewOptions {
    return { ...this.options };
  }

  /** Messages posted (tests and the bench read it). */
  get sent(): { updates: number; frames: number; bytes: number } {
    return this.feed.sent;
  }

  // ---- data in ---------------------------------------------------------------------------

  /** A relay batch: each tag's columns into the store as they are, the cursor saved with them. */
  ingest(endpoint: string, b: PointsBatch): void {
    for (const s of b.series) if (s.step.length) this.addColumns(b.run, b.role, s.tag, s);
    this.store.setCursor(endpoint, b.cursor);
    this.hooks.onData?.();
  }

  /** Adds points of one series given as objects (the bench's and tests' entry point). */
  addPoints(run: string, role: string, tag: string, points: Point[]): void {
    this.addColumns(run, role, tag, columnsOf(points));
  }

  /** Adds points of one series as columns. */
  addColumns(run: string, role: string, tag: string, points: PointColumns): void {
    const isNew = this.store.get(seriesKey(run, role, tag)) === undefined;
    const ch = this.store.addColumns(run, role, tag, points);
    if (isNew) this.feed.layoutChanged();
    else this.engine.onChange(ch);
    this.feed.schedule();
  }

  ingestExperiences(endpoint: string, m: ExperiencesMessage): void {
    this.store.addExperiences(endpoint, m.source, m.run, m.rows);
    this.store.setCursor(endpoint, m.cursor);
    this.feed.layoutChanged(); // run summaries count experiences
    this.feed.schedule();
  }

  setStatus(status: EndpointStatus[]): void {
    this.feed.setStatus(status);
    this.feed.schedule();
  }

  // ---- webview in ------------------------------------------------------------------------

  /** A message from the webview (validated here). */
  receive(raw: unknown): void {
    const msg = parseWebviewMessage(raw);
    if (msg) this.handle(msg);
    else this.hooks.log.warn(`metrics view: ignored a malformed message from the webview`);
  }

  private handle(msg: WebviewMessage): void {
    switch (msg.type) {
      case 'ready':
        if (msg.protocol !== METRICS_PROTOCOL_VERSION) this.hooks.log.warn(`metrics view: webview speaks protocol ${msg.protocol}`);
        this.feed.start();
        this.engine.invalidateAll(false);
        this.feed.post({ type: 'init', protocol: METRICS_PROTOCOL_VERSION, strings: this.hooks.strings, options: this.viewOptions });
        this.feed.flush();
        return;
      case 'drawn':
        this.feed.drawn(msg.seq);
        return;
      case 'viewport':
        this.engine.setViewport(msg.charts, msg.visible);
        this.feed.schedule();
        return;
      case 'setOptions':
        this.setOptions(msg.options);
        return;
      case 'zoom':
        this.engine.setZoom(msg.chart, msg.range);
        this.feed.schedule();
        return;
      case 'drill':
        this.liveDrill.drill(msg, this.options.xAxis);
        return;
      case 'openRollout':
        this.openRollout(msg.request, msg.ref);
        return;
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
      case 'rendered':
        this.probes.answer(msg);
        return;
    }
  }

  private setOptions(o: Partial<ViewOptions>): void {
    const before = this.options;
    this.options = { ...before, ...o };
    if (optionsAffect(before, this.options, 'frames')) {
      this.engine.invalidateAll(optionsAffect(before, this.options, 'zoom'));
      this.feed.schedule();
    }
    this.hooks.saveOptions?.(this.viewOptions);
  }

  private openRollout(request: number, ref: RolloutRef): void {
    const read = this.hooks.readRollout;
    if (!read) {
      this.feed.post({ type: 'rollout', request, error: 'not available' });
      return;
    }
    read(ref).then(
      (detail) => this.feed.post({ type: 'rollout', request, detail }),
      (e: unknown) => this.feed.post({ type: 'rollout', request, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  /** Re-sends the layout and every visible chart (after the store changed wholesale). */
  refresh(): void {
    this.feed.layoutChanged();
    this.engine.invalidateAll(true);
    this.feed.schedule();
  }

  /** The webview went away (panel hidden or closed): nothing is posted until it is ready again. */
  detach(): void {
    this.liveDrill.dispose(); // its pane is gone with the webview
    this.feed.stop();
    this.probes.cancelAll();
  }

  /** Asks the webview what it shows. */
  probe(timeoutMs = 5000): Promise<RenderedMessage | undefined> {
    if (!this.feed.isReady) return Promise.resolve(undefined);
    return this.probes.ask((m) => this.hooks.post(m), timeoutMs);
  }

  // ---- out -------------------------------------------------------------------------------

  /** Posts what changed now (normally the feed's paced timer does). */
  flush(): void {
    this.feed.flush();
  }

  /** Observes what is posted to the webview (tests, diagnostics); returns the unsubscribe. */
  tap(cb: (m: HostMessage) => void): () => void {
    return this.feed.tap(cb);
  }

  runSummaries(): RunSummary[] {
    return runSummaries(this.store, this.marks);
  }

  /** An online-training commit: marked on the serve-mode run it belongs to; returns those runs. */
  markCommit(step: number, wallTime: number): string[] {
    const runs = runsForCommit(this.store.list());
    let added = false;
    for (const run of runs) added = this.marks.add(run, { kind: 'commit', step, wallTime }) || added;
    if (added) this.feed.layoutChanged();
    return runs;
  }

  dispose(): void {
    this.feed.dispose();
    this.detach();
  }
}
