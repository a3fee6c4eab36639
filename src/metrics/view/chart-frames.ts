// Building one chart's frames from the store: a full rebuild (one pass over every point of
// its series onto a grid the width of the plot) or a patch (the buckets appended points
// touched). The per-chart state they share with the engine lives here too. Pure.
import { ChartFrame, ChartSpec } from '../protocol/frames';
import { ViewOptions, X_AXES, XAxisMode } from '../protocol/view-options';
import type { Columns } from '../store/columns';
import { SeriesBuckets, chooseGrid, typicalSpacing } from '../store/downsample';
import type { MetricsStore } from '../store/store';
import { DetailNeed, detailNeeds, envelopeItems } from './envelope-feed';
import { MAX_DETAIL_POINTS } from '../../relay-protocol/envelope';

/** Plot width (CSS px) assumed until the webview reports one. */
const DEFAULT_WIDTH = 600;

export interface ChartState {
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
  /** The x range and grid of the last rebuild (a new width that gives the same grid needs none). */
  built?: { lo: number; hi: number; origin: number; dx: number; minDx: number };
}

export interface EngineStats {
  rebuilds: number;
  patches: number;
  pointsScanned: number;
}

export function newChartState(spec: ChartSpec): ChartState {
  return {
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
  };
}

/** x of point i for an axis mode. */
export function xOf(cols: Columns, mode: XAxisMode, runStart: number): (i: number) => number {
  if (mode === 'step') return (i) => cols.step[i];
  if (mode === 'wall') return (i) => cols.wallTime[i];
  const s = Number.isFinite(runStart) ? runStart : 0;
  return (i) => cols.wallTime[i] - s;
}

/** Points behind a chart (all its series, full resolution). */
export function chartPoints(store: MetricsStore, spec: ChartSpec): number {
  return spec.series.reduce((n, s) => n + (store.get(s.key)?.length ?? 0) + store.envelopes.points(s.key), 0);
}

/** Rebuilds a chart's buckets from every point (the x range: its zoom, or all points) as revision `rev`. */
export function rebuildFrame(store: MetricsStore, c: ChartState, opts: ViewOptions, rev: number, stats: EngineStats, needs?: DetailNeed[]): ChartFrame {
  const mode = opts.xAxis;
  const series = c.spec.series.map((info) => {
    const s = store.get(info.key);
    const cols = s ? store.columns(info.key) : undefined;
    const start = s ? store.runStart(s.run) : NaN;
    const env = envelopeItems(store.envelopes, info.key, mode, start, c.zoom);
    return { info, s, cols, xs: cols ? xOf(cols, mode, start) : undefined, start, env };
  });
  let lo = Infinity;
  let hi = -Infinity;
  if (c.zoom) [lo, hi] = c.zoom;
  else {
    for (const { cols, xs, env } of series) {
      if (env) {
        lo = Math.min(lo, env.lo);
        hi = Math.max(hi, env.hi);
      }
      if (!cols || !xs) continue;
      for (let i = 0; i < cols.length; i++) {
        const x = xs(i);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    }
  }
  if (!Number.isFinite(lo)) lo = hi = 0;
  const grid = chooseGrid(lo, hi, c.width, X_AXES[mode].minDx);
  c.cap = c.zoom ? grid.n : Math.max(grid.n, c.width);
  c.built = { lo, hi, origin: grid.origin, dx: grid.dx, minDx: X_AXES[mode].minDx };
  c.buckets.clear();
  c.versions.clear();
  c.starts.clear();
  let used = c.zoom ? grid.n : 0;
  let points = 0;
  for (const { info, s, cols, xs, start, env } of series) {
    if (!s || !cols || !xs) continue;
    const spacing = env ? env.spacing : typicalSpacing(xs, cols.length);
    const b = new SeriesBuckets({ origin: grid.origin, dx: grid.dx, cap: c.cap }, opts.smoothing, spacing);
    if (env) {
      env.feed(b);
      points += env.points;
      needs?.push(...detailNeeds(store.envelopes, info.key, info.tag, mode, c.zoom, grid.dx, Math.min(MAX_DETAIL_POINTS, 8 * c.width)));
    }
    for (let i = 0; i < cols.length; i++) b.add(xs(i), cols.value[i], false, cols.wallTime[i]);
    stats.pointsScanned += cols.length;
    points += cols.length;
    used = Math.max(used, b.used);
    c.buckets.set(info.key, b);
    c.versions.set(info.key, s.version);
    c.starts.set(s.run, start);
  }
  c.n = used;
  c.rev = rev;
  c.needsRebuild = false;
  stats.rebuilds++;
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

/** Whether the chart's last rebuild would give the same grid at plot width `width` (power-of-two grids often do). */
export function sameGridAt(c: ChartState, width: number): boolean {
  const b = c.built;
  if (!b) return false;
  const g = chooseGrid(b.lo, b.hi, width, b.minDx);
  return g.origin === b.origin && g.dx === b.dx;
}

/** The buckets from the first one appended points touched, of the series they touched. */
export function patchFrame(store: MetricsStore, c: ChartState, opts: ViewOptions, stats: EngineStats): ChartFrame {
  let n = c.n;
  for (const key of c.touched) n = Math.max(n, c.buckets.get(key)?.used ?? 0);
  c.n = n;
  const start = Math.min(c.dirtyFrom, n);
  const smoothed = opts.smoothing > 0;
  stats.patches++;
  const any = c.buckets.values().next().value;
  return {
    chart: c.spec.id,
    rev: c.rev,
    xAxis: opts.xAxis,
    origin: any?.grid.origin ?? 0,
    dx: any?.grid.dx ?? 1,
    n,
    start,
    points: chartPoints(store, c.spec),
    series: [...c.touched].filter((k) => c.buckets.has(k)).map((k) => c.buckets.get(k)!.frame(k, start, n, smoothed)),
  };
}
