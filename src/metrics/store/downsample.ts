// Min/max-envelope downsampling onto a bucket grid the width of the chart in pixels.
//
// Bucket k of a grid covers x ∈ [origin + k·dx, origin + (k+1)·dx); dx is a power of two, so a
// grid that must widen (the run grew past the chart's width) doubles dx and every old bucket
// falls into exactly one new one. Per bucket and series we keep count, min, max, sum (→ the
// mean line) and the smoothed value at the bucket's last point: the min and max of every
// bucket are exact, so a one-point spike survives at any zoom (the users' top complaint about
// TensorBoard's reservoir and W&B's / MLflow's random sampling).
//
// Gaps: a bucket that holds only non-finite values (NaN / ±Inf logged), or an empty bucket
// between two consecutive points further apart than GAP_FACTOR × the series' typical spacing,
// breaks the line instead of bridging it.
import type { SeriesFrame } from '../protocol/frames';
import { EmaState } from './smoothing';

const GAP_FACTOR = 8;

export interface Grid {
  origin: number;
  dx: number;
  /** Buckets in use. */
  n: number;
}

/** The finest power-of-two grid with at most `width` buckets over [lo, hi]. */
export function chooseGrid(lo: number, hi: number, width: number, minDx: number): Grid {
  const w = Math.max(1, Math.floor(width));
  if (!(hi >= lo)) hi = lo;
  let dx = minDx;
  const span = hi - lo;
  if (span / w > dx) dx = Math.max(minDx, 2 ** Math.floor(Math.log2(span / w)));
  while (Math.floor(hi / dx) - Math.floor(lo / dx) + 1 > w) dx *= 2;
  const origin = Math.floor(lo / dx) * dx;
  return { origin, dx, n: Math.floor(hi / dx) - Math.floor(lo / dx) + 1 };
}

/** Median of |Δx| between consecutive points (sampled), the spacing gaps are judged against. */
export function typicalSpacing(x: (i: number) => number, length: number): number {
  if (length < 9) return NaN;
  const samples = Math.min(length - 1, 2048);
  const stride = (length - 1) / samples;
  const d = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const j = Math.floor(i * stride);
    d[i] = Math.abs(x(j + 1) - x(j));
  }
  d.sort();
  return d[samples >> 1];
}

/** The aggregates of one series on a grid; points are fed in storage (step) order. */
export class SeriesBuckets {
  readonly count: Uint32Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  readonly sum: Float64Array;
  readonly smooth: Float64Array;
  /** Wall time (s) of the last point in each bucket (for the hover). */
  readonly wallTime: Float64Array;
  /** 1: a non-finite value fell here; 2: a gap was detected across this bucket. */
  readonly flags: Uint8Array;
  private ema: EmaState | undefined;
  private prevX = NaN;
  private prevBucket = -1;
  /** Highest bucket touched + 1. */
  used = 0;

  constructor(
    readonly grid: { origin: number; dx: number; cap: number },
    smoothing: number,
    /** Spacing above which (× GAP_FACTOR) a hole is a gap; NaN: no gap detection. */
    readonly spacing: number,
  ) {
    const n = grid.cap;
    this.count = new Uint32Array(n);
    this.min = new Float64Array(n).fill(Infinity);
    this.max = new Float64Array(n).fill(-Infinity);
    this.sum = new Float64Array(n);
    this.smooth = new Float64Array(n).fill(NaN);
    this.wallTime = new Float64Array(n).fill(NaN);
    this.flags = new Uint8Array(n);
    this.ema = smoothing > 0 ? new EmaState(smoothing) : undefined;
  }

  /** Bucket of x, possibly outside [0, cap). */
  bucketOf(x: number): number {
    return Math.floor((x - this.grid.origin) / this.grid.dx);
  }

  /**
   * Feeds one point. Returns the lowest bucket it changed, -1 when it lies outside the grid
   * (ignored, though it still advances the smoothing), or -2 when it lies past the end of
   * an auto-ranged grid (the caller widens the grid).
   */
  add(x: number, v: number, autoRange: boolean, wallTime = NaN): number {
    const sm = this.ema ? this.ema.push(v) : v;
    const b = this.bucketOf(x);
    const prevX = this.prevX;
    const prevB = this.prevBucket;
    this.prevX = x;
    this.prevBucket = b;
    if (b < 0 || b >= this.grid.cap) return autoRange && b >= this.grid.cap ? -2 : -1;
    let lowest = b;
    if (prevB >= 0 && Math.abs(b - prevB) >= 2 && this.spacing > 0 && Math.abs(x - prevX) > GAP_FACTOR * this.spacing) {
      // Mark the bucket just after the earlier of the two points: the line breaks there.
      const g = Math.min(b, prevB) + 1;
      if (g < this.grid.cap) this.flags[g] |= 2;
      if (g + 1 > this.used) this.used = g + 1;
      lowest = Math.min(lowest, g);
    }
    if (Number.isFinite(v)) {
      this.count[b]++;
      if (v < this.min[b]) this.min[b] = v;
      if (v > this.max[b]) this.max[b] = v;
      this.sum[b] += v;
      if (Number.isFinite(sm)) this.smooth[b] = sm;
      this.wallTime[b] = wallTime;
    } else {
      this.flags[b] |= 1;
    }
    if (b + 1 > this.used) this.used = b + 1;
    return lowest;
  }

  /**
   * Feeds an aggregate of points (an envelope bucket: `finite` finite values with their min,
   * max and sum, `nonFinite` others) at x, like add() for each of them. Returns as add().
   */
  addAggregate(x: number, a: { finite: number; min: number; max: number; sum: number; nonFinite: number; wallTime: number }, autoRange: boolean): number {
    const mean = a.finite > 0 ? a.sum / a.finite : NaN;
    const sm = this.ema ? this.ema.pushMean(mean, a.finite) : mean;
    const b = this.bucketOf(x);
    this.prevX = x;
    this.prevBucket = b;
    if (b < 0 || b >= this.grid.cap) return autoRange && b >= this.grid.cap ? -2 : -1;
    if (a.finite > 0) {
      this.count[b] += a.finite;
      if (a.min < this.min[b]) this.min[b] = a.min;
      if (a.max > this.max[b]) this.max[b] = a.max;
      this.sum[b] += a.sum;
      if (Number.isFinite(sm)) this.smooth[b] = sm;
      this.wallTime[b] = a.wallTime;
    }
    if (a.nonFinite > 0) this.flags[b] |= 1;
    if (b + 1 > this.used) this.used = b + 1;
    return b;
  }

  /**
   * The frame of buckets [start, n). The bucket min and max stay exact (a spike reads as it was
   * logged); the means and the smoothed line go to 9 significant digits and wall times to the
   * millisecond: they are drawn and hovered (5 digits at most), never exported, and JSON writes a
   * double in up to 17 digits, on every hop to the page (JSON both ways, the page's parse and
   * structured clone: opening a 50-tag run sent 1.7 MB).
   */
  frame(key: string, start: number, n: number, smoothed: boolean): SeriesFrame {
    const len = Math.max(0, n - start);
    const y = new Array<number | null>(len);
    const lo = new Array<number | null>(len);
    const hi = new Array<number | null>(len);
    const mean = new Array<number | null>(len);
    const wallTime = new Array<number | null>(len);
    const gaps: number[] = [];
    for (let i = 0; i < len; i++) {
      const b = start + i;
      const c = b < this.grid.cap ? this.count[b] : 0;
      if (c === 0) {
        y[i] = lo[i] = hi[i] = mean[i] = wallTime[i] = null;
        if (b < this.grid.cap && this.flags[b]) gaps.push(b);
        continue;
      }
      lo[i] = this.min[b];
      hi[i] = this.max[b];
      mean[i] = shortNumber(this.sum[b] / c);
      y[i] = smoothed ? shortNumber(this.smooth[b]) : mean[i];
      wallTime[i] = Number.isFinite(this.wallTime[b]) ? Math.round(this.wallTime[b] * 1000) / 1000 : null;
    }
    return smoothed ? { key, y, lo, hi, gaps, mean, wallTime } : { key, y, lo, hi, gaps, wallTime };
  }
}

/** `v` to 9 significant digits, as a double JSON writes in as few (infinities, NaN, 0 and tiny values as they are). */
export function shortNumber(v: number): number {
  const a = Math.abs(v);
  if (!(a >= 1e-200) || a === Infinity) return v;
  const e = Math.floor(Math.log10(a));
  // Scale by an exact power of ten (10^k is exact for k ≤ 22), divide or multiply back once.
  if (e <= 8) {
    const k = 8 - e;
    return k <= 22 ? Math.round(v * 10 ** k) / 10 ** k : v;
  }
  const p = 10 ** (e - 8);
  return Math.round(v / p) * p;
}

export interface DownsampleResult {
  grid: Grid;
  /** Per bucket: mean (or smoothed) line, min, max; null where the bucket is empty. */
  y: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  gaps: number[];
}

/**
 * Downsamples one series (xs in storage order; ys its values) to at most `width` buckets over
 * [lo, hi] (default: the data's range). Pure; the chart engine does the same incrementally.
 */
export function downsample(
  xs: ArrayLike<number>,
  ys: ArrayLike<number>,
  width: number,
  opts: { range?: [number, number]; minDx?: number; smoothing?: number } = {},
): DownsampleResult {
  let lo = Infinity;
  let hi = -Infinity;
  if (opts.range) [lo, hi] = opts.range;
  else {
    for (let i = 0; i < xs.length; i++) {
      lo = Math.min(lo, xs[i]);
      hi = Math.max(hi, xs[i]);
    }
  }
  if (!Number.isFinite(lo)) lo = hi = 0;
  const grid = chooseGrid(lo, hi, width, opts.minDx ?? 1);
  const b = new SeriesBuckets(
    { origin: grid.origin, dx: grid.dx, cap: grid.n },
    opts.smoothing ?? 0,
    typicalSpacing((i) => xs[i], xs.length),
  );
  for (let i = 0; i < xs.length; i++) b.add(xs[i], ys[i], false);
  const f = b.frame('', 0, grid.n, (opts.smoothing ?? 0) > 0);
  return { grid, y: f.y, lo: f.lo, hi: f.hi, gaps: f.gaps };
}
