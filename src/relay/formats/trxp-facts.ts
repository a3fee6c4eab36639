// The facts of a TRXP row's first item the tasks fold needs — its numeric metrics, its taskset
// row (info["task_index"]), its prompt length, whether it has a truncate status, and its
// response text's fingerprint — read from the pickled metadata as Python's pickle.dumps writes a
// dict of plain values (protocols 2–5), without decoding the texts it does not need (the prompt,
// the messages): a pass over a 500 k-row buffer decodes each row's metadata in a few
// microseconds. The same facts as trxp.ts's summary reads through the general reader
// (pickle.ts) — that reader serves whatever this one does not know (an object, a numpy scalar,
// a long integer, a pickle over a budget): `undefined` here means "ask it".
import type { WireNumber } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';

// The pickle's values live in one arena of typed columns, reused from row to row: a value is
// its index there (a pass over a big buffer makes no garbage per opcode). Dicts and lists are
// chains of entries in insertion order (a key set twice is there twice, as pickle.ts keeps it);
// a value shared by reference (the memo) is the same index, so a dict filled after it was
// shared is filled for every holder.
const NONE = 0;
const TRUE = 1;
const FALSE = 2;
/** Bytes (BINBYTES): a value that is no number, text or container. */
const BYTES = 3;
const K_NULL = 0;
const K_TRUE = 1;
const K_FALSE = 2;
const K_BYTES = 3;
const K_NUM = 4;
/** A text: its UTF-8 bytes [a, b) of the pickle, decoded only when asked. */
const K_STR = 5;
/** A dict: its entries' chain from a to b (−1: none). */
const K_DICT = 6;
/** A list or tuple: its entries' chain from a to b (−1: none). */
const K_LIST = 7;
/** Columns this large at most are kept between rows (a larger pickle's are dropped after it). */
const KEEP = 1 << 16;

let kind = new Uint8Array(1024);
let num = new Float64Array(1024);
let ca: Int32Array = new Int32Array(1024);
let cb: Int32Array = new Int32Array(1024);
let values = 4;
/** Entries: key (−1 in a list), value, next (−1: last). */
let ek: Int32Array = new Int32Array(1024);
let ev: Int32Array = new Int32Array(1024);
let en: Int32Array = new Int32Array(1024);
let entries = 0;
let stack: Int32Array = new Int32Array(1024);
let memo: Int32Array = new Int32Array(1024);
const marks = new Int32Array(10_000);
const EMPTY = new Uint8Array(0);
/** The pickle being read (what a text's bytes index). */
let data: Uint8Array = EMPTY;
kind.set([K_NULL, K_TRUE, K_FALSE, K_BYTES]);

const grownI = (a: Int32Array, n: number): Int32Array => {
  const b = new Int32Array(Math.max(2 * a.length, n));
  b.set(a);
  return b;
};

function value(k: number, x = 0, a = -1, b = -1): number {
  if (values === kind.length) {
    const k2 = new Uint8Array(2 * values);
    k2.set(kind);
    kind = k2;
    const n2 = new Float64Array(2 * values);
    n2.set(num);
    num = n2;
    ca = grownI(ca, 2 * values);
    cb = grownI(cb, 2 * values);
  }
  kind[values] = k;
  num[values] = x;
  ca[values] = a;
  cb[values] = b;
  return values++;
}

/** Appends entry (key, v) to the dict or list `c`. */
function entry(c: number, key: number, v: number): void {
  if (entries === ek.length) {
    ek = grownI(ek, 0);
    ev = grownI(ev, 0);
    en = grownI(en, 0);
  }
  ek[entries] = key;
  ev[entries] = v;
  en[entries] = -1;
  if (cb[c] >= 0) en[cb[c]] = entries;
  else ca[c] = entries;
  cb[c] = entries++;
}

/** Drops columns a large pickle grew (the next rows need a few hundred values). */
function release(): void {
  data = EMPTY;
  if (kind.length > KEEP) {
    kind = new Uint8Array(1024);
    kind.set([K_NULL, K_TRUE, K_FALSE, K_BYTES]);
    num = new Float64Array(1024);
    ca = new Int32Array(1024);
    cb = new Int32Array(1024);
  }
  if (ek.length > KEEP) {
    ek = new Int32Array(1024);
    ev = new Int32Array(1024);
    en = new Int32Array(1024);
  }
  if (stack.length > KEEP) stack = new Int32Array(1024);
  if (memo.length > KEEP) memo = new Int32Array(1024);
}

/** Whether value `v` is the text `key` (an ASCII name). */
function isKey(v: number, key: string): boolean {
  if (kind[v] !== K_STR) return false;
  const start = ca[v];
  if (cb[v] - start !== key.length) return false;
  for (let i = 0; i < key.length; i++) if (data[start + i] !== key.charCodeAt(i)) return false;
  return true;
}

/** The value of ASCII key `key` in dict `d` (the last one set), −1 when none. */
function get(d: number, key: string): number {
  let found = -1;
  for (let e = ca[d]; e >= 0; e = en[e]) if (isKey(ek[e], key)) found = ev[e];
  return found;
}

const text = (v: number): string => utf8.decode(data.subarray(ca[v], cb[v]));

/** Metric names seen (ASCII): a name is made once, not once a row. */
const names: string[] = [];
const MAX_NAMES = 64;

/** Text value `v` as a string, from the names seen when it is one of them. */
function name(v: number): string {
  for (const n of names) if (isKey(v, n)) return n;
  const s = text(v);
  // eslint-disable-next-line no-control-regex
  if (names.length < MAX_NAMES && /^[\x00-\x7f]*$/.test(s)) names.push(s);
  return s;
}

const utf8 = new TextDecoder('utf-8');
/** As pickle.ts's budget for the summary: a pickle past them is that reader's to refuse. */
const MAX_OBJECTS = 1_000_000;
const MAX_MARKS = 10_000;
const MAX_STACK = 100_000;
const MAX_METRICS = 64;

/** Not a pickle this reader knows: the general reader decides. */
const UNKNOWN = new Error('not a plain pickle');

/** The pickle's value (an index of the arena), or −1 when it uses what this reader does not know. */
function read(d: Uint8Array): number {
  try {
    return walk(d);
  } catch (e) {
    if (e === UNKNOWN) return -1;
    throw e;
  }
}

/** Grows the stack for one more value past `sp`. */
function roomAt(sp: number): Int32Array {
  if (sp === stack.length) stack = grownI(stack, 0);
  return stack;
}

/**
 * read's loop, in one function with its state in locals (no closure: a pass over a buffer runs
 * it a hundred times a row). Throws UNKNOWN for what it does not know.
 */
function walk(d: Uint8Array): number {
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  const len = d.length;
  data = d;
  values = 4;
  entries = 0;
  let st = stack;
  let sp = 0;
  /** Where the values after the last MARK start. */
  let base = 0;
  let nMarks = 0;
  let nMemo = 0;
  let objects = 0;
  let pos = 0;
  for (;;) {
    if (pos + 1 > len) throw UNKNOWN;
    const code = d[pos++];
    let v: number; // the value the opcode pushes (−1: none)
    switch (code) {
      case 0x80: // PROTO
        if (pos + 1 > len) throw UNKNOWN;
        if (d[pos++] > 5) throw UNKNOWN;
        continue;
      case 0x95: // FRAME (a length past 2^53 is refused by the general reader)
        if (pos + 8 > len) throw UNKNOWN;
        if (view.getUint32(pos + 4, true) >= 2 ** 21) throw UNKNOWN;
        pos += 8;
        continue;
      case 0x2e: // STOP
        if (sp === base) throw UNKNOWN;
        return st[sp - 1];
      case 0x28: // MARK
        if (nMarks >= MAX_MARKS) throw UNKNOWN;
        marks[nMarks++] = sp;
        base = sp;
        continue;
      case 0x30: // POP
        if (sp === base) throw UNKNOWN;
        sp--;
        continue;
      case 0x4e: // NONE
        v = NONE;
        break;
      case 0x88: // NEWTRUE
        v = TRUE;
        break;
      case 0x89: // NEWFALSE
        v = FALSE;
        break;
      case 0x4a: // BININT
        if (pos + 4 > len) throw UNKNOWN;
        v = value(K_NUM, view.getInt32(pos, true));
        pos += 4;
        break;
      case 0x4b: // BININT1
        if (pos + 1 > len) throw UNKNOWN;
        v = value(K_NUM, d[pos++]);
        break;
      case 0x4d: // BININT2
        if (pos + 2 > len) throw UNKNOWN;
        v = value(K_NUM, d[pos] | (d[pos + 1] << 8));
        pos += 2;
        break;
      case 0x47: // BINFLOAT
        if (pos + 8 > len) throw UNKNOWN;
        v = value(K_NUM, view.getFloat64(pos, false));
        pos += 8;
        break;
      case 0x8c: // SHORT_BINUNICODE
      case 0x58: {
        // BINUNICODE
        let n: number;
        if (code === 0x8c) {
          if (pos + 1 > len) throw UNKNOWN;
          n = d[pos++];
        } else {
          if (pos + 4 > len) throw UNKNOWN;
          n = view.getUint32(pos, true);
          pos += 4;
        }
        if (pos + n > len) throw UNKNOWN;
        const p = pos;
        pos += n;
        // A text that starts with a byte-order mark decodes without it: the general reader compares those.
        if (n >= 3 && d[p] === 0xef && d[p + 1] === 0xbb && d[p + 2] === 0xbf) throw UNKNOWN;
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        v = value(K_STR, 0, p, p + n);
        break;
      }
      case 0x43: // SHORT_BINBYTES
      case 0x42: {
        // BINBYTES
        let n: number;
        if (code === 0x43) {
          if (pos + 1 > len) throw UNKNOWN;
          n = d[pos++];
        } else {
          if (pos + 4 > len) throw UNKNOWN;
          n = view.getUint32(pos, true);
          pos += 4;
        }
        if (pos + n > len) throw UNKNOWN;
        pos += n;
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        v = BYTES;
        break;
      }
      case 0x7d: // EMPTY_DICT
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        v = value(K_DICT);
        break;
      case 0x5d: // EMPTY_LIST
      case 0x29: // EMPTY_TUPLE
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        v = value(K_LIST);
        break;
      case 0x64: // DICT
      case 0x6c: // LIST
      case 0x74: {
        // TUPLE: the values since the last MARK
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        v = value(code === 0x64 ? K_DICT : K_LIST);
        if (!nMarks) throw UNKNOWN;
        const end = sp;
        sp = marks[--nMarks];
        base = nMarks ? marks[nMarks - 1] : 0;
        if (code === 0x64) {
          if ((end - sp) % 2) throw UNKNOWN;
          for (let i = sp; i < end; i += 2) entry(v, st[i], st[i + 1]);
        } else for (let i = sp; i < end; i++) entry(v, -1, st[i]);
        break;
      }
      case 0x85: // TUPLE1
      case 0x86: // TUPLE2
      case 0x87: {
        // TUPLE3
        const n = code - 0x84;
        if (++objects > MAX_OBJECTS) throw UNKNOWN;
        if (sp - base < n) throw UNKNOWN;
        sp -= n;
        v = value(K_LIST);
        for (let i = 0; i < n; i++) entry(v, -1, st[sp + i]);
        break;
      }
      case 0x73: {
        // SETITEM
        if (sp - base < 3) throw UNKNOWN;
        const t = st[sp - 3];
        if (kind[t] !== K_DICT) throw UNKNOWN;
        entry(t, st[sp - 2], st[sp - 1]);
        sp -= 2;
        continue;
      }
      case 0x75: // SETITEMS
      case 0x65: {
        // APPENDS: the values since the last MARK into the container below it
        if (!nMarks) throw UNKNOWN;
        const end = sp;
        sp = marks[--nMarks];
        base = nMarks ? marks[nMarks - 1] : 0;
        if (sp === base) throw UNKNOWN;
        const t = st[sp - 1];
        if (code === 0x75) {
          if (kind[t] !== K_DICT || (end - sp) % 2) throw UNKNOWN;
          for (let i = sp; i < end; i += 2) entry(t, st[i], st[i + 1]);
        } else {
          if (kind[t] !== K_LIST) throw UNKNOWN;
          for (let i = sp; i < end; i++) entry(t, -1, st[i]);
        }
        continue;
      }
      case 0x61: {
        // APPEND
        if (sp - base < 2) throw UNKNOWN;
        const t = st[sp - 2];
        if (kind[t] !== K_LIST) throw UNKNOWN;
        entry(t, -1, st[sp - 1]);
        sp--;
        continue;
      }
      case 0x94: // MEMOIZE
      case 0x71: // BINPUT
      case 0x72: {
        // LONG_BINPUT
        let i: number;
        if (code === 0x94) i = nMemo;
        else if (code === 0x71) {
          if (pos + 1 > len) throw UNKNOWN;
          i = d[pos++];
        } else {
          if (pos + 4 > len) throw UNKNOWN;
          i = view.getUint32(pos, true);
          pos += 4;
        }
        if (sp === base) throw UNKNOWN;
        if (i === nMemo) {
          if (nMemo === memo.length) memo = grownI(memo, 0);
          memo[nMemo++] = st[sp - 1];
        } else if (i < nMemo) memo[i] = st[sp - 1];
        else throw UNKNOWN;
        continue;
      }
      case 0x68: // BINGET
      case 0x6a: {
        // LONG_BINGET
        let i: number;
        if (code === 0x68) {
          if (pos + 1 > len) throw UNKNOWN;
          i = d[pos++];
        } else {
          if (pos + 4 > len) throw UNKNOWN;
          i = view.getUint32(pos, true);
          pos += 4;
        }
        if (i >= nMemo) throw UNKNOWN;
        v = memo[i];
        break;
      }
      default:
        return -1; // an object, a global, a long integer, protocol 0 or 1…: the general reader's
    }
    // push v
    if (sp - base >= MAX_STACK) throw UNKNOWN;
    if (sp === st.length) st = roomAt(sp);
    st[sp++] = v;
  }
}

export interface ItemFacts {
  metrics?: Record<string, WireNumber>;
  task_index?: number;
  taskset_id?: number;
  /** The item's prompt_length as a number (undefined when it has none). */
  promptLength?: number;
  truncated: boolean;
  /** The response text when it is one: `blank` when only whitespace, and its fingerprint otherwise. */
  response?: { blank: boolean; hash?: string };
}

/** Value `v` (−1: absent) as a number: a number, or a bool as 0/1. */
const number = (v: number): number | undefined => (v < 0 ? undefined : kind[v] === K_NUM ? num[v] : v === TRUE ? 1 : v === FALSE ? 0 : undefined);
/** Value `v` (−1: absent) as a taskset row: a non-negative safe integer. */
const index = (v: number): number | undefined => (v >= 0 && kind[v] === K_NUM && Number.isSafeInteger(num[v]) && num[v] >= 0 ? num[v] : undefined);

/** ASCII whitespace (what String.prototype.trim removes of an ASCII text). */
const space = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

/**
 * The facts of item 0 of TRXP metadata `meta` ({version, num_items, items: [dict, …]}), or
 * undefined when the pickle is not one this reader knows (then trxp.ts's general reading serves).
 * `hash` is the response fingerprint of a decoded text (trxp.ts's responseHash); `hashBytes` the
 * same of ASCII bytes.
 */
export function itemFacts(
  meta: Uint8Array,
  hash: (text: string) => string,
  hashBytes: (b: Uint8Array, start: number, end: number) => string,
): ItemFacts | undefined {
  try {
    return factsOf(read(meta), hash, hashBytes);
  } finally {
    release();
  }
}

function factsOf(v: number, hash: (text: string) => string, hashBytes: (b: Uint8Array, start: number, end: number) => string): ItemFacts | undefined {
  if (v < 0 || kind[v] !== K_DICT) return undefined;
  const items = get(v, 'items');
  if (items < 0 || kind[items] !== K_LIST || ca[items] < 0) return undefined;
  const item = ev[ca[items]];
  if (kind[item] !== K_DICT) return undefined;
  const out: ItemFacts = { truncated: false };
  // The item's fields in one pass over its entries (the last one set of each).
  let m = -1;
  let info = -1;
  let promptLength = -1;
  let status = -1;
  let t = -1;
  for (let e = ca[item]; e >= 0; e = en[e]) {
    const k = ek[e];
    if (kind[k] !== K_STR) continue;
    switch (cb[k] - ca[k]) {
      case 4:
        if (isKey(k, 'info')) info = ev[e];
        break;
      case 7:
        if (isKey(k, 'metrics')) m = ev[e];
        break;
      case 13:
        if (isKey(k, 'prompt_length')) promptLength = ev[e];
        else if (isKey(k, 'response_text')) t = ev[e];
        break;
      case 15:
        if (isKey(k, 'truncate_status')) status = ev[e];
        break;
    }
  }
  // metrics: its numeric entries (string keys), as trxp.ts's numericMetrics
  if (m >= 0 && kind[m] === K_DICT) {
    const metrics: Record<string, WireNumber> = {};
    let n = 0;
    for (let e = ca[m]; e >= 0 && n < MAX_METRICS; e = en[e]) {
      const k = ek[e];
      const x = number(ev[e]);
      if (x === undefined || kind[k] !== K_STR) continue;
      metrics[name(k)] = toWireNumber(x);
      n++;
    }
    if (n) out.metrics = metrics;
  } else if (m >= 0 && (kind[m] === K_BYTES || kind[m] === K_LIST)) return undefined; // a list or bytes: the general reader's
  // info["task_index"]: an index, or {"index", "taskset_id"} (trxp.ts's taskIndexOf)
  const ti = info >= 0 && kind[info] === K_DICT ? get(info, 'task_index') : -1;
  const direct = index(ti);
  if (direct !== undefined) out.task_index = direct;
  else if (ti >= 0 && kind[ti] === K_DICT) {
    const i = index(get(ti, 'index'));
    if (i !== undefined) {
      out.task_index = i;
      const t = index(get(ti, 'taskset_id'));
      if (t !== undefined) out.taskset_id = t;
    }
  }
  const pl = number(promptLength);
  if (pl !== undefined) out.promptLength = pl;
  out.truncated = status >= 0 && kind[status] === K_STR && cb[status] > ca[status];
  if (t >= 0 && kind[t] === K_STR) {
    const start = ca[t];
    const end = cb[t];
    let ascii = true;
    for (let i = start; i < end && ascii; i++) ascii = data[i] <= 0x7f;
    if (ascii) {
      let blank = true;
      for (let i = start; i < end && blank; i++) blank = space(data[i]);
      out.response = blank ? { blank } : { blank, hash: hashBytes(data, start, end) };
    } else {
      const s = text(t);
      out.response = s.trim() === '' ? { blank: true } : { blank: false, hash: hash(s) };
    }
  }
  return out;
}
