// What a row of the experience list carries from inside its experience_bytes (trinity.md §7):
// the numeric `metrics` (a workflow puts its reward function's parts there — accuracy,
// format_score… — and their sum in `reward`, trinity/common/workflows/workflow.py) and, when
// the buffer holds advantages (GRPO computes them in the explorer's pipeline), the advantage:
// the mean of the `advantages` tensor over the action tokens, i.e. the group-normalized score
// for GRPO. Only the pickled metadata and the two small tensors are read, never the tokens.
import { Parser } from 'pickleparser';
import type { WireNumber } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';

export interface ExperienceSummary {
  metrics?: Record<string, WireNumber>;
  advantage?: WireNumber;
}

/** Reads `len` bytes of the same blob from `start` (0-based); undefined when it cannot. */
export type ReadRange = (start: number, len: number) => Uint8Array | undefined;

const HEADER = 4 + 1 + 8 + 8;
/** Larger metadata or tensors are not read for the list (the detail still shows them). */
const MAX_PART = 4 * 1024 * 1024;
const MAX_METRICS = 64;

function bytesAt(head: Buffer, read: ReadRange, start: number, len: number): Buffer | undefined {
  if (len < 0 || len > MAX_PART) return undefined;
  if (start + len <= head.length) return head.subarray(start, start + len);
  const b = read(start, len);
  return b && b.length === len ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : undefined;
}

/** Numeric entries of an experience's `metrics` (booleans count as 0/1). */
export function numericMetrics(m: unknown): Record<string, WireNumber> | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const entries = m instanceof Map ? [...m] : Object.entries(m as Record<string, unknown>);
  const out: Record<string, WireNumber> = {};
  let n = 0;
  for (const [k, v] of entries) {
    if (n >= MAX_METRICS) break;
    if (typeof v === 'number') out[String(k)] = toWireNumber(v);
    else if (typeof v === 'boolean') out[String(k)] = v ? 1 : 0;
    else continue;
    n++;
  }
  return n ? out : undefined;
}

interface TensorInfo {
  dtype: string;
  data_offsets: [number, number];
}

/** BF16 → float through one shared word: a bfloat16 is the top half of a float32. */
const bf16Word = new Uint32Array(1);
const bf16Float = new Float32Array(bf16Word.buffer);

/**
 * The elements of a safetensors tensor (little-endian, as every platform we run on), as one
 * typed array copied in a single memcpy: the relay summarizes up to 100 rows a second and a
 * float-by-float Buffer read was a third of its CPU (issue 16's SQLite budget).
 */
function readFloats(b: Buffer, dtype: string): ArrayLike<number> | undefined {
  const copy = <T extends Float32Array | Float64Array | Uint16Array>(make: (n: number) => T, size: number): T => {
    const out = make(Math.floor(b.length / size));
    new Uint8Array(out.buffer).set(b.subarray(0, out.length * size));
    return out;
  };
  if (dtype === 'F32') return copy((n) => new Float32Array(n), 4);
  if (dtype === 'F64') return copy((n) => new Float64Array(n), 8);
  if (dtype === 'BF16') {
    const raw = copy((n) => new Uint16Array(n), 2);
    const out = new Float32Array(raw.length);
    for (let i = 0; i < raw.length; i++) {
      bf16Word[0] = raw[i] << 16;
      out[i] = bf16Float[0];
    }
    return out;
  }
  if (dtype === 'BOOL' || dtype === 'U8') return b;
  return undefined;
}

/** The advantage of item 0 from the safetensors part starting at `at`. */
function advantageAt(head: Buffer, read: ReadRange, at: number): WireNumber | undefined {
  const lenBytes = bytesAt(head, read, at, 8);
  if (!lenBytes) return undefined;
  const n = Number(lenBytes.readBigUInt64LE(0));
  const json = bytesAt(head, read, at + 8, n);
  if (!json) return undefined;
  let header: Record<string, TensorInfo>;
  try {
    header = JSON.parse(json.toString('utf8')) as Record<string, TensorInfo>;
  } catch {
    return undefined;
  }
  const base = at + 8 + n;
  const tensor = (name: string): ArrayLike<number> | undefined => {
    const t = header[name];
    if (!t || !Array.isArray(t.data_offsets)) return undefined;
    const b = bytesAt(head, read, base + t.data_offsets[0], t.data_offsets[1] - t.data_offsets[0]);
    return b && readFloats(b, t.dtype);
  };
  const adv = tensor('0:advantages');
  if (!adv?.length) return undefined;
  const mask = tensor('0:action_mask');
  let sum = 0;
  let count = 0;
  const masked = mask && mask.length === adv.length ? mask : undefined;
  for (let i = 0; i < adv.length; i++) {
    if (masked && !masked[i]) continue;
    sum += adv[i];
    count++;
  }
  return count ? toWireNumber(sum / count) : undefined;
}

/**
 * The summary of one experience_bytes value from its first bytes (`head`); `total` is its
 * length, `read` fetches further ranges. Empty when the bytes are not Trinity's TRXP format.
 */
export function summarizeExperience(headBytes: Uint8Array, total: number, read: ReadRange): ExperienceSummary {
  const head = Buffer.from(headBytes.buffer, headBytes.byteOffset, headBytes.byteLength);
  if (head.length < HEADER || head.toString('latin1', 0, 4) !== 'TRXP') return {};
  const metaLen = Number(head.readBigUInt64LE(5));
  if (HEADER + metaLen > total) return {};
  const out: ExperienceSummary = {};
  const meta = bytesAt(head, read, HEADER, metaLen);
  if (meta) {
    try {
      const items = (new Parser().parse(meta) as { items?: unknown }).items;
      const metrics = numericMetrics(Array.isArray(items) ? (items[0] as { metrics?: unknown } | undefined)?.metrics : undefined);
      if (metrics) out.metrics = metrics;
    } catch {
      /* not a pickle we can read: no metrics in the list (the detail reports the error) */
    }
  }
  if (HEADER + metaLen + 8 <= total) {
    const adv = advantageAt(head, read, HEADER + metaLen);
    if (adv !== undefined) out.advantage = adv;
  }
  return out;
}
