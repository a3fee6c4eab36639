// An envelope (envelope.ts) as both ends hold it — typed columns — and the binary frame it
// travels in. A finished run opens with one envelope per tag (50 tags × ~800 buckets × 14
// columns): as JSON that would be ~6 MB to stringify and parse number by number; as frames the
// columns are copied once on each side. A `detail` answer's finer envelope is small and travels
// as JSON columns (envelopeColumns). Pure (no node modules): the relay and the client both use it.
//
// Binary envelope frame (a WebSocket binary message; all numbers little-endian):
//
//   offset 0   4 bytes   magic "ARE1" (agentrl relay envelope, layout 1)
//   offset 4   uint32    H, the byte length of the header
//   offset 8   H bytes   header, UTF-8 JSON: {"type":"envelope","source","run","role","tag",
//                        "points","cursor":{…},"width","buckets":n}
//   …          0–7 zero bytes, so that the columns start at a multiple of 8
//   then 14 columns of n float64 each, in ENVELOPE_COLUMNS order (bucket, count, min, max, …);
//   min / max are +Infinity / -Infinity in a bucket without a finite value; values are IEEE
//   doubles (NaN and ±Infinity as they are).
import { ProtocolError, fromWireNumber, isCursor, toWireNumber } from './messages';
import { ENVELOPE_COLUMNS, EnvelopeColumns, EnvelopeHeader } from './envelope';
import { hasFields, isInt, isStr, oneOf } from '../base/validate';
import { frameMagic, littleEndianHost, readFrameHead, startFrame } from './binary-frame';
import { POINTS_MAGIC } from './points-frame';

export type EnvelopeColumnName = (typeof ENVELOPE_COLUMNS)[number];

/** Envelope columns over the non-empty buckets (ascending), typed. */
export type EnvelopeArrays = { width: number } & Record<EnvelopeColumnName, Float64Array>;

/** One tag's envelope of one source, as both ends hold it. */
export interface EnvelopeBatch extends EnvelopeHeader {
  env: EnvelopeArrays;
}

/** "ARE1" as a little-endian uint32. */
const MAGIC = 0x31455241;

/** Which message a binary frame carries (by its magic); undefined for neither. */
export function binaryFrameType(data: Uint8Array): 'points' | 'envelope' | undefined {
  const magic = frameMagic(data);
  return magic === MAGIC ? 'envelope' : magic === POINTS_MAGIC ? 'points' : undefined;
}

/** Typed columns of a JSON envelope (null min/max → ±Infinity, wire numbers → doubles). */
export function envelopeArrays(c: EnvelopeColumns): EnvelopeArrays {
  const f = (xs: ArrayLike<number>) => Float64Array.from(xs);
  return {
    width: c.width,
    bucket: f(c.bucket),
    count: f(c.count),
    min: Float64Array.from(c.min, (v) => (v === null ? Infinity : v)),
    max: Float64Array.from(c.max, (v) => (v === null ? -Infinity : v)),
    sum: f(c.sum),
    firstStep: f(c.firstStep),
    firstValue: Float64Array.from(c.firstValue, fromWireNumber),
    firstWall: f(c.firstWall),
    lastStep: f(c.lastStep),
    lastValue: Float64Array.from(c.lastValue, fromWireNumber),
    lastWall: f(c.lastWall),
    nan: f(c.nan),
    posInf: f(c.posInf),
    negInf: f(c.negInf),
  };
}

/** The JSON columns of typed ones (a `detail` answer's envelope). */
export function envelopeColumns(a: EnvelopeArrays): EnvelopeColumns {
  const n = (xs: Float64Array) => Array.from(xs);
  const finite = a.min.map((lo, i) => (lo <= a.max[i] ? 1 : 0));
  return {
    width: a.width,
    bucket: n(a.bucket),
    count: n(a.count),
    min: Array.from(a.min, (v, i) => (finite[i] ? v : null)),
    max: Array.from(a.max, (v, i) => (finite[i] ? v : null)),
    sum: n(a.sum),
    firstStep: n(a.firstStep),
    firstValue: Array.from(a.firstValue, toWireNumber),
    firstWall: n(a.firstWall),
    lastStep: n(a.lastStep),
    lastValue: Array.from(a.lastValue, toWireNumber),
    lastWall: n(a.lastWall),
    nan: n(a.nan),
    posInf: n(a.posInf),
    negInf: n(a.negInf),
  };
}

export function encodeEnvelopeFrame(b: EnvelopeBatch): Uint8Array {
  const n = b.env.bucket.length;
  const header = {
    type: 'envelope',
    source: b.source,
    run: b.run,
    role: b.role,
    tag: b.tag,
    points: b.points,
    cursor: b.cursor,
    width: b.env.width,
    buckets: n,
  };
  const { ab, dv, colsAt } = startFrame(MAGIC, header, ENVELOPE_COLUMNS.length * n);
  ENVELOPE_COLUMNS.forEach((name, c) => {
    const col = b.env[name];
    if (col.length !== n) throw new RangeError(`envelope column ${name}: ${col.length} values for ${n} buckets`);
    const at = colsAt + c * n * 8;
    if (littleEndianHost) new Float64Array(ab, at, n).set(col);
    else for (let i = 0; i < n; i++) dv.setFloat64(at + 8 * i, col[i], true);
  });
  return new Uint8Array(ab);
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new ProtocolError(`envelope frame: ${what}`);
}

const isHeader = (v: unknown) =>
  hasFields(v, {
    type: oneOf(['envelope']),
    source: isStr,
    run: isStr,
    role: isStr,
    tag: isStr,
    points: isInt,
    cursor: isCursor,
    width: isInt,
    buckets: isInt,
  });

/**
 * Reads a binary envelope frame; throws ProtocolError when it is malformed. The columns are
 * views of one copy of the frame's bytes (aligned), with no per-value parse.
 */
export function decodeEnvelopeFrame(data: Uint8Array): EnvelopeBatch {
  const { header, dv, colsAt } = readFrameHead(data, MAGIC, 'envelope');
  need(isHeader(header), 'bad header');
  const n = header.buckets;
  need(n >= 0 && header.points >= 0, 'bad bucket or point count');
  need(header.width >= 1 && 2 ** Math.round(Math.log2(header.width)) === header.width, 'width is not a power of two');
  need(data.length === colsAt + ENVELOPE_COLUMNS.length * n * 8, `${data.length} bytes for ${n} buckets`);
  // One copy: the frame's buffer may be a pooled socket buffer, and the store keeps the columns.
  const all = new Float64Array(ENVELOPE_COLUMNS.length * n);
  if (littleEndianHost) new Uint8Array(all.buffer).set(data.subarray(colsAt));
  else for (let i = 0; i < all.length; i++) all[i] = dv.getFloat64(colsAt + 8 * i, true);
  const env = { width: header.width } as EnvelopeArrays;
  ENVELOPE_COLUMNS.forEach((name, c) => (env[name] = all.subarray(c * n, (c + 1) * n)));
  return { type: 'envelope', source: header.source, run: header.run, role: header.role, tag: header.tag, points: header.points, cursor: header.cursor, env };
}
