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

/** A text in the pickle (its UTF-8 bytes), decoded only when asked. */
class Str {
  constructor(
    readonly data: Uint8Array,
    readonly start: number,
    readonly end: number,
  ) {}

  /** Only ASCII bytes (a JavaScript string of the same characters, one per byte). */
  ascii(): boolean {
    for (let i = this.start; i < this.end; i++) if (this.data[i] > 0x7f) return false;
    return true;
  }

  /** Whether it is `key` (an ASCII name). */
  is(key: string): boolean {
    if (this.end - this.start !== key.length) return false;
    for (let i = 0; i < key.length; i++) if (this.data[this.start + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  text(): string {
    return utf8.decode(this.data.subarray(this.start, this.end));
  }
}

/** Bytes (BINBYTES): a value that is no number, text or container. */
class Bytes {}
const BYTES = new Bytes();

/** A dict: its keys and values in the order they were set (a key set twice is there twice, as pickle.ts keeps it). */
class Dict {
  readonly keys: Value[] = [];
  readonly values: Value[] = [];

  /** The value of ASCII key `key` (the last one set). */
  get(key: string): Value | undefined {
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const k = this.keys[i];
      if (k instanceof Str && k.is(key)) return this.values[i];
    }
    return undefined;
  }
}

type Value = null | boolean | number | Str | Bytes | Dict | Value[];

const utf8 = new TextDecoder('utf-8');
/** As pickle.ts's budget for the summary: a pickle past them is that reader's to refuse. */
const MAX_OBJECTS = 1_000_000;
const MAX_MARKS = 10_000;
const MAX_STACK = 100_000;
const MAX_METRICS = 64;

/** Not a pickle this reader knows: the general reader decides. */
const UNKNOWN = new Error('not a plain pickle');

/** The pickle's value, or undefined when it uses what this reader does not know. */
function read(d: Uint8Array): Value | undefined {
  const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let stack: Value[] = [];
  const marks: Value[][] = [];
  const memo: Value[] = [];
  let objects = 0;
  let pos = 0;
  const need = (n: number): number => {
    const p = pos;
    if (p + n > d.length) throw UNKNOWN;
    pos = p + n;
    return p;
  };
  const made = (): void => {
    if (++objects > MAX_OBJECTS) throw UNKNOWN;
  };
  const push = (v: Value): void => {
    if (stack.length >= MAX_STACK) throw UNKNOWN;
    stack.push(v);
  };
  const pop = (): Value => {
    if (!stack.length) throw UNKNOWN;
    return stack.pop()!;
  };
  const top = (): Value => {
    if (!stack.length) throw UNKNOWN;
    return stack[stack.length - 1];
  };
  const popMark = (): Value[] => {
    const items = stack;
    const outer = marks.pop();
    if (!outer) throw UNKNOWN;
    stack = outer;
    return items;
  };
  const str = (n: number): Str => {
    const p = need(n);
    // A text that starts with a byte-order mark decodes without it: the general reader compares those.
    if (n >= 3 && d[p] === 0xef && d[p + 1] === 0xbb && d[p + 2] === 0xbf) throw UNKNOWN;
    made();
    return new Str(d, p, p + n);
  };
  const setItems = (target: Value, items: Value[]): void => {
    if (!(target instanceof Dict) || items.length % 2) throw UNKNOWN;
    for (let i = 0; i < items.length; i += 2) {
      target.keys.push(items[i]);
      target.values.push(items[i + 1]);
    }
  };
  const append = (target: Value, items: Value[]): void => {
    if (!Array.isArray(target)) throw UNKNOWN;
    for (const v of items) target.push(v);
  };
  const put = (i: number): void => {
    if (i === memo.length) memo.push(top());
    else if (i < memo.length) memo[i] = top();
    else throw UNKNOWN;
  };
  const get = (i: number): Value => {
    if (i >= memo.length) throw UNKNOWN;
    return memo[i];
  };
  try {
    for (;;) {
      const code = d[need(1)];
      switch (code) {
        case 0x80: // PROTO
          if (d[need(1)] > 5) throw UNKNOWN;
          break;
        case 0x95: {
          // FRAME (a length past 2^53 is refused by the general reader)
          const p = need(8);
          if (view.getUint32(p + 4, true) >= 2 ** 21) throw UNKNOWN;
          break;
        }
        case 0x2e: // STOP
          return pop();
        case 0x28: // MARK
          if (marks.length >= MAX_MARKS) throw UNKNOWN;
          marks.push(stack);
          stack = [];
          break;
        case 0x30: // POP
          pop();
          break;
        case 0x4e: // NONE
          push(null);
          break;
        case 0x88: // NEWTRUE
          push(true);
          break;
        case 0x89: // NEWFALSE
          push(false);
          break;
        case 0x4a: // BININT
          push(view.getInt32(need(4), true));
          break;
        case 0x4b: // BININT1
          push(d[need(1)]);
          break;
        case 0x4d: // BININT2
          push(view.getUint16(need(2), true));
          break;
        case 0x47: // BINFLOAT
          push(view.getFloat64(need(8), false));
          break;
        case 0x8c: // SHORT_BINUNICODE
          push(str(d[need(1)]));
          break;
        case 0x58: // BINUNICODE
          push(str(view.getUint32(need(4), true)));
          break;
        case 0x43: // SHORT_BINBYTES
          need(d[need(1)]);
          made();
          push(BYTES);
          break;
        case 0x42: // BINBYTES
          need(view.getUint32(need(4), true));
          made();
          push(BYTES);
          break;
        case 0x7d: // EMPTY_DICT
          made();
          push(new Dict());
          break;
        case 0x5d: // EMPTY_LIST
        case 0x29: // EMPTY_TUPLE
          made();
          push([]);
          break;
        case 0x64: {
          // DICT
          made();
          const dict = new Dict();
          setItems(dict, popMark());
          push(dict);
          break;
        }
        case 0x6c: // LIST
        case 0x74: // TUPLE
          made();
          push(popMark());
          break;
        case 0x85: // TUPLE1
          made();
          push([pop()]);
          break;
        case 0x86: {
          // TUPLE2
          const b = pop();
          made();
          push([pop(), b]);
          break;
        }
        case 0x87: {
          // TUPLE3
          const c = pop();
          const b = pop();
          made();
          push([pop(), b, c]);
          break;
        }
        case 0x73: {
          // SETITEM
          const v = pop();
          const k = pop();
          setItems(top(), [k, v]);
          break;
        }
        case 0x75: {
          // SETITEMS
          const items = popMark();
          setItems(top(), items);
          break;
        }
        case 0x61: {
          // APPEND
          const v = pop();
          append(top(), [v]);
          break;
        }
        case 0x65: {
          // APPENDS
          const items = popMark();
          append(top(), items);
          break;
        }
        case 0x94: // MEMOIZE
          memo.push(top());
          break;
        case 0x71: // BINPUT
          put(d[need(1)]);
          break;
        case 0x72: // LONG_BINPUT
          put(view.getUint32(need(4), true));
          break;
        case 0x68: // BINGET
          push(get(d[need(1)]));
          break;
        case 0x6a: // LONG_BINGET
          push(get(view.getUint32(need(4), true)));
          break;
        default:
          return undefined; // an object, a global, a long integer, protocol 0 or 1…: the general reader's
      }
    }
  } catch (e) {
    if (e === UNKNOWN) return undefined;
    throw e;
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

const number = (v: Value | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : undefined);
const index = (v: Value | undefined): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);

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
  const v = read(meta);
  if (!(v instanceof Dict)) return undefined;
  const items = v.get('items');
  if (!Array.isArray(items)) return undefined;
  const item: Value | undefined = (items as Value[])[0];
  if (!(item instanceof Dict)) return undefined;
  const out: ItemFacts = { truncated: false };
  // metrics: its numeric entries (string keys), as trxp.ts's numericMetrics
  const m = item.get('metrics');
  if (m instanceof Dict) {
    const metrics: Record<string, WireNumber> = {};
    let n = 0;
    for (let i = 0; i < m.keys.length && n < MAX_METRICS; i++) {
      const k = m.keys[i];
      const x = number(m.values[i]);
      if (x === undefined || !(k instanceof Str)) continue;
      metrics[k.text()] = toWireNumber(x);
      n++;
    }
    if (n) out.metrics = metrics;
  } else if (m !== undefined && m !== null && typeof m !== 'number' && typeof m !== 'boolean' && !(m instanceof Str)) return undefined; // a list or bytes: the general reader's
  // info["task_index"]: an index, or {"index", "taskset_id"} (trxp.ts's taskIndexOf)
  const info = item.get('info');
  const ti = info instanceof Dict ? info.get('task_index') : undefined;
  const direct = index(ti);
  if (direct !== undefined) out.task_index = direct;
  else if (ti instanceof Dict) {
    const i = index(ti.get('index'));
    if (i !== undefined) {
      out.task_index = i;
      const t = index(ti.get('taskset_id'));
      if (t !== undefined) out.taskset_id = t;
    }
  }
  const pl = number(item.get('prompt_length'));
  if (pl !== undefined) out.promptLength = pl;
  const status = item.get('truncate_status');
  out.truncated = status instanceof Str && status.end > status.start;
  const text = item.get('response_text');
  if (text instanceof Str) {
    if (text.ascii()) {
      let blank = true;
      for (let i = text.start; i < text.end && blank; i++) blank = space(text.data[i]);
      out.response = blank ? { blank } : { blank, hash: hashBytes(text.data, text.start, text.end) };
    } else {
      const s = text.text();
      out.response = s.trim() === '' ? { blank: true } : { blank: false, hash: hash(s) };
    }
  }
  return out;
}
