// The value of a scalar written as a tensor (TF2 summaries, torch.utils.tensorboard with
// new_style): any numeric dtype of one element, from tensor_content or the typed value
// fields; and, for float and double tensors, where in the record that value lies (a hole of
// a learned shape, event-shapes.ts).
import type * as protobuf from 'protobufjs';
import { DataType, TensorMsg, TensorType, WIRE_I32, WIRE_I64, WIRE_LEN, wireKey } from './event-proto';

const NUMERIC = new Set<number>([
  DataType.DT_FLOAT,
  DataType.DT_DOUBLE,
  DataType.DT_HALF,
  DataType.DT_BFLOAT16,
  DataType.DT_INT32,
  DataType.DT_INT64,
  DataType.DT_INT16,
  DataType.DT_INT8,
  DataType.DT_UINT8,
  DataType.DT_UINT16,
  DataType.DT_UINT32,
  DataType.DT_UINT64,
  DataType.DT_BOOL,
]);

function halfToNumber(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/** The value of a 0-d (or single-element) numeric tensor, or undefined. */
export function tensorScalar(t: TensorMsg): number | undefined {
  const dtype = t.dtype ?? 0;
  if (!NUMERIC.has(dtype)) return undefined;
  const dims = t.tensor_shape?.dim ?? [];
  if (dims.some((d) => (d.size ?? 0) !== 1)) return undefined;
  const c = t.tensor_content;
  if (c && c.length > 0) {
    const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    switch (dtype) {
      case DataType.DT_FLOAT:
        return b.length === 4 ? b.readFloatLE(0) : undefined;
      case DataType.DT_DOUBLE:
        return b.length === 8 ? b.readDoubleLE(0) : undefined;
      case DataType.DT_HALF:
        return b.length === 2 ? halfToNumber(b.readUInt16LE(0)) : undefined;
      case DataType.DT_BFLOAT16: {
        if (b.length !== 2) return undefined;
        const f = Buffer.alloc(4);
        f.writeUInt16LE(b.readUInt16LE(0), 2);
        return f.readFloatLE(0);
      }
      case DataType.DT_INT32:
        return b.length === 4 ? b.readInt32LE(0) : undefined;
      case DataType.DT_INT64:
        return b.length === 8 ? Number(b.readBigInt64LE(0)) : undefined;
      case DataType.DT_UINT64:
        return b.length === 8 ? Number(b.readBigUInt64LE(0)) : undefined;
      case DataType.DT_UINT32:
        return b.length === 4 ? b.readUInt32LE(0) : undefined;
      case DataType.DT_INT16:
        return b.length === 2 ? b.readInt16LE(0) : undefined;
      case DataType.DT_UINT16:
        return b.length === 2 ? b.readUInt16LE(0) : undefined;
      case DataType.DT_INT8:
        return b.length === 1 ? b.readInt8(0) : undefined;
      case DataType.DT_UINT8:
        return b.length === 1 ? b.readUInt8(0) : undefined;
      case DataType.DT_BOOL:
        return b.length === 1 ? (b[0] ? 1 : 0) : undefined;
      default:
        return undefined;
    }
  }
  const first = <T>(a: T[] | undefined) => (a && a.length > 0 ? a[0] : undefined);
  switch (dtype) {
    case DataType.DT_FLOAT:
      return first(t.float_val);
    case DataType.DT_DOUBLE:
      return first(t.double_val);
    case DataType.DT_HALF:
    case DataType.DT_BFLOAT16: {
      const h = first(t.half_val);
      if (h === undefined) return undefined;
      if (dtype === DataType.DT_HALF) return halfToNumber(h);
      const f = Buffer.alloc(4);
      f.writeUInt16LE(h & 0xffff, 2);
      return f.readFloatLE(0);
    }
    case DataType.DT_INT64:
      return first(t.int64_val);
    case DataType.DT_UINT64:
      return first(t.uint64_val);
    case DataType.DT_UINT32:
      return first(t.uint32_val);
    case DataType.DT_BOOL: {
      const v = first(t.bool_val);
      return v === undefined ? undefined : v ? 1 : 0;
    }
    default:
      return first(t.int_val);
  }
}

const TEN_CONTENT = wireKey(TensorType, 'tensor_content', WIRE_LEN);
const TEN_FLOAT_PACKED = wireKey(TensorType, 'float_val', WIRE_LEN);
const TEN_FLOAT = wireKey(TensorType, 'float_val', WIRE_I32);
const TEN_DOUBLE_PACKED = wireKey(TensorType, 'double_val', WIRE_LEN);
const TEN_DOUBLE = wireKey(TensorType, 'double_val', WIRE_I64);

/**
 * Where in tensor bytes [start, end) the value tensorScalar() took lies, for a float or double
 * tensor (a shape hole); undefined for any other encoding. Walks the fields with the Reader.
 */
export function locateTensorValue(r: protobuf.Reader, start: number, end: number, t: TensorMsg): { pos: number; wide: boolean } | undefined {
  const c = t.tensor_content;
  const fromContent = c !== undefined && c.length > 0;
  let content = -1;
  let first = -1;
  r.pos = start;
  r.len = end;
  while (r.pos < end) {
    const k = r.uint32();
    if (k === TEN_CONTENT) {
      const n = r.uint32();
      content = n === (t.dtype === DataType.DT_DOUBLE ? 8 : 4) ? r.pos : -1; // the last one counts
      r.pos += n;
    } else if ((k === TEN_FLOAT_PACKED && t.dtype === DataType.DT_FLOAT) || (k === TEN_DOUBLE_PACKED && t.dtype === DataType.DT_DOUBLE)) {
      const n = r.uint32();
      if (first < 0 && n > 0) first = r.pos;
      r.pos += n;
    } else if ((k === TEN_FLOAT && t.dtype === DataType.DT_FLOAT) || (k === TEN_DOUBLE && t.dtype === DataType.DT_DOUBLE)) {
      if (first < 0) first = r.pos;
      r.skipType(k & 7);
    } else r.skipType(k & 7);
  }
  const pos = fromContent ? content : first;
  if (pos < 0 || (t.dtype !== DataType.DT_FLOAT && t.dtype !== DataType.DT_DOUBLE)) return undefined;
  return { pos, wide: t.dtype === DataType.DT_DOUBLE };
}
