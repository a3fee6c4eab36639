// Turns the store's full-resolution series into the frames the webview draws, chart by
// chart, and only for charts on screen. A chart is rebuilt (one pass over its points) when
// it appears, is resized or zoomed, when the options change, or when its grid must widen;
// otherwise appended points update a few buckets and only those travel (a patch). Pure.
import type { ChartFrame, ChartSpec, ViewOptions, XAxisMode } from '../../shared/metrics-protocol';
import type { Columns } from '../store/columns';
import { SeriesBuckets, chooseGrid, typicalSpacing } from '../store/downsample';
import type { MetricsStore, SeriesChange } from '../store/store';

export const MIN_DX: Record<XAxisMode, number> = { step: 1, wall: 2 ** -10, relative: 2 ** -10 };
const DEFAULT_WIDTH = 600;

interface ChartState {
  spec: ChartSpec;
  width: number;
  zoom?: [number, number];
  visible: boolean;
  rev: number;
  needsRebuild: boolean;
  cap: number;
  n: number;
  buckets: Map<string, SeriesBuckets>;
  versions: Map<string, number>;
  /** Run starts used for the relative axis. */
  starts: Map<string, number>;
  dirtyFrom: number;
  touched: Set<string>;
}

export interface EngineStats {
  rebuilds: number;
  patches: number;
  pointsScanned: number;
}

export class ChartEngine {
  private readonly charts = new Map<string, ChartState>();
  private readonly byKey = new Map<string, string>();
  private revs = 0;
  readonly stats: EngineStats = { rebuilds: 0, patches: 0, pointsScanned: 0 };

  constructor(
    private readonly store: MetricsStore,
    private readonly options: () => ViewOptions,
  ) {}

  /** Sets the chart list (after a layout change); charts whose series changed are rebuilt. */
  setCharts(specs: ChartSpec[]): void {
    const ids = new Set(specs.map((s) => s.id));
    for (const id of this.charts.keys()) if (!ids.has(id)) this.charts.delete(id);
    this.byKey.clear();
    for (const spec of specs) {
      for (const s of spec.series) this.byKey.set(s.key, spec.id);
      const old = this.charts.get(spec.id);
      if (old) {
        const same = old.spec.series.length === spec.series.length && old.spec.series.every((s, i) => s.key === spec.series[i].key);
        old.spec = spec;
        if (!same) old.needsRebuild = true;
        continue;
      }
      this.charts.set(spec.id, {
        spec,
        width: DEFAULT_WIDTH,
        visible: false,
        rev: 0,
        needsRebuild: true,
        cap: 0,
        n: 0,
        buckets: new Map(),
        versions: new Map(),
        starts: new Map(),
        dirtyFrom: Infinity,
        touched: new Set(),
      });
    }
  }

  /** Plot widths and the charts on screen (the others are rebuilt when they come back). */
  setViewport(widths: { id: string; width: number }[], visible: string[]): void {
    for (const { id, width } of widths) {
      const c = this.charts.get(id);
      const w = Math.max(16, Math.round(width));
      if (c && c.width !== w) {
        c.width = w;
        c.needsRebuild = true;
      }
    }
    const vis = new Set(visible);
    for (const [id, c] of this.charts) {
      const v = vis.has(id);
      if (v && !c.visible) c.needsRebuild = true;
      c.visible = v;
    }
  }

  setZoom(id: string, range: [number, number] | null): void {
    const c = this.charts.get(id);
    if (!c) return;
    c.zoom = range ?? undefined;
    c.needsRebuild = true;
  }

  /** Options changed (smoothing, x axis): everything is rebuilt; zooms no longer apply. */
  invalidateAll(resetZoom: boolean): void {
    for (const c of this.charts.values()) {
      c.needsRebuild = true;
      if (resetZoom) c.zoom = undefined;
    }
  }

  /** Feeds points just added to the store. */
  onChange(ch: SeriesChange): void {
    const id = this.byKey.get(ch.key);
    const c = id === undefined ? undefined : this.charts.get(id);
    if (!c || c.needsRebuild) return;
    if (!c.visible) {
      c.needsRebuild = true;
      return;
    }
    const s = this.store.get(ch.key);
    const b = c.buckets.get(ch.key);
    if (!s || !b || ch.appendedFrom === undefined || c.versions.get(ch.key) !== s.version) {
      c.needsRebuild = true;
      return;
    }
    const mode = this.options().xAxis;
    if (mode === 'relative' && c.starts.get(s.run) !== this.store.runStart(s.run)) {
      c.needsRebuild = true;
      return;
    }
    const recent = this.store.recent(ch.key, ch.appendedFrom) ?? { cols: this.store.columns(ch.key)!, start: ch.appendedFrom };
    const xs = xOf(recent.cols, mode, this.store.runStart(s.run));
    for (let i = recent.start; i < recent.cols.length; i++) {
      const r = b.add(xs(i), recent.cols.value[i], !c.zoom, recent.cols.wall[i]);
      if (r === -2) {
        c.needsRebuild = true;
        return;
      }
      if (r >= 0 && r < c.dirtyFrom) c.dirtyFrom = r;
    }
    this.stats.pointsScanned += recent.cols.length - recent.start;
    c.touched.add(ch.key);
  }

  /** Frames of the visible charts that changed since the last call. */
  collect(): ChartFrame[] {
    const out: ChartFrame[] = [];
    for (const c of this.charts.values()) {
      if (!c.visible) continue;
      if (c.needsRebuild) out.push(this.rebuild(c));
      else if (c.touched.size && Number.isFinite(c.dirtyFrom)) out.push(this.patch(c));
      c.touched.clear();
      c.dirtyFrom = Infinity;
    }
    return out;
  }

  /** The current full frame of one chart (rebuilt now). */
  fullFrame(id: string): ChartFrame | undefined {
    const c = this.charts.get(id);
    return c ? this.rebuild(c) : undefined;
  }

  /** Grid of a chart as last sent (for mapping a click back to x). */
  chartPoints(id: string): number {
    const c = this.charts.get(id);
    return c ? c.spec.series.reduce((n, s) => n + (this.store.get(s.key)?.length ?? 0), 0) : 0;
  }

  private rebuild(c: ChartState): ChartFrame {
    const opts = this.options();
    const mode = opts.xAxis;
    const series = c.spec.series.map((info) => {
      const s = this.store.get(info.key);
      const cols = s ? this.store.columns(info.key) : undefined;
      const start = s ? this.store.runStart(s.run) : NaN;
      return { info, s, cols, xs: cols ? xOf(cols, mode, start) : undefined, start };
    });
    let lo = Infinity;
    let hi = -Infinity;
    if (c.zoom) [lo, hi] = c.zoom;
    else {
      for (const { cols, xs } of series) {
        if (!cols || !xs) continue;
        for (let i = 0; i < cols.length; i++) {
          const x = xs(i);
          if (x < lo) lo = x;
          if (x > hi) hi = x;
        }
      }
    }
    if (!Number.isFinite(lo)) lo = hi = 0;
    const grid = chooseGrid(lo, hi, c.width, MIN_DX[mode]);
    c.cap = c.zoom ? grid.n : Math.max(grid.n, c.width);
    c.buckets.clear();
    c.versions.clear();
    c.starts.clear();
    let used = c.zoom ? grid.n : 0;
    let points = 0;
    for (const { info, s, cols, xs, start } of series) {
      if (!s || !cols || !xs) continue;
      const spacing = typicalSpacing(xs, cols.length);
      const b = new SeriesBuckets({ origin: grid.origin, dx: grid.dx, cap: c.cap }, opts.smoothing, spacing);
      for (let i = 0; i < cols.length; i++) b.add(xs(i), cols.value[i], false, cols.wall[i]);
      this.stats.pointsScanned += cols.length;
      points += cols.length;
      used = Math.max(used, b.used);
      c.buckets.set(info.key, b);
      c.versions.set(info.key, s.version);
      c.starts.set(s.run, start);
    }
    c.n = used;
    c.rev = ++this.revs;
    c.needsRebuild = false;
    this.stats.rebuilds++;
    const smoothed = opts.smoothing > 0;
    return {
      chart: c.spec.id,
      rev: c.rev,
      xAxis: mode,
      origin: grid.origin,
      dx: grid.dx,
      n: c.n,
      start: 0,
      points,
      series: [...c.buckets].map(([key, b]) => b.frame(key, 0, c.n, smoothed)),
    };
  }

  private patch(c: ChartState): ChartFrame {
    let n = c.n;
    for (const key of c.touched) n = Math.max(n, c.buckets.get(key)?.used ?? 0);
    c.n = n;
    const start = Math.min(c.dirtyFrom, n);
    const smoothed = this.options().smoothing > 0;
    this.stats.patches++;
    const any = c.buckets.values().next().value as SeriesBuckets | undefined;
    return {
      chart: c.spec.id,
      rev: c.rev,
      xAxis: this.options().xAxis,
      origin: any?.grid.origin ?? 0,
      dx: any?.grid.dx ?? 1,
      n,
      start,
      points: this.chartPoints(c.spec.id),
      series: [...c.touched].filter((k) => c.buckets.has(k)).map((k) => c.buckets.get(k)!.frame(k, start, n, smoothed)),
    };
  }
}

/** x of point i for an axis mode. */
export function xOf(cols: Columns, mode: XAxisMode, runStart: number): (i: number) => number {
  if (mode === 'step') return (i) => cols.step[i];
  if (mode === 'wall') return (i) => cols.wall[i];
  const s = Number.isFinite(runStart) ? runStart : 0;
  return (i) => cols.wall[i] - s;
}
