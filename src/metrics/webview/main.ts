// The metrics view in the webview (bundled by esbuild into media/metrics.js). It draws what
// the extension host sends and never touches the network (the CSP forbids it): typed
// messages from src/shared/metrics-protocol.ts, a `ready` handshake, frames applied as they
// arrive and drawn once per animation frame, only for charts on screen.
import 'uplot/dist/uPlot.min.css';
import './metrics.css';
import {
  ChartData,
  ChartSpec,
  EndpointStatus,
  HostMessage,
  METRICS_PROTOCOL_VERSION,
  ProbeMessage,
  UiStrings,
  ViewOptions,
  WebviewMessage,
  applyFrame,
} from '../../shared/metrics-protocol';
import { CardHost, ChartCard } from './chart';
import { DrillPane } from './drilldown';
import { Theme, onThemeChange, readTheme } from './theme';
import { Toolbar } from './toolbar';

interface SavedState {
  options?: ViewOptions;
  collapsed?: string[];
}

const vscode = acquireVsCodeApi<SavedState>();
/** Drawing time per animation frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 6;
const post = (m: WebviewMessage) => vscode.postMessage(m);

class MetricsView implements CardHost {
  strings!: UiStrings;
  private opts!: ViewOptions;
  private th: Theme = readTheme();
  private readonly cards = new Map<string, ChartCard>();
  private readonly data = new Map<string, ChartData>();
  private readonly sections = new Map<string, HTMLElement>();
  private specs: ChartSpec[] = [];
  private status: EndpointStatus[] = [];
  private toolbar!: Toolbar;
  private drillPane!: DrillPane;
  private readonly root = document.getElementById('root')!;
  private main!: HTMLElement;
  private statusEl!: HTMLElement;
  private emptyEl!: HTMLElement;
  private observer!: IntersectionObserver;
  private readonly visible = new Set<string>();
  private rafPending = false;
  private viewportTimer: number | undefined;
  private nextRequest = 1;
  private drillRequest = 0;
  private collapsed = new Set<string>(vscode.getState()?.collapsed ?? []);

  options(): ViewOptions {
    return this.opts;
  }
  theme(): Theme {
    return this.th;
  }

  // ---- host → view --------------------------------------------------------------------

  receive(m: HostMessage | ProbeMessage): void {
    switch (m.type) {
      case 'init':
        this.init(m.strings, m.options);
        return;
      case 'options':
        this.setOptions(m.options, false);
        return;
      case 'layout':
        this.layout(m.charts);
        return;
      case 'update':
        for (const f of m.frames) {
          const d = applyFrame(this.data.get(f.chart), f);
          if (!d) continue;
          this.data.set(f.chart, d);
          this.cards.get(f.chart)?.setData(d);
        }
        if (m.status) this.setStatus(m.status);
        this.requestRender();
        return;
      case 'rollouts':
        if (m.request === this.drillRequest) this.drillPane.show(m);
        return;
      case 'rollout':
        this.drillPane.detail(m.detail, m.error);
        return;
      case 'probe':
        post({
          type: 'rendered',
          request: m.request,
          status: this.statusEl?.innerText ?? '',
          charts: [...this.cards.values()].map((c) => ({ id: c.spec.id, visible: c.visible, drawn: c.drawn, buckets: c.buckets, ...c.extent() })),
        });
        return;
    }
  }

  private init(strings: UiStrings, options: ViewOptions): void {
    const first = !this.strings;
    this.strings = strings;
    this.opts = { ...options, ...(vscode.getState()?.options ?? {}) };
    if (!first) return;
    document.title = strings.title;
    this.statusEl = document.createElement('div');
    this.statusEl.className = 'status';
    this.statusEl.setAttribute('role', 'status');
    this.toolbar = new Toolbar(strings, this.opts, (o) => this.setOptions({ ...this.opts, ...o }, true));
    this.emptyEl = document.createElement('div');
    this.emptyEl.className = 'empty-state';
    this.main = document.createElement('main');
    this.drillPane = new DrillPane({
      strings,
      open: (row) => post({ type: 'openRollout', request: this.nextRequest++, ref: row }),
    });
    this.root.replaceChildren(this.statusEl, this.toolbar.el, this.emptyEl, this.main, this.drillPane.el);
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { rootMargin: '300px 0px' });
    new ResizeObserver(() => this.reportViewport()).observe(this.main);
    onThemeChange(() => {
      this.th = readTheme();
      for (const c of this.cards.values()) c.restyle();
      this.requestRender();
    });
    this.renderStatus();
    // Options the webview kept across a reload win over the host's defaults.
    post({ type: 'setOptions', options: this.opts });
  }

  private setOptions(o: ViewOptions, fromUser: boolean): void {
    const before = this.opts;
    this.opts = o;
    vscode.setState({ ...vscode.getState(), options: o });
    this.toolbar.set(o);
    if (fromUser) post({ type: 'setOptions', options: o });
    if (before.logScale !== o.logScale || before.band !== o.band || before.xAxis !== o.xAxis) for (const c of this.cards.values()) c.restyle();
    if (before.filter !== o.filter) this.applyFilter();
    this.requestRender();
  }

  private layout(specs: ChartSpec[]): void {
    this.specs = specs;
    const ids = new Set(specs.map((s) => s.id));
    for (const [id, c] of this.cards) {
      if (ids.has(id)) continue;
      this.observer.unobserve(c.el);
      c.destroyPlot();
      c.el.remove();
      this.cards.delete(id);
      this.data.delete(id);
    }
    for (const spec of specs) {
      const key = spec.pinned ? '' : spec.group;
      const section = this.section(key, spec.pinned ? this.strings.pinned : spec.group || '…');
      let card = this.cards.get(spec.id);
      if (!card) {
        card = new ChartCard(spec, this);
        this.cards.set(spec.id, card);
        const d = this.data.get(spec.id);
        if (d) card.setData(d);
        this.observer.observe(card.el);
      } else card.setSpec(spec);
      const grid = section.querySelector('.grid')!;
      if (card.el.parentElement !== grid) grid.append(card.el);
    }
    // Keep the host's order: pinned first, then sections in Trinity's order.
    const order = [...new Set(specs.map((s) => (s.pinned ? '' : s.group)))];
    this.main.replaceChildren(...order.map((k) => this.sections.get(k)!));
    for (const spec of specs) {
      const grid = this.sections.get(spec.pinned ? '' : spec.group)!.querySelector('.grid')!;
      grid.append(this.cards.get(spec.id)!.el);
    }
    this.applyFilter();
    this.renderStatus();
    this.reportViewport();
  }

  private section(key: string, title: string): HTMLElement {
    let s = this.sections.get(key);
    if (s) return s;
    s = document.createElement('details');
    s.className = key === '' ? 'section pinned' : 'section';
    s.dataset.group = key;
    (s as HTMLDetailsElement).open = !this.collapsed.has(key);
    const sum = document.createElement('summary');
    sum.textContent = title;
    const grid = document.createElement('div');
    grid.className = 'grid';
    s.append(sum, grid);
    s.addEventListener('toggle', () => {
      if ((s as HTMLDetailsElement).open) this.collapsed.delete(key);
      else this.collapsed.add(key);
      vscode.setState({ ...vscode.getState(), collapsed: [...this.collapsed] });
      this.reportViewport();
    });
    this.sections.set(key, s);
    return s;
  }

  private applyFilter(): void {
    let re: RegExp | undefined;
    let bad = false;
    try {
      re = this.opts.filter ? new RegExp(this.opts.filter, 'i') : undefined;
    } catch {
      bad = true;
    }
    this.toolbar.invalidFilter(bad);
    for (const c of this.cards.values()) c.el.hidden = !!re && !re.test(c.spec.tag);
    for (const [, s] of this.sections) s.hidden = ![...s.querySelectorAll('.card')].some((c) => !(c as HTMLElement).hidden);
    this.reportViewport();
  }

  private setStatus(st: EndpointStatus[]): void {
    this.status = st;
    this.renderStatus();
  }

  private renderStatus(): void {
    if (!this.statusEl) return;
    const s = this.strings;
    const word: Record<EndpointStatus['state'], string> = {
      connecting: s.stateConnecting,
      backfilling: s.stateBackfilling,
      live: s.stateLive,
      stale: s.stateStale,
      error: s.stateError,
      stopped: s.stateStopped,
    };
    const chips = this.status.map((e) => {
      const chip = document.createElement('span');
      chip.className = `chip state-${e.state}`;
      chip.dataset.endpoint = e.id;
      chip.dataset.state = e.state;
      chip.title = `${e.target}${e.detail ? `\n${e.detail}` : ''}`;
      chip.textContent = `${e.name}: ${word[e.state]}${e.detail && e.state !== 'live' ? ` — ${e.detail}` : ''}`;
      return chip;
    });
    this.statusEl.replaceChildren(...chips);
    const nothing = this.specs.length === 0;
    this.emptyEl.hidden = !nothing;
    if (nothing) {
      const p = document.createElement('p');
      p.textContent = this.status.length ? s.noData : s.noEndpoints;
      const b = document.createElement('button');
      b.textContent = s.connect;
      b.addEventListener('click', () => post({ type: 'command', command: 'connect' }));
      // Nothing to connect to yet? The demo run shows what the view does, one click away.
      const demo = document.createElement('button');
      demo.className = 'demo';
      demo.textContent = s.startDemo;
      demo.addEventListener('click', () => post({ type: 'command', command: 'demo' }));
      this.emptyEl.replaceChildren(p, b, demo);
    }
  }

  // ---- view → host --------------------------------------------------------------------

  zoom(chart: string, range: [number, number] | null): void {
    post({ type: 'zoom', chart, range });
  }

  drill(chart: string, series: ChartSpec['series'][number], x: [number, number]): void {
    this.drillRequest = this.nextRequest++;
    this.drillPane.loading(series.run);
    post({ type: 'drill', request: this.drillRequest, chart, run: series.run, role: series.role, x });
  }

  exportData(chart: string, format: 'csv' | 'json'): void {
    const spec = this.cards.get(chart)?.spec;
    if (spec) post({ type: 'export', format, series: spec.series.map((s) => s.key) });
  }

  exportPng(chart: string, dataUrl: string): void {
    post({ type: 'exportPng', chart, dataUrl });
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) {
      const id = (e.target as HTMLElement).dataset.chart!;
      if (e.isIntersecting) this.visible.add(id);
      else this.visible.delete(id);
    }
    this.reportViewport();
  }

  /** Tells the host plot widths and which charts are on screen (debounced). */
  private reportViewport(): void {
    if (this.viewportTimer !== undefined) return;
    this.viewportTimer = window.setTimeout(() => {
      this.viewportTimer = undefined;
      const charts: { id: string; width: number }[] = [];
      const visible: string[] = [];
      for (const [id, c] of this.cards) {
        const shown = this.visible.has(id) && !c.el.hidden && !!c.el.closest('details[open]');
        if (shown && !c.visible) c.dirty = true;
        c.visible = shown;
        charts.push({ id, width: c.plotWidth() });
        if (shown) visible.push(id);
      }
      post({ type: 'viewport', charts, visible });
      this.requestRender();
    }, 60);
  }

  /**
   * Draws dirty charts in animation frames, at most FRAME_BUDGET_MS of drawing per frame
   * (round robin): 20 charts patched at 10 Hz are spread over the frames between updates
   * instead of stalling one frame.
   */
  private requestRender(): void {
    if (this.rafPending) return;
    this.rafPending = true;
    requestAnimationFrame(() => {
      this.rafPending = false;
      const cards = [...this.cards.values()];
      const t0 = performance.now();
      let more = false;
      for (let i = 0; i < cards.length; i++) {
        const c = cards[(this.renderCursor + i) % cards.length];
        if (!c.dirty || !c.visible) continue;
        if (performance.now() - t0 > FRAME_BUDGET_MS) {
          this.renderCursor = (this.renderCursor + i) % cards.length;
          more = true;
          break;
        }
        try {
          c.render();
        } catch (e) {
          post({ type: 'log', level: 'error', message: `chart ${c.spec.id}: ${(e as Error).message}` });
        }
      }
      if (more) this.requestRender();
    });
  }
  private renderCursor = 0;
}

const view = new MetricsView();
window.addEventListener('message', (e: MessageEvent) => view.receive(e.data as HostMessage | ProbeMessage));
window.addEventListener('error', (e) => post({ type: 'log', level: 'error', message: `${e.message} (${e.filename}:${e.lineno})` }));
post({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
