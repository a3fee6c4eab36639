// One chart card: a uPlot chart of one tag with every run overlaid. Per series three uPlot
// series: the line (mean or smoothed), and the bucket max and min drawn faintly with the
// band between them filled (the envelope: spikes stay visible at any zoom). A gap bucket is
// null (uPlot breaks the line), an empty one undefined (uPlot bridges it). Drag to zoom (the
// host rebuilds the grid for the range), double-click to reset, click a step to drill down.
import uPlot from 'uplot';
import type { ChartData, ChartSpec, SeriesInfo, UiStrings, ViewOptions } from '../../shared/metrics-protocol';
import { fmtBucket, fmtDuration, fmtNum, fmtWall } from './format';
import { yAxisSize } from '../../shared/axis-size';
import { Theme, seriesColor, withAlpha } from './theme';

export const PLOT_HEIGHT = 180;
/** Space uPlot's y axis takes (the plot width the host downsamples to is the rest). */
const Y_AXIS = 56;

export interface CardHost {
  strings: UiStrings;
  options(): ViewOptions;
  theme(): Theme;
  zoom(chart: string, range: [number, number] | null): void;
  drill(chart: string, series: SeriesInfo, x: [number, number]): void;
  exportData(chart: string, format: 'csv' | 'json'): void;
  exportPng(chart: string, dataUrl: string): void;
}

type Cell = number | null | undefined;

const STEP_INCRS = [1, 2, 5].flatMap((m) => Array.from({ length: 10 }, (_, e) => m * 10 ** e)).sort((a, b) => a - b);

let measureCanvas: CanvasRenderingContext2D | undefined;
function measureCtx(): CanvasRenderingContext2D {
  return (measureCanvas ??= document.createElement('canvas').getContext('2d')!);
}

export class ChartCard {
  readonly el: HTMLElement;
  private readonly plotEl: HTMLElement;
  private readonly legendEl: HTMLElement;
  private readonly keyEl: HTMLElement;
  private readonly metaEl: HTMLElement;
  private plot: uPlot | undefined;
  private data: ChartData | undefined;
  /** Bucket index of each x position handed to uPlot. */
  private kept: number[] = [];
  private aligned: Cell[][] = [];
  visible = false;
  dirty = false;
  private downX = NaN;

  constructor(
    public spec: ChartSpec,
    private readonly host: CardHost,
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
    const tools = document.createElement('span');
    tools.className = 'tools';
    const s = host.strings;
    for (const [label, icon, act] of [
      [s.resetZoom, '⤢', () => host.zoom(spec.id, null)],
      [s.exportCsv, 'CSV', () => host.exportData(this.spec.id, 'csv')],
      [s.exportJson, 'JSON', () => host.exportData(this.spec.id, 'json')],
      [s.exportPng, 'PNG', () => this.exportPng()],
    ] as [string, string, () => void][]) {
      const b = document.createElement('button');
      b.textContent = icon;
      b.title = label;
      b.setAttribute('aria-label', label);
      b.addEventListener('click', act);
      tools.append(b);
    }
    head.append(title, this.metaEl, tools);
    this.plotEl = document.createElement('div');
    this.plotEl.className = 'plot';
    this.plotEl.style.height = `${PLOT_HEIGHT}px`;
    this.legendEl = document.createElement('div');
    this.legendEl.className = 'legend';
    this.keyEl = document.createElement('div');
    this.keyEl.className = 'run-key';
    el.append(head, this.plotEl, this.keyEl, this.legendEl);
    this.el = el;
  }

  /** Plot width in CSS px (what the host downsamples to). */
  plotWidth(): number {
    const w = this.plot ? this.plot.bbox.width / devicePixelRatio : this.plotEl.clientWidth - Y_AXIS;
    return Math.max(16, Math.round(w || 300));
  }

  setSpec(spec: ChartSpec): void {
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

  get drawn(): boolean {
    return this.plot !== undefined && this.kept.length > 0;
  }

  /** Theme or options that shape the uPlot instance changed. */
  restyle(): void {
    this.destroyPlot();
    this.dirty = true;
  }

  destroyPlot(): void {
    this.plot?.destroy();
    this.plot = undefined;
  }

  /** Draws the current data (called from requestAnimationFrame). */
  render(): void {
    this.dirty = false;
    const d = this.data;
    if (!d || !this.visible) return;
    this.metaEl.textContent = `${d.points.toLocaleString()} ${this.host.strings.points}`;
    this.aligned = this.align(d);
    const width = Math.max(120, this.plotEl.clientWidth);
    if (!this.plot) {
      this.plot = this.create(width);
      this.showKey();
      return;
    }
    // batch(): draw now rather than in a microtask, so the caller can budget its frame.
    const u = this.plot;
    u.batch(() => {
      if (Math.abs(u.width - width) > 1) u.setSize({ width, height: PLOT_HEIGHT });
      u.setData(this.aligned as uPlot.AlignedData, true);
    });
  }

  /** uPlot's aligned arrays: x, then (line, max, min) per series. */
  private align(d: ChartData): Cell[][] {
    const log = this.host.options().logScale;
    const specs = this.spec.series.map((s) => d.series.get(s.key));
    const kept: number[] = [];
    for (let k = 0; k < d.n; k++) {
      for (const s of specs) {
        if (s && ((s.y[k] ?? null) !== null || s.gaps.has(k))) {
          kept.push(k);
          break;
        }
      }
    }
    this.kept = kept;
    const x = kept.map((k) => d.origin + k * d.dx);
    const out: Cell[][] = [x];
    const cell = (arr: (number | null)[], k: number, gap: boolean): Cell => {
      if (gap) return null;
      const v = arr[k];
      if (v === null || v === undefined) return undefined;
      return log && v <= 0 ? undefined : v;
    };
    for (const s of specs) {
      const line: Cell[] = new Array(kept.length);
      const hi: Cell[] = new Array(kept.length);
      const lo: Cell[] = new Array(kept.length);
      for (let i = 0; i < kept.length; i++) {
        const k = kept[i];
        const gap = !!s && s.gaps.has(k) && (s.y[k] ?? null) === null;
        line[i] = s ? cell(s.y, k, gap) : undefined;
        hi[i] = s ? cell(s.hi, k, gap) : undefined;
        lo[i] = s ? cell(s.lo, k, gap) : undefined;
      }
      out.push(line, hi, lo);
    }
    return out;
  }

  private create(width: number): uPlot {
    const t = this.host.theme();
    const o = this.host.options();
    const mode = this.data?.xAxis ?? o.xAxis;
    const series: uPlot.Series[] = [{}];
    const bands: uPlot.Band[] = [];
    this.spec.series.forEach((s, i) => {
      const c = seriesColor(t, s.color);
      const dash = s.dashed ? [6, 3] : undefined;
      series.push({ label: s.label, stroke: c, width: 1.75, dash, points: { show: false }, spanGaps: false });
      const faint = { stroke: withAlpha(c, 0.4), width: 1, points: { show: false }, spanGaps: false, show: o.band };
      series.push({ label: `${s.label} max`, ...faint }, { label: `${s.label} min`, ...faint });
      if (o.band) bands.push({ series: [2 + 3 * i, 3 + 3 * i], fill: withAlpha(c, 0.14) });
    });
    const axis = (): uPlot.Axis => ({
      stroke: t.muted,
      font: t.font,
      grid: { stroke: t.grid, width: 1 },
      ticks: { stroke: t.grid, width: 1 },
    });
    const xAxis: uPlot.Axis = axis();
    if (mode === 'relative') xAxis.values = (_u, vals) => vals.map((v) => fmtDuration(v));
    if (mode === 'step') xAxis.values = (_u, vals) => vals.map((v) => (Math.abs(v) >= 1e5 ? `${Number((v / 1000).toPrecision(4))}k` : String(v)));
    // Steps are integers: no 0.5 / 1.5 ticks while a run has only a few steps.
    if (mode === 'step') xAxis.incrs = STEP_INCRS;
    // Sized to the widest label (minus signs, exponents), re-measured on every redraw.
    // (A canvas of our own: uPlot caches its context's font.)
    const ctx = measureCtx();
    const measure = (s: string) => {
      ctx.font = t.font;
      return ctx.measureText(s).width;
    };
    const yAxis: uPlot.Axis = {
      ...axis(),
      size: (_u, values) => yAxisSize(values as (string | null)[], measure),
      values: (_u, vals) => vals.map((v) => fmtNum(v)),
    };
    const opts: uPlot.Options = {
      width,
      height: PLOT_HEIGHT,
      series,
      bands,
      legend: { show: false },
      scales: { x: { time: mode === 'wall' }, y: { distr: o.logScale ? 3 : 1 } },
      axes: [xAxis, yAxis],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      hooks: {
        setCursor: [(u) => this.showLegend(u)],
        setSelect: [(u) => this.onSelect(u)],
      },
    };
    const u = new uPlot(opts, this.aligned as uPlot.AlignedData, this.plotEl);
    u.over.addEventListener('mousedown', (e) => (this.downX = e.clientX));
    u.over.addEventListener('click', (e) => {
      if (Math.abs(e.clientX - this.downX) < 3) this.onClick(u);
    });
    u.over.addEventListener('dblclick', () => this.host.zoom(this.spec.id, null));
    u.over.addEventListener('mouseleave', () => this.legendEl.replaceChildren());
    return u;
  }

  private onSelect(u: uPlot): void {
    if (u.select.width < 3) return;
    const a = u.posToVal(u.select.left, 'x');
    const b = u.posToVal(u.select.left + u.select.width, 'x');
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    this.host.zoom(this.spec.id, [Math.min(a, b), Math.max(a, b)]);
  }

  /** The series whose line is nearest the pointer at index idx. */
  private nearest(u: uPlot, idx: number): SeriesInfo | undefined {
    let best: SeriesInfo | undefined;
    let dist = Infinity;
    this.spec.series.forEach((s, i) => {
      const v = this.aligned[1 + 3 * i]?.[idx];
      if (v === null || v === undefined) return;
      const d = Math.abs(u.valToPos(v, 'y') - (u.cursor.top ?? 0));
      if (d < dist) (dist = d), (best = s);
    });
    return best;
  }

  private onClick(u: uPlot): void {
    const idx = u.cursor.idx;
    const d = this.data;
    if (!this.spec.drill || idx === null || idx === undefined || !d) return;
    const s = this.nearest(u, idx);
    const k = this.kept[idx];
    if (!s || k === undefined) return;
    this.host.drill(this.spec.id, s, [d.origin + k * d.dx, d.origin + (k + 1) * d.dx]);
  }

  private showLegend(u: uPlot): void {
    const idx = u.cursor.idx;
    const d = this.data;
    if (idx === null || idx === undefined || !d || this.kept[idx] === undefined) return;
    const t = this.host.theme();
    const s = this.host.strings;
    const k = this.kept[idx];
    const rows: HTMLElement[] = [];
    const head = document.createElement('div');
    head.className = 'x';
    head.textContent = fmtBucket(d.xAxis, d.origin + k * d.dx, d.dx, s.step);
    rows.push(head);
    const smoothing = this.host.options().smoothing > 0;
    this.spec.series.forEach((info, i) => {
      const y = this.aligned[1 + 3 * i]?.[idx];
      const hi = this.aligned[2 + 3 * i]?.[idx];
      const lo = this.aligned[3 + 3 * i]?.[idx];
      if (y === undefined && hi === undefined) return;
      const sd = d.series.get(info.key);
      const row = document.createElement('div');
      row.className = 'row';
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = seriesColor(t, info.color);
      const label = document.createElement('span');
      label.textContent = info.label;
      // The value (bucket mean), then the smoothed line's value when smoothing is on.
      const raw = smoothing ? sd?.mean[k] : y;
      const val = document.createElement('span');
      val.className = 'value';
      val.textContent = fmtNum(raw ?? null);
      row.append(sw, label, val);
      if (smoothing) {
        const sm = document.createElement('span');
        sm.className = 'smoothed';
        sm.textContent = `${s.smoothed} ${fmtNum(y ?? null)}`;
        row.append(sm);
      }
      if (hi !== lo && hi != null && lo != null) {
        const env = document.createElement('span');
        env.className = 'envelope';
        env.textContent = `${s.min} ${fmtNum(lo)} · ${s.max} ${fmtNum(hi)}`;
        row.append(env);
      }
      const wall = sd?.wall[k];
      if (typeof wall === 'number') {
        const w = document.createElement('span');
        w.className = 'wall';
        w.textContent = `${s.wallTime} ${fmtWall(wall)}`;
        row.append(w);
      }
      rows.push(row);
    });
    this.legendEl.replaceChildren(...rows);
  }

  /** The runs' colours under the plot when several runs overlay. */
  private showKey(): void {
    const t = this.host.theme();
    if (this.spec.series.length < 2) {
      this.keyEl.replaceChildren();
      return;
    }
    this.keyEl.replaceChildren(
      ...this.spec.series.map((info) => {
        const item = document.createElement('span');
        item.className = 'item';
        const sw = document.createElement('span');
        sw.className = 'swatch';
        sw.style.background = seriesColor(t, info.color);
        const label = document.createElement('span');
        label.textContent = info.label;
        item.append(sw, label);
        return item;
      }),
    );
  }

  /** Largest and smallest envelope value on screen (probe). */
  extent(): { hi: number | null; lo: number | null } {
    let hi = -Infinity;
    let lo = Infinity;
    this.spec.series.forEach((_s, i) => {
      for (const v of this.aligned[2 + 3 * i] ?? []) if (typeof v === 'number' && v > hi) hi = v;
      for (const v of this.aligned[3 + 3 * i] ?? []) if (typeof v === 'number' && v < lo) lo = v;
    });
    return { hi: Number.isFinite(hi) ? hi : null, lo: Number.isFinite(lo) ? lo : null };
  }

  get buckets(): number {
    return this.kept.length;
  }

  /** The chart (title, plot, legend of runs) as a PNG on the theme's background. */
  private exportPng(): void {
    const u = this.plot;
    if (!u) return;
    const t = this.host.theme();
    const src = u.ctx.canvas;
    const pad = 12 * devicePixelRatio;
    const titleH = 22 * devicePixelRatio;
    const c = document.createElement('canvas');
    c.width = src.width + 2 * pad;
    c.height = src.height + titleH + 2 * pad + 18 * devicePixelRatio;
    const g = c.getContext('2d')!;
    g.fillStyle = t.background;
    g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = t.foreground;
    g.font = `${13 * devicePixelRatio}px ${t.font.replace(/^\S+\s/, '')}`;
    g.fillText(this.spec.tag, pad, pad + 14 * devicePixelRatio);
    g.drawImage(src, pad, pad + titleH);
    let x = pad;
    const y = pad + titleH + src.height + 14 * devicePixelRatio;
    for (const s of this.spec.series) {
      g.fillStyle = seriesColor(t, s.color);
      g.fillRect(x, y - 9 * devicePixelRatio, 10 * devicePixelRatio, 10 * devicePixelRatio);
      g.fillStyle = t.foreground;
      g.fillText(s.label, x + 14 * devicePixelRatio, y);
      x += g.measureText(s.label).width + 30 * devicePixelRatio;
    }
    this.host.exportPng(this.spec.id, c.toDataURL('image/png'));
  }
}
