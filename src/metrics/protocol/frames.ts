// Chart data between the extension and the metrics webview: what a chart holds (ChartSpec,
// SeriesInfo, RunSummary) and its frames, and applyFrame on the receiving side.
// Chart data travel as downsampled frames on a bucket grid (see src/metrics/view/chart-frames.ts):
// bucket k covers x ∈ [origin + k·dx, origin + (k+1)·dx); each series carries, per bucket,
// the line value (mean, or the smoothed value at the bucket's last point), and the min and
// max of the bucket (the envelope), so a one-point spike is never sampled away. A frame
// either replaces a chart (`start` = 0 with a new `rev`) or patches its tail from `start`.
import type { XAxisMode } from './view-options';

export interface SeriesInfo {
  /** Store key: run, role, tag. */
  key: string;
  run: string;
  role: string;
  tag: string;
  /** Legend label (the run, plus the role when a chart holds several roles of one run). */
  label: string;
  /** Palette index (one colour per run, stable across charts). */
  color: number;
  dashed: boolean;
}

export interface ChartSpec {
  /** Chart id (the tag). */
  id: string;
  tag: string;
  /** Section: the tag's first path component (`rollout`, `eval`, `actor`, …). */
  group: string;
  pinned: boolean;
  /** Clicking a step opens the rollouts of that step. */
  drill: boolean;
  series: SeriesInfo[];
}

/** An event of a run drawn as a vertical line on its charts (an online-training commit). */
export interface RunMark {
  kind: 'commit';
  step: number;
  /** wall time, seconds since the epoch (for the wall-time and relative axes) */
  wallTime: number;
}

export interface RunSummary {
  run: string;
  roles: string[];
  /** Events to mark on the run's charts, in step order. */
  marks?: RunMark[];
  /** Seconds since epoch of the run's first point (origin of the relative-time axis). */
  start: number;
  points: number;
  experiences: number;
}

/** Per-bucket values of one series in a frame, for buckets [start, n). null: no data. */
export interface SeriesFrame {
  key: string;
  y: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  /** Absolute bucket indices (≥ start) where the line must break (missing data, NaN). */
  gaps: number[];
  /** The bucket means when `y` is smoothed (the hover shows both). */
  mean?: (number | null)[];
  /** Wall time (s) of each bucket's last point. */
  wallTime?: (number | null)[];
}

export interface ChartFrame {
  chart: string;
  /** Changes on every full rebuild; a patch applies only to the same rev. */
  rev: number;
  xAxis: XAxisMode;
  origin: number;
  dx: number;
  /** Buckets in the chart after this frame. */
  n: number;
  /** First bucket carried (0 = the whole chart). */
  start: number;
  series: SeriesFrame[];
  /** Points behind this chart (all series, full resolution). */
  points: number;
}

/** A chart's data as the webview holds it: dense per-bucket arrays for buckets [0, n). */
export interface SeriesData {
  y: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  /** Bucket means when y is smoothed; empty when it is not. */
  mean: (number | null)[];
  wallTime: (number | null)[];
  gaps: Set<number>;
}

export interface ChartData {
  rev: number;
  xAxis: XAxisMode;
  origin: number;
  dx: number;
  n: number;
  points: number;
  series: Map<string, SeriesData>;
}

/**
 * Applies a frame to a chart's data. Returns the new data, or undefined when the frame is a
 * patch for another rev (the extension then sends a full frame: it never relies on a patch landing).
 */
export function applyFrame(prev: ChartData | undefined, f: ChartFrame): ChartData | undefined {
  let d: ChartData;
  if (f.start === 0 || !prev || prev.rev !== f.rev) {
    if (f.start !== 0) return undefined;
    d = { rev: f.rev, xAxis: f.xAxis, origin: f.origin, dx: f.dx, n: f.n, points: f.points, series: new Map() };
  } else {
    d = prev;
    d.n = f.n;
    d.points = f.points;
  }
  for (const s of f.series) {
    let cur = d.series.get(s.key);
    if (!cur) {
      cur = { y: [], lo: [], hi: [], mean: [], wallTime: [], gaps: new Set() };
      d.series.set(s.key, cur);
    }
    if (f.start === 0) {
      // A full frame: take its arrays as they are (they were just deserialized).
      cur.y = s.y;
      cur.lo = s.lo;
      cur.hi = s.hi;
      cur.mean = s.mean ?? [];
      cur.wallTime = s.wallTime ?? [];
    } else {
      for (const [arr, add] of [
        [cur.y, s.y],
        [cur.lo, s.lo],
        [cur.hi, s.hi],
        [cur.mean, s.mean ?? []],
        [cur.wallTime, s.wallTime ?? []],
      ] as const) {
        // Pad (a series first seen in a patch) or cut back to the patch start, then append.
        while (arr.length < f.start) arr.push(null);
        arr.length = f.start;
        for (let i = 0; i < add.length; i++) arr.push(add[i]);
      }
    }
    for (const g of cur.gaps) if (g >= f.start) cur.gaps.delete(g);
    for (const g of s.gaps) cur.gaps.add(g);
  }
  return d;
}
