// A points batch (PointsBatch: grouped by tag, typed columns) to and from the binary points
// frame (layout in messages.ts), which a client turns into columns without a per-point object
// or a parse of each number. Pure (no node modules): the relay and the client both use it.
import type { PointsBatch, TagPoints } from './messages';
import { ProtocolError, isCursor } from './messages';
import { arrayOf, hasFields, isInt, isStr, oneOf } from '../base/validate';
import { littleEndianHost, readFrameHead, startFrame } from './binary-frame';

/** "ARP1" as a little-endian uint32. */
export const POINTS_MAGIC = 0x31505241;
const BYTES_PER_POINT = 24;

/** Points in a batch. */
export function pointCount(b: PointsBatch): number {
  let n = 0;
  for (const s of b.series) n += s.step.length;
  return n;
}

/** One Float64Array of 3 × n laid out as the frame's columns, cut into per-tag views. */
export function seriesViews(tags: readonly string[], counts: readonly number[], f: Float64Array): TagPoints[] {
  let at = 0;
  return tags.map((tag, t) => {
    const k = counts[t];
    const s = { tag, step: f.subarray(at, at + k), wallTime: f.subarray(at + k, at + 2 * k), value: f.subarray(at + 2 * k, at + 3 * k) };
    at += 3 * k;
    return s;
  });
}

export function encodePointsFrame(b: PointsBatch): Uint8Array {
  const header = {
    type: 'points',
    source: b.source,
    run: b.run,
    role: b.role,
    tags: b.series.map((s) => s.tag),
    counts: b.series.map((s) => s.step.length),
    cursor: b.cursor,
  };
  const n = pointCount(b);
  const { ab, dv, colsAt } = startFrame(POINTS_MAGIC, header, n * 3);
  let at = 0;
  if (littleEndianHost) {
    const f = new Float64Array(ab, colsAt, n * 3);
    for (const s of b.series) {
      for (const col of [s.step, s.wallTime, s.value]) {
        f.set(col, at);
        at += col.length;
      }
    }
  } else {
    for (const s of b.series)
      for (const col of [s.step, s.wallTime, s.value]) for (let i = 0; i < col.length; i++) dv.setFloat64(colsAt + 8 * at++, col[i], true);
  }
  return new Uint8Array(ab);
}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new ProtocolError(`points frame: ${what}`);
}

const isHeader = (v: unknown) =>
  hasFields(v, { type: oneOf(['points']), source: isStr, run: isStr, role: isStr, tags: arrayOf(isStr), counts: arrayOf(isInt), cursor: isCursor });

/**
 * Reads a binary points frame; throws ProtocolError when it is malformed. The columns are views
 * of the frame's own bytes when they are 8-byte aligned (else one copy): no per-point work.
 */
export function decodePointsFrame(data: Uint8Array): PointsBatch {
  const { header, dv, colsAt } = readFrameHead(data, POINTS_MAGIC, 'points');
  need(isHeader(header), 'bad header');
  const { tags, counts } = header;
  need(counts.length === tags.length && counts.every((c) => c >= 0), 'bad counts');
  const n = counts.reduce((a, c) => a + c, 0);
  need(data.length === colsAt + n * BYTES_PER_POINT, `${data.length} bytes for ${n} points`);
  let f: Float64Array;
  if (littleEndianHost && (data.byteOffset + colsAt) % 8 === 0) f = new Float64Array(data.buffer, data.byteOffset + colsAt, n * 3);
  else if (littleEndianHost) {
    const copy = new Uint8Array(n * BYTES_PER_POINT); // (a Buffer's slice() would be a view)
    copy.set(data.subarray(colsAt));
    f = new Float64Array(copy.buffer);
  } else {
    f = new Float64Array(n * 3);
    for (let i = 0; i < f.length; i++) f[i] = dv.getFloat64(colsAt + 8 * i, true);
  }
  return { type: 'points', source: header.source, run: header.run, role: header.role, series: seriesViews(tags, counts, f), cursor: header.cursor };
}
