// Trinity-RFT's experience_bytes (its SQL buffer's row payload), the one place the relay reads
// it: b"TRXP" + version byte + uint64 LE metadata length + uint64 LE tensor length + metadata (a
// pickle of {version, num_items, items: [...]}) + tensors (safetensors); legacy rows are a
// plain pickle of an Experience or a list of them (trinity/common/experience.py,
// Experience.serialize_many / deserialize_many). Two readings:
// - the summary a row of the experience list carries: the numeric `metrics` (a workflow puts
//   its reward function's parts there — accuracy, format_score…) and the advantage, the mean of
//   the `advantages` tensor over the action tokens (only the pickled metadata and two small
//   tensors are read, never the tokens);
// - the detail of one row on request: its first item as JSON (messages, prompt and response
//   text, reward, info, metrics…), tensors left out.
// The bytes are untrusted (anyone who can write the job dir can craft a row): the pickle is read
// as inert data within a budget (pickle.ts), and its conversion to JSON counts every value it
// writes — a value shared by reference counts each time it is expanded — against a budget of
// values and bytes out, so a crafted 1.5 KB row costs bounded time and memory and gives a clear
// error for that row alone.
import type { ExperienceDetail, WireNumber } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';
import { valueText } from '../../base/value-text';
import { asFloat32 } from './safetensors';
import { itemFacts } from './trxp-facts';
import { MAX_INT_BYTES, PickleBudget, PickleError, PyDict, PyGlobal, PyObject, PyOpaque, PyValue, unpickle, unpickleSliced } from './pickle';

/** b"TRXP", the format's first bytes. */
const MAGIC = [0x54, 0x52, 0x58, 0x50];
const HEADER = 4 + 1 + 8 + 8;
/** The fixed header: what tells how much of a row its detail needs (detailBytes). */
export const TRXP_HEAD_BYTES = HEADER;

/** Larger metadata or tensors are not read for the list (the detail still shows them). */
const MAX_SUMMARY_PART = 4 * 1024 * 1024;
/** Larger metadata is not decoded even on request. */
const MAX_DETAIL_META = 16 * 1024 * 1024;
const MAX_METRICS = 64;

/** What converting a decoded row to JSON may cost: values written (shared ones each time), bytes out, depth. */
export interface JsonBudget {
  maxValues: number;
  maxBytes: number;
  /** Deeper values are written as '…'. */
  maxDepth: number;
  /** Longer strings are cut, with their length. */
  maxString: number;
  /** Longer lists and dicts are cut, with their length. */
  maxItems: number;
}

const DETAIL_BUDGET: JsonBudget = { maxValues: 200_000, maxBytes: 8 * 1024 * 1024, maxDepth: 16, maxString: 64 * 1024, maxItems: 2000 };
const PICKLE_BUDGET: PickleBudget = { maxObjects: 1_000_000, maxMarks: 10_000, maxIntBytes: MAX_INT_BYTES };

/** A row whose content is over a budget, or not readable: its message names the row's problem. */
export class RowDecodeError extends Error {}

export interface ExperienceSummary {
  metrics?: Record<string, WireNumber>;
  advantage?: WireNumber;
  /** Tokens of the response (the action mask's length, else the ids past the prompt). */
  response_tokens?: number;
  /** Response tokens trained on (nonzero in the action mask). */
  trained_tokens?: number;
  /** The experience has a truncate_status. */
  truncated?: boolean;
  /** No response token, or a response text of whitespace only. */
  empty_response?: boolean;
  /** The taskset row of the experience's task (Trinity's `info["task_index"]["index"]`). */
  task_index?: number;
  /** Which taskset that row is in (`info["task_index"]["taskset_id"]`), when several are read. */
  taskset_id?: number;
  /** The fingerprint of the response text (`responseHash`), when it has one. */
  response_hash?: string;
}

/** Reads `len` bytes of the same blob from `start` (0-based); undefined when it cannot. */
export type ReadRange = (start: number, len: number) => Uint8Array | undefined;

const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The lengths a row's TRXP header gives. */
interface Layout {
  metaLen: number;
  tensorLen: number;
}

/** The TRXP header of `head` (a row's first bytes), or undefined when the bytes are not that format. */
export function trxpLayout(head: Uint8Array): Layout | undefined {
  if (head.length < HEADER || head[0] !== MAGIC[0] || head[1] !== MAGIC[1] || head[2] !== MAGIC[2] || head[3] !== MAGIC[3]) return undefined;
  return { metaLen: uint64At(head, 5), tensorLen: uint64At(head, 13) };
}

/** The uint64 LE at `at` as a number (as Number(BigInt) gives it: rounded past 2^53). */
function uint64At(b: Uint8Array, at: number): number {
  const lo = (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
  const hi = (b[at + 4] | (b[at + 5] << 8) | (b[at + 6] << 16) | (b[at + 7] << 24)) >>> 0;
  return hi < 0x200000 ? hi * 2 ** 32 + lo : Number((BigInt(hi) << 32n) | BigInt(lo));
}

// ---- the list: metrics and advantage ---------------------------------------------------

function bytesAt(head: Buffer, read: ReadRange, start: number, len: number): Buffer | undefined {
  if (len < 0 || len > MAX_SUMMARY_PART) return undefined;
  if (start + len <= head.length) return head.subarray(start, start + len);
  const b = read(start, len);
  return b && b.length === len ? asBuffer(b) : undefined;
}

/** A number a pickle holds: a float or int, a bool (0/1), or a numpy scalar. */
export function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyObject) return numpyScalar(v);
  return undefined;
}

/**
 * The stable identity of an experience's task: Trinity's workflow runner sets
 * `info["task_index"] = task.index`, a dict {"index": row of the taskset, "taskset_id": …}
 * (file_reader.py, task_scheduler.py); a bare integer is read as the index. `eid.task` is not
 * stable: the scheduler sets it to the task's position in its batch.
 */
export function taskIndexOf(info: unknown): { task_index: number; taskset_id?: number } | undefined {
  const get = (o: unknown, k: string): unknown =>
    o instanceof PyDict
      ? o.get(k)
      : o instanceof Map
        ? o.get(k)
        : typeof o === 'object' && o !== null && !Array.isArray(o)
          ? (o as Record<string, unknown>)[k]
          : undefined;
  const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
  const ti = get(info, 'task_index');
  const direct = int(ti);
  if (direct !== undefined) return { task_index: direct };
  const index = int(get(ti, 'index'));
  if (index === undefined) return undefined;
  const taskset = int(get(ti, 'taskset_id'));
  return taskset === undefined ? { task_index: index } : { task_index: index, taskset_id: taskset };
}

/** Numeric entries of an experience's `metrics` (a JSON object, or a pickled dict); booleans count as 0/1. */
export function numericMetrics(m: unknown): Record<string, WireNumber> | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const entries: [unknown, unknown][] = m instanceof PyDict ? m.entries : m instanceof Map ? [...m] : Object.entries(m as Record<string, unknown>);
  const out: Record<string, WireNumber> = {};
  let n = 0;
  for (const [k, v] of entries) {
    if (n >= MAX_METRICS) break;
    const x = numberOf(v);
    if (x === undefined || typeof k !== 'string') continue;
    out[k] = toWireNumber(x);
    n++;
  }
  return n ? out : undefined;
}

interface TensorInfo {
  dtype: string;
  data_offsets: [number, number];
}

/** The elements of a safetensors tensor as numbers (every dtype torch writes for Trinity's fields: int masks too). */
function readFloats(b: Buffer, dtype: string): ArrayLike<number> | undefined {
  try {
    return asFloat32(b, dtype);
  } catch {
    return undefined; // a dtype not read, or bytes that are not whole elements
  }
}

/** What item 0's tensors say for the list: the advantage (mean over the action tokens), the response length and the trained tokens. */
interface TensorFacts {
  advantage?: WireNumber;
  responseTokens?: number;
  trainedTokens?: number;
}

/** Item 0's tensor facts from the safetensors part starting at `at` (only the header, the mask and the advantages are read). */
function tensorFactsAt(head: Buffer, read: ReadRange, at: number, promptLength: number | undefined): TensorFacts {
  const out: TensorFacts = {};
  const lenBytes = bytesAt(head, read, at, 8);
  if (!lenBytes) return out;
  const n = Number(lenBytes.readBigUInt64LE(0));
  const json = bytesAt(head, read, at + 8, n);
  if (!json) return out;
  let header: Record<string, TensorInfo & { shape?: unknown }>;
  try {
    header = JSON.parse(json.toString('utf8')) as Record<string, TensorInfo & { shape?: unknown }>;
  } catch {
    return out;
  }
  if (!header || typeof header !== 'object') return out;
  const base = at + 8 + n;
  const tensor = (name: string): ArrayLike<number> | undefined => {
    const t = header[name];
    if (!t || !Array.isArray(t.data_offsets)) return undefined;
    const b = bytesAt(head, read, base + t.data_offsets[0], t.data_offsets[1] - t.data_offsets[0]);
    return b && readFloats(b, t.dtype);
  };
  const mask = tensor('0:action_mask');
  const tokensShape = header['0:tokens']?.shape;
  if (mask) {
    out.responseTokens = mask.length;
    let trained = 0;
    for (let i = 0; i < mask.length; i++) if (mask[i] && !Number.isNaN(mask[i])) trained++;
    out.trainedTokens = trained;
  } else if (Array.isArray(tokensShape) && typeof tokensShape[0] === 'number' && promptLength !== undefined) {
    // No mask stored: Trinity trains on the whole response.
    out.responseTokens = out.trainedTokens = Math.max(0, tokensShape[0] - promptLength);
  }
  const adv = tensor('0:advantages');
  if (!adv?.length) return out;
  let sum = 0;
  let count = 0;
  const masked = mask && mask.length === adv.length ? mask : undefined;
  for (let i = 0; i < adv.length; i++) {
    if (masked && (!masked[i] || Number.isNaN(masked[i]))) continue;
    sum += adv[i];
    count++;
  }
  if (count) out.advantage = toWireNumber(sum / count);
  return out;
}

/**
 * Item 0's response length from the safetensors header starting at `at` alone (the shapes of the
 * action mask, else of the tokens past the prompt): no tensor's bytes are read.
 */
function responseTokensAt(head: Buffer, read: ReadRange, at: number, promptLength: number | undefined): number | undefined {
  // The header's length: from the row's first bytes when they hold it (no view made).
  const lenBytes = at + 8 <= head.length ? head : bytesAt(head, read, at, 8);
  if (!lenBytes) return undefined;
  const json = bytesAt(head, read, at + 8, uint64At(lenBytes, lenBytes === head ? at : 0));
  if (!json) return undefined;
  const mask = firstDim(json, ACTION_MASK);
  if (mask !== undefined) return mask;
  const tokens = firstDim(json, TOKENS);
  return tokens !== undefined && promptLength !== undefined ? Math.max(0, tokens - promptLength) : undefined;
}

const SHAPE = Buffer.from('"shape"');
const ACTION_MASK = Buffer.from('"0:action_mask"');
const TOKENS = Buffer.from('"0:tokens"');

/**
 * The first dimension of tensor `name` in a safetensors header (its JSON bytes), found without
 * parsing the whole header: the entry `"name":{…}` holds no nested object, so its "shape" lies
 * before the next '}'. Undefined when the entry or its shape is not there as expected.
 */
function firstDim(json: Buffer, name: Buffer): number | undefined {
  const at = json.indexOf(name);
  if (at < 0) return undefined;
  const close = json.indexOf(0x7d /* } */, at);
  const shape = json.indexOf(SHAPE, at);
  if (shape < 0 || close < 0 || shape > close) return undefined;
  // /^"shape"\s*:\s*\[\s*(\d{1,15})\s*[,\]]/ on the bytes [shape, min(close, shape + 40))
  const end = Math.min(close, shape + 40);
  const ws = (c: number): boolean => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0; // \s of a latin1 text
  let i = shape + SHAPE.length;
  while (i < end && ws(json[i])) i++;
  if (i >= end || json[i] !== 0x3a /* : */) return undefined;
  i++;
  while (i < end && ws(json[i])) i++;
  if (i >= end || json[i] !== 0x5b /* [ */) return undefined;
  i++;
  while (i < end && ws(json[i])) i++;
  let n = 0;
  let digits = 0;
  while (i < end && json[i] >= 0x30 && json[i] <= 0x39) {
    n = n * 10 + (json[i] - 0x30);
    digits++;
    i++;
  }
  if (digits < 1 || digits > 15) return undefined;
  while (i < end && ws(json[i])) i++;
  return i < end && (json[i] === 0x2c /* , */ || json[i] === 0x5d) /* ] */ ? n : undefined;
}

/** Item 0 of TRXP metadata ({version, num_items, items}). */
export function firstItem(meta: PyValue): PyValue | undefined {
  const items = meta instanceof PyDict ? meta.get('items') : undefined;
  return Array.isArray(items) ? items[0] : undefined;
}

/** The value of attribute/key `name` of a pickled item (a dict, or an object's state). */
export function field(item: PyValue | undefined, name: string): PyValue | undefined {
  if (item instanceof PyDict) return item.get(name);
  if (item instanceof PyObject && item.state instanceof PyDict) return item.state.get(name);
  return undefined;
}

/**
 * How much of a row's tensors a summary reads: `facts`, the action mask and the advantages (the
 * advantage, trained tokens); `shapes`, the safetensors header alone (the response length: what
 * the tasks table needs), so a fold over a whole buffer skips every tensor's bytes.
 */
export type SummaryTensors = 'facts' | 'shapes';

/**
 * The summary of one experience_bytes value from its first bytes (`head`); `total` is its
 * length, `read` fetches further ranges. Empty when the bytes are not Trinity's TRXP format;
 * `error` says why the metadata was not read (over the budget, malformed) — the row is listed without it.
 */
export function summarizeExperience(
  headBytes: Uint8Array,
  total: number,
  read: ReadRange,
  tensors: SummaryTensors = 'facts',
): ExperienceSummary & { error?: string; metaBytes: number } {
  const head = asBuffer(headBytes);
  const layout = trxpLayout(head);
  if (!layout || HEADER + layout.metaLen > total) return { metaBytes: 0 };
  const out: ExperienceSummary & { error?: string; metaBytes: number } = { metaBytes: 0 };
  const meta = bytesAt(head, read, HEADER, layout.metaLen);
  // The tasks fold: a plain pickle's facts read without decoding its other texts (trxp-facts.ts).
  const fast = meta && tensors === 'shapes' ? itemFacts(meta, responseHash, responseHashOf) : undefined;
  if (meta && fast) {
    out.metaBytes = meta.length;
    if (fast.metrics) out.metrics = fast.metrics;
    if (fast.task_index !== undefined) out.task_index = fast.task_index;
    if (fast.taskset_id !== undefined) out.taskset_id = fast.taskset_id;
    if (HEADER + layout.metaLen + 8 <= total) {
      const n = responseTokensAt(head, read, HEADER + layout.metaLen, fast.promptLength);
      if (n !== undefined) out.response_tokens = n;
    }
    out.truncated = fast.truncated;
    out.empty_response = out.response_tokens === 0 || fast.response?.blank === true;
    if (fast.response?.hash !== undefined) out.response_hash = fast.response.hash;
    return out;
  }
  let item: PyValue | undefined;
  if (meta) {
    out.metaBytes = meta.length;
    try {
      item = firstItem(unpickle(meta, PICKLE_BUDGET));
      const metrics = numericMetrics(field(item, 'metrics'));
      if (metrics) out.metrics = metrics;
      Object.assign(out, taskIndexOf(field(item, 'info')));
    } catch (e) {
      out.error = (e as Error).message;
    }
  }
  const promptLength = numberOf(field(item, 'prompt_length'));
  if (HEADER + layout.metaLen + 8 <= total && tensors === 'shapes') {
    const n = responseTokensAt(head, read, HEADER + layout.metaLen, promptLength);
    if (n !== undefined) out.response_tokens = n;
  } else if (HEADER + layout.metaLen + 8 <= total) {
    const f = tensorFactsAt(head, read, HEADER + layout.metaLen, promptLength);
    if (f.advantage !== undefined) out.advantage = f.advantage;
    if (f.responseTokens !== undefined) out.response_tokens = f.responseTokens;
    if (f.trainedTokens !== undefined) out.trained_tokens = f.trainedTokens;
  }
  if (item !== undefined && item !== null) {
    const status = field(item, 'truncate_status');
    out.truncated = typeof status === 'string' && status !== '';
    const text = field(item, 'response_text');
    out.empty_response = out.response_tokens === 0 || (typeof text === 'string' && text.trim() === '');
    if (typeof text === 'string' && text.trim() !== '') out.response_hash = responseHash(text);
  }
  return out;
}

/**
 * The fingerprint of a response text, equal for texts that differ only in ASCII case and runs of
 * ASCII whitespace (near-same answers across tasks: the sign of mode collapse): two FNV-1a 32-bit
 * hashes of its UTF-8 bytes so normalized, as 16 hex digits. The Python relay's `response_hash`
 * (trxp.py) computes the same.
 */
export function responseHash(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return responseHashOf(bytes, 0, bytes.length);
}

/** ASCII whitespace in FOLD. */
const WS = 0x100;
/** The byte each byte is hashed as: ASCII upper case folded to lower; WS for ASCII whitespace. */
const FOLD = new Uint16Array(256).map((_, c) => (c === 32 || (c >= 9 && c <= 13) ? WS : c >= 65 && c <= 90 ? c + 32 : c));
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex8 = (x: number): string => HEX[(x >>> 24) & 255] + HEX[(x >>> 16) & 255] + HEX[(x >>> 8) & 255] + HEX[x & 255];

/** responseHash of the UTF-8 text in bytes [start, end) of `bytes` (the same fingerprint, with no string made). */
export function responseHashOf(bytes: Uint8Array, start: number, end: number): string {
  // On the UTF-8 bytes: an ASCII byte is never part of a multi-byte character, so folding ASCII
  // bytes is folding ASCII characters. Leading and trailing whitespace count for nothing, a run
  // of it inside for one space.
  let a = 0x811c9dc5 | 0;
  let b = 0x050c5d1f;
  let i = start;
  while (i < end && FOLD[bytes[i]] === WS) i++;
  let space = false;
  for (; i < end; i++) {
    const c = FOLD[bytes[i]];
    if (c === WS) {
      space = true;
      continue;
    }
    if (space) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x01000193);
      space = false;
    }
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return hex8(a) + hex8(b);
}

// ---- the detail: one row as JSON -------------------------------------------------------

/**
 * How many leading bytes of a row's experience_bytes (`head`: its first TRXP_HEAD_BYTES,
 * `total`: its length) its detail needs — TRXP's header and metadata, never its tensors; a legacy
 * pickle whole — or why it is not read (over the limit).
 */
export function detailBytes(head: Uint8Array, total: number): number | string {
  const layout = trxpLayout(head);
  const need = layout ? HEADER + layout.metaLen : total;
  if (need - (layout ? HEADER : 0) > MAX_DETAIL_META) return `${need} bytes of experience metadata, over the ${MAX_DETAIL_META}-byte limit`;
  return Math.min(need, total);
}

/** Decodes one row's experience_bytes into the JSON of its first item (pickle read in slices). */
export async function decodeExperienceBytes(bytes: Uint8Array): Promise<ExperienceDetail> {
  const buf = asBuffer(bytes);
  const layout = trxpLayout(buf);
  let value: PyValue | undefined;
  try {
    if (layout) {
      if (layout.metaLen > buf.length - HEADER) throw new RowDecodeError(`experience bytes truncated (${buf.length} bytes, metadata ${layout.metaLen})`);
      if (layout.metaLen > MAX_DETAIL_META)
        throw new RowDecodeError(`experience metadata of ${layout.metaLen} bytes is over the ${MAX_DETAIL_META}-byte limit`);
      const meta = await unpickleSliced(buf.subarray(HEADER, HEADER + layout.metaLen), PICKLE_BUDGET);
      value = firstItem(meta) ?? meta;
    } else {
      if (buf.length > MAX_DETAIL_META) throw new RowDecodeError(`a legacy experience of ${buf.length} bytes is over the ${MAX_DETAIL_META}-byte limit`);
      value = await unpickleSliced(buf, PICKLE_BUDGET);
      if (Array.isArray(value)) value = value[0];
    }
  } catch (e) {
    if (e instanceof PickleError) throw new RowDecodeError(`cannot unpickle the experience: ${e.message}`);
    throw e;
  }
  const out = boundedJson(value ?? null, DETAIL_BUDGET);
  return typeof out === 'object' && out !== null && !Array.isArray(out) ? (out as ExperienceDetail) : { value: out };
}

/** A JSON value (already parsed, e.g. a JSON-lines row) held to the same budget as a decoded row. */
export function boundedJsonOf(v: unknown, budget: JsonBudget = DETAIL_BUDGET): unknown {
  return boundedJson(v, budget);
}

/** The number a numpy scalar pickle holds (`numpy.core.multiarray.scalar(dtype, raw bytes)`), if it is one. */
function numpyScalar(o: PyObject): number | undefined {
  if (!(o.cls instanceof PyGlobal) || o.cls.name !== 'scalar' || !o.cls.module.startsWith('numpy')) return undefined;
  const [dtype, raw] = o.args;
  if (!(dtype instanceof PyObject) || !(raw instanceof Uint8Array)) return undefined;
  const code = dtype.args[0];
  if (typeof code !== 'string') return undefined;
  const order = Array.isArray(dtype.state) && dtype.state[1] === '>' ? false : true;
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const kind = code.replace(/^[<>=|]/, '');
  try {
    switch (kind) {
      case 'f8':
        return v.getFloat64(0, order);
      case 'f4':
        return v.getFloat32(0, order);
      case 'i8':
      case 'u8': {
        const n = kind === 'i8' ? v.getBigInt64(0, order) : v.getBigUint64(0, order);
        return Number(n);
      }
      case 'i4':
        return v.getInt32(0, order);
      case 'u4':
        return v.getUint32(0, order);
      case 'i2':
        return v.getInt16(0, order);
      case 'u2':
        return v.getUint16(0, order);
      case 'i1':
        return v.getInt8(0);
      case 'u1':
      case 'b1':
        return v.getUint8(0);
      default:
        return undefined;
    }
  } catch {
    return undefined; // fewer bytes than the dtype needs
  }
}

/** A short name for a dict key that is not a string (keys of JSON objects are strings). */
function keyName(k: unknown): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'number' || typeof k === 'bigint' || typeof k === 'boolean' || k === null) return String(k);
  if (k instanceof PyGlobal) return k.qualified;
  return Array.isArray(k) ? `<tuple of ${k.length}>` : '<object>';
}

/**
 * `v` as JSON within `budget`: every value written counts (a shared one each time it is
 * expanded), strings count their length in bytes out; over either bound it throws
 * RowDecodeError. Non-finite numbers are WireNumber strings, bytes are "<N bytes>", objects
 * their state (or items), a value that contains itself "<cycle>".
 */
function boundedJson(v: unknown, budget: JsonBudget): unknown {
  let values = 0;
  let bytes = 0;
  const onPath = new Set<object>();
  const over = (what: string): never => {
    throw new RowDecodeError(`the experience expands to more than ${what} (shared references are counted each time they are used): not shown`);
  };
  const count = (n: number): void => {
    if (++values > budget.maxValues) over(`${budget.maxValues} values`);
    bytes += n;
    if (bytes > budget.maxBytes) over(`${budget.maxBytes} bytes`);
  };
  /** A leaf's JSON, counted. */
  const leaf = <T>(value: T, size: number): T => {
    count(size);
    return value;
  };
  const visit = (x: unknown, depth: number): unknown => {
    if (x === null || x === undefined) return leaf(null, 4);
    if (typeof x === 'number') return leaf(Number.isFinite(x) ? x : toWireNumber(x), 8);
    if (typeof x === 'boolean') return leaf(x, 5);
    if (typeof x === 'bigint') return leaf(x.toString(), 20);
    if (typeof x === 'string') {
      const s = x.length > budget.maxString ? `${x.slice(0, budget.maxString)}… (${x.length} chars)` : x;
      return leaf(s, s.length + 2);
    }
    if (x instanceof Uint8Array) return leaf(`<${x.length} bytes>`, 16);
    if (x instanceof PyGlobal) return leaf(`<${x.qualified}>`, x.qualified.length);
    if (x instanceof PyOpaque) return leaf(`<${x.what}>`, 16);
    if (depth > budget.maxDepth) return leaf('…', 3);
    if (typeof x !== 'object') return leaf(valueText(x), 8);
    if (onPath.has(x)) return leaf('<cycle>', 8);
    onPath.add(x);
    try {
      count(2);
      if (x instanceof PyObject) {
        const n = numpyScalar(x);
        if (n !== undefined) return Number.isFinite(n) ? n : toWireNumber(n);
        const inner = x.dict ?? x.list ?? x.state;
        if (inner !== undefined) return visit(inner, depth);
        return x.cls instanceof PyGlobal ? `<${x.cls.qualified}>` : '<object>';
      }
      if (Array.isArray(x)) {
        const out = x.slice(0, budget.maxItems).map((y) => visit(y, depth + 1));
        if (x.length > budget.maxItems) out.push(`… (${x.length} items)`);
        return out;
      }
      const entries: [unknown, unknown][] = x instanceof PyDict ? x.entries : x instanceof Map ? [...x] : Object.entries(x as Record<string, unknown>);
      const out: Record<string, unknown> = {};
      for (const [k, y] of entries.slice(0, budget.maxItems)) {
        const name = keyName(k);
        count(name.length);
        // A key named __proto__ is a key like any other, never the object's prototype.
        Object.defineProperty(out, name, { value: visit(y, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      if (entries.length > budget.maxItems) out['…'] = `${entries.length} entries`;
      return out;
    } finally {
      onPath.delete(x);
    }
  };
  return visit(v, 0);
}
