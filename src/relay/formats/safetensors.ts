// The tensors part of a TRXP row (safetensors: uint64 LE header length, a JSON header
// {"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__"?}, then the data),
// read from untrusted bytes: the header is held to a size, every tensor's offsets to the data and
// its byte length to its dtype and shape, and its element count to a cap, so a crafted row costs
// a bounded read and gives a clear error. Element conversion is one pass per tensor: the dtypes
// torch writes for Trinity's fields (int64/int32 ids, bool/int masks, float32/bfloat16/float16/
// float64 values) to the types the wire carries.

/** A tensors header larger than this is not read. */
export const MAX_TENSOR_HEADER = 1024 * 1024;

/** Bytes per element of the dtypes read here. */
const DTYPE_SIZE: Record<string, number> = { BOOL: 1, U8: 1, I8: 1, I16: 2, U16: 2, I32: 4, U32: 4, I64: 8, U64: 8, F16: 2, BF16: 2, F32: 4, F64: 8 };

export interface TensorEntry {
  dtype: string;
  /** Elements (the product of the shape). */
  count: number;
  /** Byte offsets within the data part. */
  begin: number;
  end: number;
}

export class TensorError extends Error {}

/**
 * The entries of a safetensors header (`json`: its UTF-8 bytes) that `wanted` names, checked
 * against `dataBytes` (the data part's length) and `maxElements`. Throws TensorError.
 */
export function tensorEntries(json: Uint8Array, dataBytes: number, wanted: readonly string[], maxElements: number): Map<string, TensorEntry> {
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch {
    throw new TensorError('the tensors header is not JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new TensorError('the tensors header is not an object');
  const out = new Map<string, TensorEntry>();
  for (const name of wanted) {
    if (!Object.prototype.hasOwnProperty.call(header, name)) continue;
    const t = (header as Record<string, unknown>)[name] as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    const what = `tensor ${name}`;
    if (typeof t !== 'object' || t === null) throw new TensorError(`${what}: not an entry`);
    const size = typeof t.dtype === 'string' ? DTYPE_SIZE[t.dtype] : undefined;
    if (!size) throw new TensorError(`${what}: dtype ${String(t.dtype).slice(0, 20)} is not read`);
    const shape = t.shape;
    if (!Array.isArray(shape) || shape.length > 8 || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0))
      throw new TensorError(`${what}: bad shape`);
    // A token array is one sequence: a [2, n] tensor (two sequences, a batch) is not read as one.
    if (shape.length > 1) throw new TensorError(`${what}: shape [${shape.join(', ')}] has ${shape.length} dimensions, not one sequence`);
    const count = (shape as number[]).reduce((a, b) => a * b, 1);
    if (count > maxElements) throw new TensorError(`${what}: ${count} elements, over the ${maxElements}-element limit`);
    const offs = t.data_offsets;
    if (!Array.isArray(offs) || offs.length !== 2 || !offs.every((o) => Number.isSafeInteger(o))) throw new TensorError(`${what}: bad data_offsets`);
    const [begin, end] = offs as [number, number];
    if (begin < 0 || end < begin || end > dataBytes) throw new TensorError(`${what}: data_offsets [${begin}, ${end}] outside the ${dataBytes} data bytes`);
    if (end - begin !== count * size) throw new TensorError(`${what}: ${end - begin} bytes for ${count} ${String(t.dtype)} elements`);
    out.set(name, { dtype: t.dtype as string, count, begin, end });
  }
  return out;
}

/** A tensor's little-endian bytes as a view of the right type (one aligned copy). */
function view(b: Uint8Array, dtype: string): ArrayLike<number> | BigInt64Array | BigUint64Array {
  const size = DTYPE_SIZE[dtype];
  if (!size) throw new TensorError(`dtype ${dtype} is not read`);
  // Aligned, owned (the source may be a pooled buffer), and whole elements only.
  const copy = new Uint8Array(b.subarray(0, b.length - (b.length % size)));
  const ab = copy.buffer;
  switch (dtype) {
    case 'BOOL':
    case 'U8':
      return copy;
    case 'I8':
      return new Int8Array(ab);
    case 'I16':
      return new Int16Array(ab);
    case 'U16':
      return new Uint16Array(ab);
    case 'I32':
      return new Int32Array(ab);
    case 'U32':
      return new Uint32Array(ab);
    case 'I64':
      return new BigInt64Array(ab);
    case 'U64':
      return new BigUint64Array(ab);
    case 'F32':
      return new Float32Array(ab);
    case 'F64':
      return new Float64Array(ab);
    case 'BF16':
    case 'F16': {
      const raw = new Uint16Array(ab);
      const out = new Float32Array(raw.length);
      const conv = dtype === 'BF16' ? bf16 : f16;
      for (let i = 0; i < raw.length; i++) out[i] = conv(raw[i]);
      return out;
    }
    default:
      throw new TensorError(`dtype ${dtype} is not read`);
  }
}

const word = new Uint32Array(1);
const wordFloat = new Float32Array(word.buffer);
/** A bfloat16 is the top half of a float32. */
function bf16(h: number): number {
  word[0] = h << 16;
  return wordFloat[0];
}
/** IEEE half precision. */
function f16(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Float values (float32 on the wire) of any numeric tensor. */
export function asFloat32(b: Uint8Array, dtype: string): Float32Array {
  const v = view(b, dtype);
  if (v instanceof Float32Array) return v;
  if (v instanceof BigInt64Array || v instanceof BigUint64Array) return Float32Array.from(v, (x) => Number(x));
  return Float32Array.from(v);
}

/** Token ids (int32 on the wire) of an integer tensor; an id outside int32 is an error. */
export function asInt32(b: Uint8Array, dtype: string, what: string): Int32Array {
  if (dtype.startsWith('F') || dtype === 'BF16') throw new TensorError(`${what}: ids of dtype ${dtype}`);
  const v = view(b, dtype);
  if (v instanceof Int32Array) return v;
  const out = new Int32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = typeof v[i] === 'bigint' ? Number(v[i]) : (v[i] as number);
    if (x < -0x80000000 || x > 0x7fffffff) throw new TensorError(`${what}: id ${String(v[i])} at ${i} does not fit 32 bits`);
    out[i] = x;
  }
  return out;
}

/** A mask (uint8 0/1 on the wire) of a bool, integer or float tensor: nonzero is 1. */
export function asMask(b: Uint8Array, dtype: string): Uint8Array {
  const v = view(b, dtype);
  const out = new Uint8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] ? 1 : 0; // 0n is falsy too; NaN is 0
  return out;
}
