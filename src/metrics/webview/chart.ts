// One chart card: a uPlot chart of one tag with every run overlaid. Per series three uPlot
// series: the line (mean or smoothed), and the bucket max and min drawn faintly with the
// band between them filled (the envelope: spikes stay visible at any zoom). The card owns
// the DOM and the uPlot instance; the data (plot-data.ts), the look (plot-options.ts), the
// legends (chart-legend.ts), the pointer (chart-pointer.ts) and the PNG (chart-png.ts) live
// beside it.
import uPlot from 'uplot';
import type { ChartData, ChartSpec, SeriesInfo } from '../protocol/frames';
import type { UiStrings } from '../protocol/ui-strings';
import type { ViewOptions } from '../protocol/view-options';
import { ChartLegend } from './chart-legend';
import { chartPng } from './chart-png';
import { PointerAt, PointerEvents, attachPointer, pointerHooks } from './chart-pointer';
import { EMPTY_PLOT_DATA, PlotData, alignData, envelopeExtent, nearestSeries } from './plot-data';
import { PLOT_HEIGHT, plotOptions } from './plot-options';
import { marksHook, type MarksPort } from './chart-marks';
import type { Theme } from './theme';

/** The header's point count (one formatter: toLocaleString() builds one per call). */
const COUNT_FORMAT = new Intl.NumberFormat();

/** Space uPlot's y axis takes (the plot width the extension downsamples to is the rest). */
const Y_AXIS = 56;

/** What a card reads from its page (read when drawn: a later `init` may bring other strings). */
export interface CardPort {
  readonly strings: UiStrings;
  options(): ViewOptions;
  theme(): Theme;
  /** Marked events of runs (online-training commits), drawn as vertical lines. */
  readonly marks: MarksPort;
}

/** What a card tells its page: the user zoomed, clicked a step, or asked for an export. */
export type CardEvent =
  | { type: 'zoom'; chart: string; range: [number, number] | null }
  | { type: 'drill'; chart: string; series: SeriesInfo; x: [number, number] }
  | { type: 'export'; chart: string; format: 'csv' | 'json' }
  | { type: 'exportPng'; chart: string; dataUrl: string };

export class ChartCard {
  readonly el: HTMLElement;
  private readonly plotEl: HTMLElement;
  private readonly legend: ChartLegend;
  private readonly metaEl: HTMLElement;
  private plot: uPlot | undefined;
  private data: ChartData | undefined;
  /** The data `view` (and the plot) were made from: the pointer maps through what is drawn, not
   *  through newer data that has not been drawn yet (its buckets may be wider). */
  private shownData: ChartData | undefined;
  private view: PlotData = EMPTY_PLOT_DATA;
  visible = false;
  dirty = false;
  /** The plot's width as measured before this frame's draws (render-loop.ts), for the next render. */
  private measured: number | undefined;

  constructor(
    public spec: ChartSpec,
    private readonly port: CardPort,
    private readonly tell: (e: CardEvent) => void,
  ) {
    const el = document.createElement('section');
    el.className = 'card';
    el.dataset.chart = spec.id;
    const head = document.createElement('header');
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = spec.tag;
    title.title = spec.tag;
    this.metaEl = document.createElement('span');
    this.metaEl.className = 'meta';
    head.append(title, this.metaEl, this.tools());
    this.plotEl = document.createElement('div');
    this.plotEl.className = 'plot';
    this.plotEl.style.height = `${PLOT_HEIGHT}px`;
    this.legend = new ChartLegend(port.strings);
    el.append(head, this.plotEl, this.legend.keyEl, this.legend.el);
    this.el = el;
  }

  /** The header's buttons: reset zoom, export CSV / JSON / PNG. */
  private tools(): HTMLElement {
    const tools = document.createElement('span');
    tools.className = 'tools';
    const s = this.port.strings;
    for (const [label, icon, act] of [
      [s.resetZoom, '⤢', () => this.tell({ type: 'zoom', chart: this.spec.id, range: null })],
      [s.exportCsv, 'CSV', () => this.tell({ type: 'export', chart: this.spec.id, format: 'csv' })],
      [s.exportJson, 'JSON', () => this.tell({ type: 'export', chart: this.spec.id, format: 'json' })],
      [s.exportPng, 'PNG', () => this.exportPng()],
    ] as [string, string, () => void][]) {
      const b = document.createElement('button');
      b.textContent = icon;
      b.title = label;
      b.setAttribute('aria-label', label);
      b.addEventListener('click', act);
      tools.append(b);
    }
    return tools;
  }

  /** Plot width in CSS px (what the extension downsamples to). */
  plotWidth(): number {
    const w = this.plot ? this.plot.bbox.width / devicePixelRatio : this.plotEl.clientWidth - Y_AXIS;
    return Math.max(16, Math.round(w || 300));
  }

  setSpec(spec: ChartSpec): void {
    // Every layout repeats the specs of the cards already there (a run opening adds tags in
    // bursts): an unchanged one must not redraw its card.
    if (JSON.stringify(spec) === JSON.stringify(this.spec)) return;
    const changed = JSON.stringify(spec.series) !== JSON.stringify(this.spec.series);
    this.spec = spec;
    if (changed) this.destroyPlot();
    this.dirty = true;
  }

  setData(d: ChartData): void {
    this.data = d;
    this.dirty = true;
  }

  get chartData(): ChartData | undefined {
    return this.data;
  }

  /** The card has its plot (a draw updates it; without one, a draw builds it, which costs more). */
  get built(): boolean {
    return this.plot !== undefined;
  }

  get drawn(): boolean {
    return this.plot !== undefined && this.view.kept.length > 0;
  }

  /** Theme or options that shape the uPlot instance changed. */
  restyle(): void {
    this.destroyPlot();
    this.dirty = true;
  }

  destroyPlot(): void {
    if (!this.plot) return;
    // A zero-sized canvas gives its pixels back now, not when the element is collected.
    this.plot.ctx.canvas.width = this.plot.ctx.canvas.height = 0;
    this.plot.destroy();
    this.plot = undefined;
  }

  /** Far off screen: the plot goes (its pixels cost the renderer several copies); the data stays, to draw again on return. */
  release(): void {
    // Not visible either: the board's debounced viewport report may not have said so yet, and a
    // render before it would build the plot again far off screen, with nothing to release it.
    this.visible = false;
    if (!this.plot) return;
    this.destroyPlot();
    this.dirty = true;
  }

  /**
   * Reads the plot's width for the next render. The render loop measures the frame's cards before
   * it draws any: a card's draw changes the page (its point count, uPlot's DOM), so a width read
   * in each render laid the page out again per card (a forced layout: most of a live card's time).
   */
  measure(): void {
    this.measured = this.plotEl.clientWidth;
  }

  /** Draws the current data (called from requestAnimationFrame). */
  render(): void {
    this.dirty = false;
    const d = this.data;
    const measured = this.measured;
    this.measured = undefined;
    if (!d || !this.visible) return;
    this.metaEl.textContent = `${COUNT_FORMAT.format(d.points)} ${this.port.strings.points}`;
    this.view = alignData(this.spec.series, d, this.port.options().logScale);
    this.shownData = d;
    const width = Math.max(120, measured ?? this.plotEl.clientWidth);
    if (!this.plot) {
      this.plot = this.create(width);
      this.legend.showKey(this.spec.series, this.port.theme());
      return;
    }
    // batch(): draw now rather than in a microtask, so the caller can budget its frame.
    const u = this.plot;
    u.batch(() => {
      if (Math.abs(u.width - width) > 1) u.setSize({ width, height: PLOT_HEIGHT });
      u.setData(this.view.aligned as uPlot.AlignedData, true);
    });
  }

  private create(width: number): uPlot {
    const o = this.port.options();
    const handlers: PointerEvents = {
      hover: (idx) => this.hover(idx),
      leave: () => this.legend.clear(),
      zoom: (range) => this.tell({ type: 'zoom', chart: this.spec.id, range }),
      click: (at) => this.drill(at),
    };
    const opts = plotOptions(this.spec, this.port.theme(), o, this.port.strings, this.data?.xAxis ?? o.xAxis, width);
    const marks = marksHook(this.port.marks, [...new Set(this.spec.series.map((x) => x.run))], () => this.data?.xAxis ?? this.port.options().xAxis);
    opts.hooks = { ...pointerHooks(handlers), ...marks };
    const u = new uPlot(opts, this.view.aligned as uPlot.AlignedData, this.plotEl);
    attachPointer(u, handlers);
    return u;
  }

  private hover(idx: number): void {
    const d = this.shownData;
    const bucket = this.view.kept[idx];
    if (!d || bucket === undefined) return;
    const smoothing = this.port.options().smoothing > 0;
    this.legend.show(this.spec.series, this.port.theme(), { data: d, aligned: this.view.aligned, idx, bucket, smoothing });
  }

  /** A click on a step: the rollouts of the run whose line is nearest the pointer. */
  private drill(at: PointerAt): void {
    const d = this.shownData;
    if (!this.spec.drill || !d) return;
    const s = nearestSeries(this.spec.series, this.view.aligned, at.idx, at.top, at.toPos);
    const k = this.view.kept[at.idx];
    if (!s || k === undefined) return;
    this.tell({ type: 'drill', chart: this.spec.id, series: s, x: [d.origin + k * d.dx, d.origin + (k + 1) * d.dx] });
  }

  /** Largest and smallest envelope value on screen (probe). */
  extent(): { hi: number | null; lo: number | null } {
    return envelopeExtent(this.spec.series.length, this.view.aligned);
  }

  get buckets(): number {
    return this.view.kept.length;
  }

  private exportPng(): void {
    if (this.plot) this.tell({ type: 'exportPng', chart: this.spec.id, dataUrl: chartPng(this.plot, this.spec, this.port.theme()) });
  }
}
