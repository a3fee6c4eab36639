// Feeding a chart from a series opened envelope-first (store/envelopes.ts): the envelope's
// buckets go into the chart's buckets as aggregates (min, max, sum, count: every point's min
// and max stays visible at full zoom-out, and on the step axis an envelope bucket falls wholly
// into one chart bucket, both grids being power-of-two widths from 0); where a detail window
// covers the zoomed range, its exact points (or finer envelope) replace the envelope buckets
// it overlaps. Also says which sources need a detail read for a zoom. Pure.
import type { XAxisMode } from '../protocol/view-options';
import type { SeriesBuckets } from '../store/downsample';
import { typicalSpacing } from '../store/downsample';
import type { DetailWindow, EnvelopeBook, PackedEnvelope } from '../store/envelopes';
import type { Cursor } from '../../relay-protocol/messages';

/** A series' envelope items in x order, ready to feed. */
export interface EnvelopeItems {
  /** x of each item. */
  x: Float64Array;
  lo: number;
  hi: number;
  spacing: number;
  points: number;
  feed(b: SeriesBuckets): void;
}

type Item = { x: number; env: PackedEnvelope; i: number } | { x: number; pts: NonNullable<DetailWindow['points']>; i: number };

/** Whether a window answers a zoom (step axis only: windows are step ranges). */
function windowCovers(w: DetailWindow | undefined, mode: XAxisMode, zoom: [number, number] | undefined): w is DetailWindow {
  return !!w && mode === 'step' && !!zoom && w.from <= zoom[0] && w.to >= zoom[1];
}

/** The items of series `key` (undefined: it has no envelope). */
export function envelopeItems(
  book: EnvelopeBook,
  key: string,
  mode: XAxisMode,
  runStart: number,
  zoom: [number, number] | undefined,
): EnvelopeItems | undefined {
  const sources = book.of(key);
  if (!sources.length) return undefined;
  const t0 = mode === 'relative' && Number.isFinite(runStart) ? runStart : 0;
  const xOfBucket = (e: PackedEnvelope, i: number) => (mode === 'step' ? e.firstStep[i] : e.firstWall[i] - t0);
  const items: Item[] = [];
  let points = 0;
  for (const se of sources) {
    const w = book.window(key, se.endpoint, se.source);
    const useWindow = windowCovers(w, mode, zoom);
    const e = se.env;
    for (let i = 0; i < e.length; i++) {
      if (useWindow && !(e.lastStep[i] < w.from || e.firstStep[i] > w.to)) continue;
      items.push({ x: xOfBucket(e, i), env: e, i });
      points += e.count[i];
    }
    if (!useWindow) continue;
    if (w.points) {
      for (let i = 0; i < w.points.step.length; i++) items.push({ x: w.points.step[i], pts: w.points, i });
      points += w.points.step.length;
    } else if (w.env) {
      for (let i = 0; i < w.env.length; i++) items.push({ x: w.env.firstStep[i], env: w.env, i });
      for (let i = 0; i < w.env.length; i++) points += w.env.count[i];
    }
  }
  items.sort((a, b) => a.x - b.x);
  const x = Float64Array.from(items, (it) => it.x);
  let lo = Infinity;
  let hi = -Infinity;
  for (const it of items) {
    const last = 'env' in it ? (mode === 'step' ? it.env.lastStep[it.i] : it.env.lastWall[it.i] - t0) : it.x;
    lo = Math.min(lo, it.x);
    hi = Math.max(hi, last);
  }
  return {
    x,
    lo,
    hi,
    points,
    spacing: typicalSpacing((i) => x[i], x.length),
    feed(b: SeriesBuckets): void {
      for (const it of items) {
        if ('pts' in it) {
          b.add(it.x, it.pts.value[it.i], false, it.pts.wallTime[it.i]);
          continue;
        }
        const e = it.env;
        const i = it.i;
        b.addAggregate(
          it.x,
          { finite: e.finite[i], min: e.min[i], max: e.max[i], sum: e.sum[i], nonFinite: e.count[i] - e.finite[i], wallTime: e.lastWall[i] },
          false,
        );
      }
    },
  };
}

/** A detail read a zoomed chart needs: the envelope is coarser than the chart's grid there. */
export interface DetailNeed {
  key: string;
  endpoint: string;
  source: string;
  tag: string;
  cursor: Cursor;
  from: number;
  to: number;
  /** More points than this: a finer envelope of the range is enough. */
  maxPoints: number;
}

export function detailNeeds(
  book: EnvelopeBook,
  key: string,
  tag: string,
  mode: XAxisMode,
  zoom: [number, number] | undefined,
  dx: number,
  maxPoints: number,
): DetailNeed[] {
  if (mode !== 'step' || !zoom) return [];
  const out: DetailNeed[] = [];
  for (const se of book.of(key)) {
    if (se.env.width <= dx) continue; // as fine as the chart already
    if (windowCovers(book.window(key, se.endpoint, se.source), mode, zoom)) continue;
    out.push({ key, endpoint: se.endpoint, source: se.source, tag, cursor: se.cursor, from: Math.floor(zoom[0]), to: Math.ceil(zoom[1]), maxPoints });
  }
  return out;
}
