// Turns the store's full-resolution series into the frames the webview draws, chart by
// chart, and only for charts on screen. A chart is rebuilt (one pass over its points) when
// it appears, is resized or zoomed, when the options change, or when its grid must widen;
// otherwise appended points update a few buckets and only those travel (a patch). This
// class decides which; chart-frames.ts builds the frames. Pure.
//
// A new chart is assumed on screen until the webview's viewport report says otherwise, when
// it is among the top ASSUMED_ON_SCREEN charts and the page has not reported yet, or its last
// report had every chart on screen (the layout fits): its frame then goes out with the layout
// instead of a round trip later (layout → the page's report → frames).
import type { ChartFrame, ChartSpec } from '../protocol/frames';
import type { ViewOptions } from '../protocol/view-options';
import type { MetricsStore, SeriesChange } from '../store/store';
import { ChartState, EngineStats, chartPoints, newChartState, patchFrame, rebuildFrame, sameGridAt, xOf } from './chart-frames';
import type { DetailNeed } from './envelope-feed';

/** New charts assumed on screen before the page says (more than a tall window shows). */
export const ASSUMED_ON_SCREEN = 64;

export class ChartEngine {
  private readonly charts = new Map<string, ChartState>();
  private readonly byKey = new Map<string, string>();
  private revs = 0;
  /** The page's last viewport report: plot width, and whether every chart was on screen. */
  private reported: { width: number; allVisible: boolean } | undefined;
  readonly stats: EngineStats = { rebuilds: 0, patches: 0, pointsScanned: 0 };

  constructor(
    private readonly store: MetricsStore,
    private readonly options: () => ViewOptions,
    /** A zoomed chart needs exact points its envelope cannot give (envelope-feed.ts). */
    private readonly onDetail?: (need: DetailNeed) => void,
  ) {}

  /** A detail window arrived for a series: its chart is rebuilt with it. */
  seriesChanged(key: string): void {
    const id = this.byKey.get(key);
    const c = id === undefined ? undefined : this.charts.get(id);
    if (c) c.needsRebuild = true;
  }

  /** Sets the chart list (after a layout change); charts whose series changed are rebuilt. */
  setCharts(specs: ChartSpec[]): void {
    const ids = new Set(specs.map((s) => s.id));
    for (const id of this.charts.keys()) if (!ids.has(id)) this.charts.delete(id);
    this.byKey.clear();
    const assume = !this.reported || this.reported.allVisible;
    for (const [i, spec] of specs.entries()) {
      for (const s of spec.series) this.byKey.set(s.key, spec.id);
      const old = this.charts.get(spec.id);
      if (old) {
        const same = old.spec.series.length === spec.series.length && old.spec.series.every((s, i) => s.key === spec.series[i].key);
        old.spec = spec;
        if (!same) old.needsRebuild = true;
        continue;
      }
      const c = newChartState(spec);
      if (assume && i < ASSUMED_ON_SCREEN) c.visible = true;
      if (this.reported) c.width = this.reported.width; // the grid's columns are equal
      this.charts.set(spec.id, c);
    }
  }

  /** The page's cards with their plot widths, and those on screen (the others are rebuilt when they come back). */
  setViewport(widths: { id: string; width: number }[], visible: string[]): void {
    for (const { id, width } of widths) {
      const c = this.charts.get(id);
      const w = Math.max(16, Math.round(width));
      if (c && c.width !== w) {
        // The grid is the same at many widths: then the frame sent already fits the plot.
        if (!sameGridAt(c, w)) c.needsRebuild = true;
        c.width = w;
      }
    }
    // The report speaks for the page's cards only: charts it has not laid out yet keep their state.
    const vis = new Set(visible);
    for (const { id } of widths) {
      const c = this.charts.get(id);
      if (!c) continue;
      const v = vis.has(id);
      if (v && !c.visible) c.needsRebuild = true;
      c.visible = v;
    }
    const last = widths.at(-1);
    if (last) this.reported = { width: Math.max(16, Math.round(last.width)), allVisible: vis.size >= widths.length };
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
      const r = b.add(xs(i), recent.cols.value[i], !c.zoom, recent.cols.wallTime[i]);
      if (r === -2) {
        c.needsRebuild = true;
        return;
      }
      if (r >= 0 && r < c.dirtyFrom) c.dirtyFrom = r;
    }
    this.stats.pointsScanned += recent.cols.length - recent.start;
    c.touched.add(ch.key);
  }

  /**
   * Frames of the visible charts that changed since the last call, in chart order, until they
   * hold `maxCells` bucket values (at least one frame): the other changed charts wait for the
   * next call.
   */
  collect(maxCells = Infinity): ChartFrame[] {
    const out: ChartFrame[] = [];
    let cells = 0;
    for (const c of this.charts.values()) {
      if (!c.visible) continue;
      if (cells >= maxCells) break;
      let f: ChartFrame | undefined;
      if (c.needsRebuild) f = this.rebuild(c);
      else if (c.touched.size && Number.isFinite(c.dirtyFrom)) f = this.patch(c);
      c.touched.clear();
      c.dirtyFrom = Infinity;
      if (!f) continue;
      out.push(f);
      cells += frameCells(f);
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
    return c ? chartPoints(this.store, c.spec) : 0;
  }

  private rebuild(c: ChartState): ChartFrame {
    const needs: DetailNeed[] = [];
    const frame = rebuildFrame(this.store, c, this.options(), ++this.revs, this.stats, needs);
    for (const n of needs) this.onDetail?.(n);
    return frame;
  }

  private patch(c: ChartState): ChartFrame {
    return patchFrame(this.store, c, this.options(), this.stats);
  }
}

/** Bucket values a frame carries (its size on the wire, roughly: ~15 bytes each as JSON). */
function frameCells(f: ChartFrame): number {
  let n = 0;
  for (const s of f.series) n += (s.mean ? 5 : 4) * s.y.length;
  return n;
}
