// The envelope both binary relay frames share (points-frame.ts, envelope-frame.ts): a 4-byte
// magic, the byte length H of a UTF-8 JSON header, the header, zero padding to a multiple of 8,
// then float64 columns (little-endian). Pure (no node modules).
import { ProtocolError } from './messages';

/** Magic + header length. */
const PREFIX = 8;
const pad8 = (n: number) => (n + 7) & ~7;
export const littleEndianHost = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** A frame with its prefix and header written; the caller fills `doubles` float64 values from `colsAt`. */
export function startFrame(magic: number, header: object, doubles: number): { ab: ArrayBuffer; dv: DataView; colsAt: number } {
  const text = new TextEncoder().encode(JSON.stringify(header));
  const colsAt = pad8(PREFIX + text.length);
  const ab = new ArrayBuffer(colsAt + doubles * 8); // zero-filled: the padding is 0
  const dv = new DataView(ab);
  dv.setUint32(0, magic, true);
  dv.setUint32(4, text.length, true);
  new Uint8Array(ab).set(text, PREFIX);
  return { ab, dv, colsAt };
}

/** Reads a frame's prefix and header; throws ProtocolError (`<what> frame: …`) when malformed. */
export function readFrameHead(data: Uint8Array, magic: number, what: string): { header: unknown; dv: DataView; colsAt: number } {
  const need = (cond: boolean, why: string) => {
    if (!cond) throw new ProtocolError(`${what} frame: ${why}`);
  };
  need(data.length >= PREFIX, 'too short');
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  need(dv.getUint32(0, true) === magic, 'bad magic');
  const h = dv.getUint32(4, true);
  need(PREFIX + h <= data.length, 'header past the end');
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(data.subarray(PREFIX, PREFIX + h)));
  } catch {
    need(false, 'header is not JSON');
  }
  return { header, dv, colsAt: pad8(PREFIX + h) };
}

/** The magic of a frame (undefined when shorter than 4 bytes). */
export function frameMagic(data: Uint8Array): number | undefined {
  return data.length < 4 ? undefined : new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true);
}
