// Envelope-first opening of a finished run, the relay-protocol messages beside
// `points`: a client that says `envelope` in `subscribe` gets, for each event-file source it
// reads from its beginning, one `envelope` message per tag (a min/max summary of ALL its
// points in step buckets) instead of every point, then the live stream from the end cursor.
// It asks for exact points of a step range with `detail` when the user zooms in. Same
// protocol version: an older relay ignores the capability (it streams every point), an
// older client never asks for it.
//
// Bucket k of an envelope of width w (a power of two ≥ 1) covers steps [k·w, (k+1)·w) —
// the host's chart grid (store/downsample.ts) has the same shape, so the envelope folds into
// chart buckets exactly. Nothing is hidden: per bucket the count, the finite min/max/sum,
// the first and last point (by step) and the NaN / ±Inf counts travel.
import { type Cursor, type WireNumber, isCursor, isWireNumber } from './wire-values';
import { arrayOf, hasFields, isInt, isNum, isStr, nullable, oneOf, optional, type Obj } from '../base/validate';

/** Most buckets a client may ask for per tag (bounds the relay's memory and the message). */
const MAX_ENVELOPE_BUCKETS = 8192;
/** Most exact points a detail answer carries. */
export const MAX_DETAIL_POINTS = 100_000;

/** The capability in `subscribe`: envelope-first for event files read from their beginning. */
export interface EnvelopeRequest {
  /** Buckets per tag (≈ 2 × the chart width in pixels). */
  buckets: number;
  /**
   * Only event files of at least this many bytes open envelope-first (absent: every one).
   * Smaller files stream every point, so the client keeps them whole (export, smoothing, its
   * own store on disk) at a cost that is small anyway.
   */
  minBytes?: number;
}

/** A min/max envelope over step buckets, columnar over the non-empty buckets (ascending). */
export interface EnvelopeColumns {
  /** Bucket width in steps, a power of two ≥ 1. */
  width: number;
  /** Absolute bucket index k: the bucket covers steps [k·width, (k+1)·width). */
  bucket: number[];
  /** Points in the bucket (every value, finite or not). */
  count: number[];
  /** Min / max / sum of the bucket's finite values; null when none is finite. */
  min: (number | null)[];
  max: (number | null)[];
  sum: number[];
  /** The bucket's point with the smallest step (the first read on a tie) … */
  firstStep: number[];
  firstValue: WireNumber[];
  firstWall: number[];
  /** … and the one with the largest step (the last read on a tie). */
  lastStep: number[];
  lastValue: WireNumber[];
  lastWall: number[];
  nan: number[];
  posInf: number[];
  negInf: number[];
}

export const ENVELOPE_COLUMNS = [
  'bucket',
  'count',
  'min',
  'max',
  'sum',
  'firstStep',
  'firstValue',
  'firstWall',
  'lastStep',
  'lastValue',
  'lastWall',
  'nan',
  'posInf',
  'negInf',
] as const;

/** What every form of an envelope says besides its columns (here and envelope-frame.ts). */
export interface EnvelopeHeader {
  type: 'envelope';
  source: string;
  run: string;
  role: string;
  tag: string;
  /** Points of the tag the envelope summarizes. */
  points: number;
  /** Where the source was read up to: the live `points` of this source follow from here. */
  cursor: Cursor;
}

/** client → relay: the points of one tag in steps [from, to] that the envelope summarized. */
export interface DetailRequestMessage {
  type: 'detail';
  request: number;
  source: string;
  tag: string;
  from: number;
  to: number;
  /** More points than this in the range: a finer envelope of the range instead. */
  maxPoints: number;
  /** The envelope's cursor: only what it summarized is read (what follows came live). */
  cursor: Cursor;
}

/** relay → client: the answer to `detail`. */
export interface DetailMessage {
  type: 'detail';
  request: number;
  source: string;
  tag: string;
  from: number;
  to: number;
  /** Every point in the range, in file order (when there are at most maxPoints) … */
  points?: { step: number[]; wallTime: number[]; value: WireNumber[] };
  /** … else a finer envelope of the range. */
  envelope?: EnvelopeColumns;
  /** Why there is neither (unknown source, file replaced since…). */
  error?: string;
}

const COLUMN_GUARDS = {
  bucket: arrayOf(isInt),
  count: arrayOf(isInt),
  min: arrayOf(nullable(isNum)),
  max: arrayOf(nullable(isNum)),
  sum: arrayOf(isNum),
  firstStep: arrayOf(isInt),
  firstValue: arrayOf(isWireNumber),
  firstWall: arrayOf(isNum),
  lastStep: arrayOf(isInt),
  lastValue: arrayOf(isWireNumber),
  lastWall: arrayOf(isNum),
  nan: arrayOf(isInt),
  posInf: arrayOf(isInt),
  negInf: arrayOf(isInt),
};

/** Envelope columns of equal lengths and a power-of-two width. */
function isEnvelopeColumns(v: unknown): v is EnvelopeColumns {
  if (!hasFields(v, { width: isNum, ...COLUMN_GUARDS })) return false;
  if (!(v.width >= 1) || 2 ** Math.round(Math.log2(v.width)) !== v.width) return false;
  const n = v.bucket.length;
  return ENVELOPE_COLUMNS.every((k) => (v as unknown as Record<string, unknown[]>)[k].length === n);
}

/** A `detail` answer from the relay; false when malformed. */
export function isDetailMessage(m: Obj): m is Obj & DetailMessage {
  if (!hasFields(m, { type: oneOf(['detail']), request: isInt, source: isStr, tag: isStr, from: isNum, to: isNum, error: optional(isStr) })) return false;
  if (m.envelope !== undefined && !isEnvelopeColumns(m.envelope)) return false;
  if (m.points === undefined) return true;
  const p = m.points;
  if (!hasFields(p, { step: arrayOf(isInt), wallTime: arrayOf(isNum), value: arrayOf(isWireNumber) })) return false;
  return p.wallTime.length === p.step.length && p.value.length === p.step.length;
}

/** A `detail` request from a client; false when malformed. */
export function isDetailRequest(m: Obj): m is Obj & DetailRequestMessage {
  return (
    hasFields(m, { type: oneOf(['detail']), request: isInt, source: isStr, tag: isStr, from: isNum, to: isNum, maxPoints: isInt, cursor: isCursor }) &&
    m.from <= m.to &&
    m.maxPoints >= 1 &&
    m.maxPoints <= MAX_DETAIL_POINTS
  );
}

/** The `envelope` capability of a subscribe (absent: not asked; false: malformed). */
export function isEnvelopeRequest(v: unknown): v is EnvelopeRequest | undefined {
  return (
    v === undefined ||
    (hasFields(v, { buckets: isInt }) &&
      v.buckets >= 2 &&
      v.buckets <= MAX_ENVELOPE_BUCKETS &&
      (v.minBytes === undefined || (isInt(v.minBytes) && v.minBytes >= 0)))
  );
}
