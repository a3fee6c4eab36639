// The extension side of the metrics view, without vscode: the store sink of the relay
// connections (points, experiences and envelopes into the store), the answers to the
// webview's messages, and the update feed (update-feed.ts) that posts batched updates (layout
// when charts appear, frames of the visible charts, endpoint status) paced by the page's
// `drawn` acks. What the webview asks of the extension beyond that (persist options, export,
// connect) are ViewEvents. The vscode adapter (panel.ts) only moves messages; the bench drives
// this class directly against the real webview bundle in Chromium.
import { EventEmitter } from 'node:events';
import type { ExperiencesMessage } from '../../relay-protocol/messages';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import { PendingRequests } from '../../base/pending-requests';
import { type L10n, english } from '../../base/l10n';
import { EnvelopeView, ReadDetail } from './envelope-view';
import type { PointsBatch } from '../../relay-protocol/client';
import type { Logger } from '../../base/log';
import { ExperienceViewDetail, ExperienceRef } from '../protocol/experience-rows';
import { RunSummary } from '../protocol/frames';
import { UiStrings } from '../protocol/ui-strings';
import { DEFAULT_VIEW_OPTIONS, ViewOptions, optionsAffect, sanitizeOptions } from '../protocol/view-options';
import {
  EndpointStatus,
  HostMessage,
  METRICS_PROTOCOL_VERSION,
  ProbeMessage,
  RenderedMessage,
  WebviewMessage,
  parseWebviewMessage,
} from '../protocol/view-protocol';
import type { MetricsStore } from '../store/store';
import { Point, PointColumns, columnsOf, seriesKey } from '../store/series';
import { ChartEngine } from './chart-engine';
import { drillDown } from './drill';
import { LiveDrill } from './live-drill';
import { RunMarks, runsForCommit } from './run-marks';
import { runSummaries } from './run-summaries';
import { UpdateFeed } from './update-feed';
import type { ExperienceTokenView } from '../tokens/experience-tokens';
import type { RescoreResult } from '../protocol/rescore';
import { tokenViewStrings } from '../../tokens/view-strings';
import { drillHealth } from './drill-health';
import { HEALTH_ROLE, HealthSeries } from './health-series';
import { PipelineFeed, type PipelinePort, pipelineStrings } from './pipeline-feed';
import { TasksFeed, type TasksPort, evalsFromStore } from './tasks-feed';

/** What the view controller needs from its owner: the webview, and the relay reads behind a zoom and a rollout. */
interface ViewPort {
  post(msg: HostMessage | ProbeMessage): void;
  /** Exact points of an envelope-first source for a zoom (connections → relay `detail`); without it a zoom shows the envelope. */
  readDetail?: ReadDetail;
  /** One rollout's messages (connections → relay `experience`); without it the view says "not available". */
  readExperience?(ref: ExperienceRef): Promise<ExperienceViewDetail>;
  /** One rollout's tokens (connections → relay `tokens`, texts from the run's tokenizer). */
  readTokens?(ref: ExperienceRef): Promise<ExperienceTokenView>;
  /** The Pipeline view's config links and Ray timeline reads. */
  pipeline?: PipelinePort;
  /** The current reward over a range of steps' experiences (undefined: the user cancelled). */
  rescore?(endpoint: string, steps: [number, number], ask: boolean): Promise<RescoreResult | undefined>;
  /** The relays' tasks tables (connections → relay `tasks`); without it the Tasks view stays empty. */
  tasks?: TasksPort;
}

/** What the webview asks of the extension that the controller does not do itself, and new data. */
interface ViewEvents {
  /** The options changed (to persist). */
  options: [options: ViewOptions];
  exportSeries: [format: 'csv' | 'json', keys: string[]];
  exportPng: [chart: string, dataUrl: string];
  /** A button of the empty view: connect to a training run, or start the demo. */
  command: [command: 'connect' | 'demo'];
  /** "Debug This Rollout" on an experience. */
  debugRollout: [ref: ExperienceRef];
  /** Data went into the store (the status bar follows it). */
  data: [];
}

/** The answer to a probe of a webview that went away meanwhile: nothing on screen. */
const NOTHING_SHOWN: RenderedMessage = { type: 'rendered', request: 0, charts: [], status: '' };

export class ViewController extends EventEmitter<ViewEvents> {
  readonly engine: ChartEngine;
  private options: ViewOptions;
  private readonly feed: UpdateFeed;
  /** Events marked on runs (online-training commits). */
  readonly marks = new RunMarks();
  private readonly probes = new PendingRequests<RenderedMessage | undefined>();
  private readonly liveDrill: LiveDrill;
  private readonly envelopes: EnvelopeView; // envelope-first sources: envelopes in, detail reads out
  /** The Pipeline view: the run's timings from the same scalars, the verdict worded. */
  readonly pipeline: PipelineFeed;
  /** The Tasks view's tables (its "Debug This Rollout" is an event of it). */
  readonly tasks: TasksFeed | undefined;

  constructor(
    readonly store: MetricsStore,
    private readonly port: ViewPort,
    private readonly log: Logger,
    private readonly strings: UiStrings,
    options?: Partial<ViewOptions>,
    /** The extension's l10n (plain English in tests and the bench): group flags, the token view's words. */
    private readonly l10n: L10n = english,
  ) {
    super();
    this.options = { ...DEFAULT_VIEW_OPTIONS, ...sanitizeOptions(options) };
    this.engine = new ChartEngine(
      store,
      () => this.options,
      (need) => this.envelopes.need(need),
    );
    this.feed = new UpdateFeed(store, this.engine, (m) => port.post(m), this.marks);
    this.pipeline = new PipelineFeed((m) => this.feed.post(m), this.l10n, port.pipeline);
    this.envelopes = new EnvelopeView(store, port.readDetail, log, (key, layout) => this.seriesChanged(key, layout));
    this.liveDrill = new LiveDrill(
      (m, mode) => {
        const d = drillDown(this.store, m.run, m.role, m.chart, m.x, mode);
        const health = drillHealth(d.rowList, this.l10n);
        return { run: d.run, x: d.x, xAxis: d.xAxis, modelVersions: d.modelVersions, rows: d.rows, ...(health ? { health } : {}) };
      },
      (m) => this.feed.post(m),
    );
    this.tasks = port.tasks ? new TasksFeed({ evals: (run) => evalsFromStore(store, run), ...port.tasks }, (m) => this.feed.post(m)) : undefined;
    const health = new HealthSeries(store.experiences);
    store.experiences.onChange = (run, versions) => {
      this.liveDrill.changed(run, versions);
      for (const s of health.changed(run, versions)) this.addColumns(run, HEALTH_ROLE, s.tag, s.points);
    };
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
    this.emit('data');
  }

  /** A tag's envelope from a relay: its series appears, drawn from the envelope. */
  ingestEnvelope(endpoint: string, m: EnvelopeBatch): void {
    this.envelopes.ingest(endpoint, m);
    this.pipeline.addEnvelope(m.run, m);
  }

  /** Series `key` changed wholesale (`layout`: it may be new): its chart is rebuilt and posted. */
  private seriesChanged(key: string, layout: boolean): void {
    if (layout) this.feed.layoutChanged();
    this.engine.seriesChanged(key);
    this.feed.schedule();
    this.emit('data');
  }

  /** Adds points of one series given as objects (the bench's and tests' entry point). */
  addPoints(run: string, role: string, tag: string, points: Point[]): void {
    this.addColumns(run, role, tag, columnsOf(points));
  }

  /** Adds points of one series as columns. */
  addColumns(run: string, role: string, tag: string, points: PointColumns): void {
    const isNew = this.store.get(seriesKey(run, role, tag)) === undefined;
    const ch = this.store.addColumns(run, role, tag, points);
    this.pipeline.add(run, role, tag, points);
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
    else this.log.warn(`metrics view: ignored a malformed message from the webview`);
  }

  private handle(msg: WebviewMessage): void {
    switch (msg.type) {
      case 'ready':
        if (msg.protocol !== METRICS_PROTOCOL_VERSION) this.log.warn(`metrics view: webview speaks protocol ${msg.protocol}`);
        this.feed.start();
        this.engine.invalidateAll(false);
        this.feed.post({
          type: 'init',
          protocol: METRICS_PROTOCOL_VERSION,
          strings: this.strings,
          tokenStrings: tokenViewStrings(this.l10n),
          options: this.viewOptions,
        });
        this.feed.post({ type: 'pipelineStrings', strings: pipelineStrings(this.l10n) });
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
      case 'openTokens':
        this.openTokens(msg.request, msg.ref);
        return;
      case 'debugRollout':
        this.emit('debugRollout', msg.ref);
        return;
      case 'rescore':
        this.rescore(msg.request, msg.endpoint, msg.steps, msg.ask);
        return;
      case 'export':
        this.emit('exportSeries', msg.format, msg.series);
        return;
      case 'exportPng':
        this.emit('exportPng', msg.chart, msg.dataUrl);
        return;
      case 'command':
        this.emit('command', msg.command === 'demo' ? 'demo' : 'connect');
        return;
      case 'log':
        this.log[msg.level](`metrics webview: ${msg.message}`);
        return;
      case 'rendered':
        this.probes.settle(msg.request, msg);
        return;
      case 'pipelineView':
      case 'openConfigKey':
      case 'timelineRequest':
        this.pipeline.receive(msg);
        return;
      case 'watchTasks':
        this.tasks?.receive(msg);
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
    this.emit('options', this.viewOptions);
  }

  private openRollout(request: number, ref: ExperienceRef): void {
    if (!this.port.readExperience) {
      this.feed.post({ type: 'rollout', request, error: 'not available' });
      return;
    }
    this.port.readExperience(ref).then(
      (detail) => this.feed.post({ type: 'rollout', request, detail }),
      (e: unknown) => this.feed.post({ type: 'rollout', request, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  private openTokens(request: number, ref: ExperienceRef): void {
    if (!this.port.readTokens) {
      this.feed.post({ type: 'tokens', request, ref, error: 'not available' });
      return;
    }
    this.port.readTokens(ref).then(
      (t) => this.feed.post({ type: 'tokens', request, ref, experience: t.experience, notes: t.notes, ...(t.marks ? { marks: t.marks } : {}) }),
      (e: unknown) => this.feed.post({ type: 'tokens', request, ref, error: e instanceof Error ? e.message : String(e) }),
    );
  }

  private rescore(request: number, endpoint: string, steps: [number, number], ask: boolean): void {
    if (!this.port.rescore) {
      this.feed.post({ type: 'rescored', request, error: 'not available' });
      return;
    }
    this.port.rescore(endpoint, steps, ask).then(
      (result) => this.feed.post({ type: 'rescored', request, ...(result ? { result } : {}) }),
      (e: unknown) => this.feed.post({ type: 'rescored', request, error: e instanceof Error ? e.message : String(e) }),
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
    this.pipeline.receive({ type: 'pipelineView', visible: false });
    this.tasks?.stop();
    this.feed.stop();
    this.probes.settleAll(NOTHING_SHOWN);
  }

  /** Asks the webview what it shows. */
  probe(timeoutMs = 5000): Promise<RenderedMessage | undefined> {
    if (!this.feed.isReady) return Promise.resolve(undefined);
    return this.probes.ask((request) => this.port.post({ type: 'probe', request }), timeoutMs, undefined);
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
    this.pipeline.dispose();
    this.detach();
  }
}
