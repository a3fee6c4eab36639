// The metrics view in the webview (bundled by esbuild into media/metrics.js). It draws what
// the extension sends and never touches the network (the CSP forbids it): typed
// messages from src/metrics/protocol/view-protocol.ts, a `ready` handshake, frames applied as they
// arrive and drawn in the next animation frame, only for charts on screen. This module handles
// the messages both ways, and answers each `update` with `drawn` once its charts are drawn
// (render-loop.ts), which paces the extension's updates; the page's parts live in board.ts
// (charts), status-line.ts, toolbar.ts and drilldown.ts.
import 'uplot/dist/uPlot.min.css';
import './metrics.css';
import { RunMark, RunSummary, SeriesInfo } from '../protocol/frames';
import { UiStrings } from '../protocol/ui-strings';
import { ViewOptions, optionsAffect } from '../protocol/view-options';
import { EndpointStatus, HostMessage, METRICS_PROTOCOL_VERSION, ProbeMessage } from '../protocol/view-protocol';
import type { TokenViewStrings } from '../../tokens/view-strings';
import { BoardEvent, ChartBoard } from './board';
import { DrillPane } from './drilldown';
import { RenderLoop } from './render-loop';
import { StatusLine } from './status-line';
import { Theme, onThemeChange, readTheme } from './theme';
import { Toolbar } from './toolbar';
import { TasksPane } from './tasks-view';
import { post, saveState, savedState } from './webview-api';
import { ViewSwitch } from './view-switch';
import { PipelinePane, type PipelineEvent } from './pipeline-pane';
import type { PipelineStrings } from '../protocol/pipeline-protocol';

/** The page's parts, built when the extension's `init` brings the strings. */
interface Parts {
  board: ChartBoard;
  toolbar: Toolbar;
  statusLine: StatusLine;
  drillPane: DrillPane;
  /** The views side by side: Charts, Pipeline, … (view-switch.ts). */
  views: ViewSwitch;
  tasksPane: TasksPane;
}

class MetricsView {
  strings!: UiStrings;
  private opts!: ViewOptions;
  private th: Theme = readTheme();
  private parts!: Parts;
  private status: EndpointStatus[] = [];
  private runMarks = new Map<string, { marks: RunMark[]; start: number }>();
  private marksSig = '[]';
  private readonly root = document.getElementById('root')!;
  private readonly renderLoop = new RenderLoop(
    () => this.parts?.board.allCards() ?? [],
    (c, e) => post({ type: 'log', level: 'error', message: `chart ${c.spec.id}: ${e.message}` }),
    (seq) => post({ type: 'drawn', seq }),
  );
  private nextRequest = 1;
  private drillRequest = 0;
  private tokensRequest = 0;
  private pipeline: PipelinePane | undefined;
  private timelineRequest = 0;
  private rescoreRequest = 0;

  options(): ViewOptions {
    return this.opts;
  }
  theme(): Theme {
    return this.th;
  }

  // ---- extension → view ----------------------------------------------------------------

  receive(m: HostMessage | ProbeMessage): void {
    switch (m.type) {
      case 'init':
        this.init(m.strings, m.tokenStrings, m.options);
        return;
      case 'options':
        this.setOptions(m.options, false);
        return;
      case 'layout':
        this.parts.board.layout(m.charts);
        this.setMarks(m.runs);
        this.parts.board.applyFilter(this.opts.filter);
        this.renderStatus();
        this.parts.board.reportViewport();
        return;
      case 'update':
        for (const f of m.frames) this.parts?.board.applyFrame(f);
        if (m.status) {
          this.status = m.status;
          this.renderStatus();
        }
        // Its charts are drawn first, next frame; then `drawn` lets the extension post the next update.
        this.renderLoop.update(
          m.seq,
          m.frames.map((f) => this.parts?.board.card(f.chart)),
        );
        return;
      case 'rollouts':
        if (m.request === this.drillRequest) this.parts.drillPane.show(m);
        return;
      case 'rollout':
        if (this.parts.tasksPane.owns(m.request)) this.parts.tasksPane.detail(m.request, m.detail, m.error);
        else this.parts.drillPane.detail(m.detail, m.error);
        return;
      case 'tokens':
        if (m.request === this.tokensRequest) this.parts.drillPane.tokens(m);
        else if (this.parts.tasksPane.owns(m.request)) this.parts.tasksPane.tokens(m);
        return;
      case 'tasksTable':
        this.parts?.tasksPane.show(m);
        return;
      case 'pipelineStrings':
        this.addPipeline(m.strings);
        return;
      case 'pipeline':
        this.pipeline?.show(m.data);
        return;
      case 'timeline':
        if (m.request === this.timelineRequest) this.pipeline?.timeline(m);
        return;
      case 'rescored':
        if (m.request === this.rescoreRequest) this.parts.drillPane.rescored(m);
        return;
      case 'probe':
        post({
          type: 'rendered',
          request: m.request,
          status: this.parts?.statusLine.el.innerText ?? '',
          charts: (this.parts?.board.allCards() ?? []).map((c) => ({ id: c.spec.id, visible: c.visible, drawn: c.drawn, buckets: c.buckets, ...c.extent() })),
        });
        return;
    }
  }

  /** Marked events per run (online-training commits); charts redraw when they change. */
  private setMarks(runs: RunSummary[]): void {
    const next = new Map(runs.filter((r) => r.marks?.length).map((r) => [r.run, { marks: r.marks!, start: r.start }]));
    const sig = JSON.stringify([...next]);
    if (sig === this.marksSig) return;
    this.marksSig = sig;
    this.runMarks = next;
    this.parts.board.restyle();
    this.requestRender();
  }

  private init(strings: UiStrings, tokenStrings: TokenViewStrings, options: ViewOptions): void {
    const first = !this.strings;
    this.strings = strings;
    this.opts = { ...options, ...(savedState()?.options ?? {}) };
    if (!first) return;
    document.title = strings.title;
    const toolbar = new Toolbar(strings, this.opts, (o) => this.setOptions({ ...this.opts, ...o }, true));
    const current = (): UiStrings => this.strings;
    const board = new ChartBoard(
      {
        // Read when used: a later `init` may bring other strings.
        get strings() {
          return current();
        },
        options: () => this.opts,
        theme: () => this.th,
        marks: {
          marks: (runs) => runs.flatMap((r) => (this.runMarks.get(r)?.marks ?? []).map((mark) => ({ mark, start: this.runMarks.get(r)!.start }))),
          get label() {
            return current().commitMark;
          },
          color: () => this.th.muted,
        },
      },
      (e) => this.boardEvent(e, toolbar),
    );
    const statusLine = new StatusLine(
      () => this.strings,
      (command) => post({ type: 'command', command }),
    );
    const drillPane = new DrillPane(
      strings,
      (row) => post({ type: 'openRollout', request: this.nextRequest++, ref: row }),
      tokenStrings,
      (ref) => {
        this.tokensRequest = this.nextRequest++;
        post({ type: 'openTokens', request: this.tokensRequest, ref });
      },
      (a) => {
        if (a.type === 'debug') return post({ type: 'debugRollout', ref: a.ref });
        this.rescoreRequest = this.nextRequest++;
        post({ type: 'rescore', request: this.rescoreRequest, endpoint: a.endpoint, steps: a.steps, ask: a.ask });
      },
    );
    const tasksPane = new TasksPane(tokenStrings, {
      openRollout: (ref) => {
        const request = this.nextRequest++;
        post({ type: 'openRollout', request, ref });
        return request;
      },
      openTokens: (ref) => {
        const request = this.nextRequest++;
        post({ type: 'openTokens', request, ref });
        return request;
      },
      debug: (ref) => post({ type: 'debugRollout', ref }),
    });
    // The views beside each other (view-switch.ts): the Pipeline view joins when its strings come.
    const views = new ViewSwitch((id) => saveState({ view: id }));
    views.add({ id: 'charts', label: strings.viewCharts, els: [toolbar.el, board.el, drillPane.el], shown: (on) => on && this.requestRender() });
    views.add({ id: 'tasks', label: strings.viewTasks, els: [tasksPane.el], shown: (on) => post({ type: 'watchTasks', on }) });
    this.parts = { board, toolbar, statusLine, drillPane, views, tasksPane };
    this.root.replaceChildren(views.el, statusLine.el, toolbar.el, statusLine.emptyEl, board.el, drillPane.el, tasksPane.el);
    if (savedState()?.view === 'tasks') views.select('tasks');
    onThemeChange(() => {
      this.th = readTheme();
      board.restyle();
      this.requestRender();
    });
    this.renderStatus();
    // Options the webview kept across a reload win over the extension's defaults.
    post({ type: 'setOptions', options: this.opts });
  }

  /** The Pipeline view joins the switch once its words arrive. */
  private addPipeline(strings: PipelineStrings): void {
    const views = this.parts?.views;
    if (!views || this.pipeline) return;
    views.label('charts', strings.viewCharts);
    const pane = new PipelinePane(strings, (e) => this.pipelineEvent(e));
    this.pipeline = pane;
    this.root.append(pane.el);
    views.add({
      id: 'pipeline',
      label: strings.viewPipeline,
      els: [pane.el],
      shown: (on) => {
        post({ type: 'pipelineView', visible: on });
        if (on) requestAnimationFrame(() => pane.redraw());
      },
    });
    if (savedState()?.view === 'pipeline') views.select('pipeline');
  }

  private pipelineEvent(e: PipelineEvent): void {
    switch (e.type) {
      case 'window':
        return post({ type: 'pipelineView', visible: true, run: e.run, from: e.from, to: e.to });
      case 'openKey':
        return post({ type: 'openConfigKey', run: e.run, key: e.key, ...(e.value !== undefined ? { value: e.value } : {}) });
      case 'showCharts': {
        // the charts behind a number: only its tags
        const esc = e.tags.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
        this.parts.views.select('charts');
        return this.setOptions({ ...this.opts, filter: `^(${esc.join('|')})$` }, true);
      }
      case 'timeline':
        this.timelineRequest = this.nextRequest++;
        return post({ type: 'timelineRequest', request: this.timelineRequest, run: e.run, from: e.from, to: e.to });
    }
  }

  private setOptions(o: ViewOptions, fromUser: boolean): void {
    const before = this.opts;
    this.opts = o;
    saveState({ options: o });
    this.parts.toolbar.set(o);
    if (fromUser) post({ type: 'setOptions', options: o });
    if (optionsAffect(before, o, 'plot')) this.parts.board.restyle();
    if (optionsAffect(before, o, 'filter')) this.parts.board.applyFilter(o.filter);
    this.requestRender();
  }

  private renderStatus(): void {
    this.parts?.statusLine.render(this.status, this.parts.board.size > 0);
  }

  // ---- view → extension ----------------------------------------------------------------

  private boardEvent(e: BoardEvent, toolbar: Toolbar): void {
    switch (e.type) {
      case 'zoom':
        return post({ type: 'zoom', chart: e.chart, range: e.range });
      case 'drill':
        return this.drill(e.chart, e.series, e.x);
      case 'export':
        return this.exportData(e.chart, e.format);
      case 'exportPng':
        return post({ type: 'exportPng', chart: e.chart, dataUrl: e.dataUrl });
      case 'viewport':
        return post({ type: 'viewport', charts: e.charts, visible: e.visible });
      case 'invalidFilter':
        return toolbar.invalidFilter(e.bad);
      case 'render':
        return this.requestRender();
    }
  }

  private drill(chart: string, series: SeriesInfo, x: [number, number]): void {
    this.drillRequest = this.nextRequest++;
    this.parts.drillPane.loading(series.run);
    post({ type: 'drill', request: this.drillRequest, chart, run: series.run, role: series.role, x });
  }

  private exportData(chart: string, format: 'csv' | 'json'): void {
    const spec = this.parts.board.card(chart)?.spec;
    if (spec) post({ type: 'export', format, series: spec.series.map((s) => s.key) });
  }

  private requestRender(): void {
    this.renderLoop.request();
  }
}

const view = new MetricsView();
window.addEventListener('message', (e: MessageEvent) => view.receive(e.data as HostMessage | ProbeMessage));
window.addEventListener('error', (e) => post({ type: 'log', level: 'error', message: `${e.message} (${e.filename}:${e.lineno})` }));
post({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
