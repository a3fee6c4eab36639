// A chart's frame data as uPlot wants it, kept apart from the card's DOM: aligned arrays
// (x, then line, max, min per series) over the buckets that hold anything, and the reads the
// hover, the click and the probe make on them. A gap bucket is null (uPlot breaks the line),
// an empty one undefined (uPlot bridges it). No DOM.
import type { ChartData, SeriesInfo } from '../protocol/frames';

export type Cell = number | null | undefined;

/** What uPlot draws, and which bucket each x position came from. */
export interface PlotData {
  /** Bucket index of each x position handed to uPlot. */
  kept: number[];
  /** x, then (line, max, min) per series. */
  aligned: Cell[][];
}

export const EMPTY_PLOT_DATA: PlotData = { kept: [], aligned: [] };

/** Column of series i's line, max and min in `aligned`. */
export const lineCol = (i: number): number => 1 + 3 * i;
export const hiCol = (i: number): number => 2 + 3 * i;
export const loCol = (i: number): number => 3 + 3 * i;

/** uPlot's aligned arrays: x, then (line, max, min) per series; log scale drops values ≤ 0. */
export function alignData(series: readonly SeriesInfo[], d: ChartData, log: boolean): PlotData {
  const specs = series.map((s) => d.series.get(s.key));
  const kept: number[] = [];
  for (let k = 0; k < d.n; k++) {
    for (const s of specs) {
      if (s && ((s.y[k] ?? null) !== null || s.gaps.has(k))) {
        kept.push(k);
        break;
      }
    }
  }
  const x = kept.map((k) => d.origin + k * d.dx);
  const out: Cell[][] = [x];
  const cell = (arr: (number | null)[], k: number, gap: boolean): Cell => {
    if (gap) return null;
    const v = arr[k];
    if (v === null || v === undefined) return undefined;
    return log && v <= 0 ? undefined : v;
  };
  for (const s of specs) {
    const line = new Array<Cell>(kept.length);
    const hi = new Array<Cell>(kept.length);
    const lo = new Array<Cell>(kept.length);
    for (let i = 0; i < kept.length; i++) {
      const k = kept[i];
      const gap = !!s && s.gaps.has(k) && (s.y[k] ?? null) === null;
      line[i] = s ? cell(s.y, k, gap) : undefined;
      hi[i] = s ? cell(s.hi, k, gap) : undefined;
      lo[i] = s ? cell(s.lo, k, gap) : undefined;
    }
    out.push(line, hi, lo);
  }
  return { kept, aligned: out };
}

/** Largest and smallest envelope value on screen (probe). */
export function envelopeExtent(seriesCount: number, aligned: Cell[][]): { hi: number | null; lo: number | null } {
  let hi = -Infinity;
  let lo = Infinity;
  for (let i = 0; i < seriesCount; i++) {
    for (const v of aligned[hiCol(i)] ?? []) if (typeof v === 'number' && v > hi) hi = v;
    for (const v of aligned[loCol(i)] ?? []) if (typeof v === 'number' && v < lo) lo = v;
  }
  return { hi: Number.isFinite(hi) ? hi : null, lo: Number.isFinite(lo) ? lo : null };
}

/** The series whose line at x position idx is nearest the pointer's y (in CSS px). */
export function nearestSeries(
  series: readonly SeriesInfo[],
  aligned: Cell[][],
  idx: number,
  pointerY: number,
  toPos: (v: number) => number,
): SeriesInfo | undefined {
  let best: SeriesInfo | undefined;
  let dist = Infinity;
  series.forEach((s, i) => {
    const v = aligned[lineCol(i)]?.[idx];
    if (v === null || v === undefined) return;
    const d = Math.abs(toPos(v) - pointerY);
    if (d < dist) {
      dist = d;
      best = s;
    }
  });
  return best;
}
