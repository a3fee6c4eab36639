// A Python pickle (protocols 0–5) read as inert data, within a budget, for pickles the relay does
// not trust: the experience metadata in a training buffer, which anyone who can write the job
// dir can craft. Nothing is ever called or imported: a class reference is a PyGlobal, an
// instance (REDUCE, NEWOBJ, INST, OBJ) a PyObject holding its class, arguments and state,
// persistent ids and out-of-band buffers are PyOpaque. Each opcode costs O(1) plus the items it
// moves (each pushed by an opcode of its own), so reading is linear in the input; the objects
// made are counted against `maxObjects`. Shared references (memo reuse) stay shared here — the
// cost of expanding them is the JSON conversion's budget (trxp.ts), not this reader's. The
// reader can also run in slices of opcodes, so that a large pickle never holds the event loop.
// Format: Python's Lib/pickle.py and Lib/pickletools.py (opcode table).

export type PyValue = null | boolean | number | bigint | string | Uint8Array | PyValue[] | PyDict | PyObject | PyGlobal | PyOpaque;

/** A dict, its entries in insertion order (keys of any kind, never turned into strings here). */
export class PyDict {
  readonly entries: [PyValue, PyValue][] = [];

  /** The value of string key `key` (the last one set). */
  get(key: string): PyValue | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i][0] === key) return this.entries[i][1];
    return undefined;
  }
}

/** A reference to a class or function (`module.name`): never resolved. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}

  get qualified(): string {
    return `${this.module}.${this.name}`;
  }
}

/** An instance the pickle would build by calling `cls(*args)`: its state and items, as data. */
export class PyObject {
  /** BUILD's state (usually a dict of attributes). */
  state: PyValue | undefined;
  /** Items set on it (an OrderedDict, a defaultdict). */
  dict: PyDict | undefined;
  /** Items appended to it (a deque, a list subclass). */
  list: PyValue[] | undefined;

  constructor(
    readonly cls: PyValue,
    readonly args: PyValue[],
  ) {}
}

/** What a pickle names but does not contain (a persistent id, an extension code, an out-of-band buffer). */
export class PyOpaque {
  constructor(readonly what: string) {}
}

export class PickleError extends Error {}

export interface PickleBudget {
  /** Objects made at most (containers, instances, strings, numbers…). */
  maxObjects: number;
  /** Nesting of MARK at most. */
  maxMarks: number;
  /** Bytes of one binary integer (LONG1, LONG4) read as a number; a longer one is PyOpaque `int of more than N bytes`. */
  maxIntBytes?: number;
  /** Values on the stack at most (a list nested 500 000 deep is 500 000 of them: 413 MB per read without it). */
  maxStack?: number;
}

/** As the Python relay's MAX_STACK: it refuses such a pickle the same way. */
const MAX_STACK = 100_000;

/** 1 KiB: ~2 470 decimal digits, within Python's default limit for int↔str (4 300 digits). */
export const MAX_INT_BYTES = 1024;
/** Digits of a text integer (INT, LONG) at most: Python's own int↔str limit; more is an error there too. */
const MAX_INT_DIGITS = 4300;

const DEFAULT_PICKLE_BUDGET: PickleBudget = { maxObjects: 1_000_000, maxMarks: 10_000 };

const utf8 = new TextDecoder('utf-8');
const latin1 = new TextDecoder('latin1');

/** Reads one pickle; throws PickleError when it is malformed or over the budget. */
export function unpickle(data: Uint8Array, budget: PickleBudget = DEFAULT_PICKLE_BUDGET): PyValue {
  const u = new Unpickler(data, budget);
  while (!u.run(Infinity));
  return u.result;
}

/** Reads a pickle in slices of opcodes (run() until it says done), yielding to the event loop between them. */
export async function unpickleSliced(data: Uint8Array, budget: PickleBudget = DEFAULT_PICKLE_BUDGET, opsPerSlice = 65_536): Promise<PyValue> {
  const u = new Unpickler(data, budget);
  while (!u.run(opsPerSlice)) await new Promise((resolve) => setImmediate(resolve));
  return u.result;
}

export class Unpickler {
  private pos = 0;
  private stack: PyValue[] = [];
  private readonly marks: PyValue[][] = [];
  private readonly memo = new Map<number, PyValue>();
  private objects = 0;
  private done = false;
  private value: PyValue = null;
  private readonly view: DataView;

  constructor(
    private readonly data: Uint8Array,
    private readonly budget: PickleBudget = DEFAULT_PICKLE_BUDGET,
  ) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  /** The value, once run() said done. */
  get result(): PyValue {
    if (!this.done) throw new PickleError('pickle not read yet');
    return this.value;
  }

  /** Runs at most `maxOps` opcodes; true once STOP was read. */
  run(maxOps: number): boolean {
    for (let n = 0; n < maxOps && !this.done; n++) this.op();
    return this.done;
  }

  private fail(why: string): never {
    throw new PickleError(`pickle: ${why} at byte ${this.pos}`);
  }

  private take(n: number): Uint8Array {
    if (!Number.isSafeInteger(n) || n < 0 || this.pos + n > this.data.length) this.fail(`${n} bytes claimed, ${this.data.length - this.pos} left`);
    const b = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }

  /** Moves past `n` bytes (a fixed-size field) and returns where they start: no view of them is made. */
  private skip(n: number): number {
    const p = this.pos;
    if (p + n > this.data.length) this.fail(`${n} bytes claimed, ${this.data.length - p} left`);
    this.pos = p + n;
    return p;
  }

  private u8(): number {
    return this.data[this.skip(1)];
  }
  private u16(): number {
    return this.view.getUint16(this.skip(2), true);
  }
  private i32(): number {
    return this.view.getInt32(this.skip(4), true);
  }
  private u32(): number {
    return this.view.getUint32(this.skip(4), true);
  }
  private u64(): number {
    const p = this.skip(8);
    const v = this.view.getUint32(p, true) + this.view.getUint32(p + 4, true) * 2 ** 32;
    if (!Number.isSafeInteger(v)) this.fail('length beyond 2^53');
    return v;
  }

  /** `n` bytes of UTF-8 text: a short ASCII one (a dict key, a field name) without a decoder call. */
  private text(n: number): string {
    if (n > 24) return utf8.decode(this.take(n));
    const p = this.skip(n);
    const d = this.data;
    let s = '';
    for (let i = p; i < p + n; i++) {
      if (d[i] > 0x7f) return utf8.decode(d.subarray(p, p + n));
      s += String.fromCharCode(d[i]);
    }
    return s;
  }

  /** A text line (protocol 0), without its '\n'. */
  private line(): string {
    const end = this.data.indexOf(0x0a, this.pos);
    if (end < 0) this.fail('unterminated line');
    const s = latin1.decode(this.data.subarray(this.pos, end));
    this.pos = end + 1;
    return s;
  }

  private made<T extends PyValue>(v: T): T {
    if (++this.objects > this.budget.maxObjects) this.fail(`more than ${this.budget.maxObjects} objects`);
    return v;
  }

  private push(v: PyValue): void {
    if (this.stack.length >= (this.budget.maxStack ?? MAX_STACK)) this.fail(`more than ${this.budget.maxStack ?? MAX_STACK} values on the stack`);
    this.stack.push(v);
  }

  private pop(): PyValue {
    if (this.stack.length === 0) this.fail('stack underflow');
    return this.stack.pop()!;
  }

  private top(): PyValue {
    if (this.stack.length === 0) this.fail('stack underflow');
    return this.stack[this.stack.length - 1];
  }

  /** The items since the last MARK (the mark removed). */
  private popMark(): PyValue[] {
    const items = this.stack;
    const outer = this.marks.pop();
    if (outer === undefined) this.fail('no MARK');
    this.stack = outer;
    return items;
  }

  private get(i: number): PyValue {
    if (!this.memo.has(i)) this.fail(`memo ${i} not set`);
    return this.memo.get(i)!;
  }

  private setItems(target: PyValue, items: PyValue[]): void {
    if (items.length % 2) this.fail('odd number of dict items');
    const dict =
      target instanceof PyDict ? target : target instanceof PyObject ? (target.dict ??= this.made(new PyDict())) : this.fail('SETITEMS on a non-dict');
    for (let i = 0; i < items.length; i += 2) dict.entries.push([items[i], items[i + 1]]);
  }

  private append(target: PyValue, items: PyValue[]): void {
    const list = Array.isArray(target) ? target : target instanceof PyObject ? (target.list ??= this.made([])) : this.fail('APPENDS to a non-list');
    for (const v of items) list.push(v);
  }

  private int(text: string): number | bigint | boolean {
    const t = text.replace(/L$/, '').trim();
    // BigInt() of a decimal string is quadratic in its length: refused past Python's own limit.
    if (t.replace(/^[+-]/, '').length > MAX_INT_DIGITS) this.fail(`an integer of ${t.length} digits (more than ${MAX_INT_DIGITS})`);
    if (t === '00') return false;
    if (t === '01') return true;
    if (!/^[+-]?\d+$/.test(t)) this.fail(`bad integer '${t.slice(0, 20)}'`);
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : BigInt(t);
  }

  /**
   * A little-endian two's-complement integer of `b` (LONG1, LONG4), built in linear time (one
   * hex parse, not a shift per byte: that was quadratic, 75 s for 200 KiB); one longer than the
   * budget's maxIntBytes is not built at all.
   */
  private long(b: Uint8Array): number | bigint | PyOpaque {
    if (b.length === 0) return 0;
    if (b.length > (this.budget.maxIntBytes ?? MAX_INT_BYTES)) return new PyOpaque(`int of more than ${this.budget.maxIntBytes ?? MAX_INT_BYTES} bytes`);
    let v = BigInt(`0x${Buffer.from(b).reverse().toString('hex')}`);
    if (b[b.length - 1] & 0x80) v -= 1n << BigInt(8 * b.length);
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  }

  /** A quoted protocol-0 string ('…' or "…"), its escapes read as Python's repr writes them. */
  private quoted(): string {
    const s = this.line().trim();
    if (s.length < 2 || s[0] !== s[s.length - 1] || (s[0] !== "'" && s[0] !== '"')) this.fail('bad STRING');
    return unescapeRepr(s.slice(1, -1));
  }

  private op(): void {
    const code = this.u8();
    switch (code) {
      case 0x80: // PROTO
        if (this.u8() > 5) this.fail('protocol above 5');
        return;
      case 0x95: // FRAME
        this.u64();
        return;
      case 0x2e: // STOP
        this.value = this.pop();
        this.done = true;
        return;
      case 0x28: // MARK
        if (this.marks.length >= this.budget.maxMarks) this.fail(`MARKs nested deeper than ${this.budget.maxMarks}`);
        this.marks.push(this.stack);
        this.stack = [];
        return;
      case 0x30: // POP
        this.pop();
        return;
      case 0x31: // POP_MARK
        this.popMark();
        return;
      case 0x32: // DUP
        return this.push(this.top());
      case 0x4e: // NONE
        return this.push(null);
      case 0x88: // NEWTRUE
        return this.push(true);
      case 0x89: // NEWFALSE
        return this.push(false);
      case 0x49: // INT
        return this.push(this.made(this.int(this.line())));
      case 0x4c: // LONG
        return this.push(this.made(this.int(this.line())));
      case 0x4a: // BININT
        return this.push(this.i32());
      case 0x4b: // BININT1
        return this.push(this.u8());
      case 0x4d: // BININT2
        return this.push(this.u16());
      case 0x8a: // LONG1
        return this.push(this.made(this.long(this.take(this.u8()))));
      case 0x8b: // LONG4
        return this.push(this.made(this.long(this.take(this.i32()))));
      case 0x46: {
        // FLOAT
        const f = Number(this.line());
        return this.push(f);
      }
      case 0x47: {
        // BINFLOAT (big-endian)
        return this.push(this.view.getFloat64(this.skip(8), false));
      }
      case 0x53: // STRING
        return this.push(this.made(this.quoted()));
      case 0x54: // BINSTRING
        return this.push(this.made(latin1.decode(this.take(this.i32()))));
      case 0x55: // SHORT_BINSTRING
        return this.push(this.made(latin1.decode(this.take(this.u8()))));
      case 0x56: // UNICODE (raw-unicode-escape)
        return this.push(this.made(unescapeRepr(this.line())));
      case 0x58: // BINUNICODE
        return this.push(this.made(this.text(this.u32())));
      case 0x8c: // SHORT_BINUNICODE
        return this.push(this.made(this.text(this.u8())));
      case 0x8d: // BINUNICODE8
        return this.push(this.made(utf8.decode(this.take(this.u64()))));
      case 0x42: // BINBYTES
        return this.push(this.made(this.take(this.u32())));
      case 0x43: // SHORT_BINBYTES
        return this.push(this.made(this.take(this.u8())));
      case 0x8e: // BINBYTES8
      case 0x96: // BYTEARRAY8
        return this.push(this.made(this.take(this.u64())));
      case 0x97: // NEXT_BUFFER
        return this.push(this.made(new PyOpaque('out-of-band buffer')));
      case 0x98: // READONLY_BUFFER
        return;
      case 0x7d: // EMPTY_DICT
        return this.push(this.made(new PyDict()));
      case 0x5d: // EMPTY_LIST
        return this.push(this.made([]));
      case 0x29: // EMPTY_TUPLE
        return this.push(this.made([]));
      case 0x8f: // EMPTY_SET
        return this.push(this.made([]));
      case 0x64: {
        // DICT
        const d = this.made(new PyDict());
        this.setItems(d, this.popMark());
        return this.push(d);
      }
      case 0x6c: // LIST
      case 0x74: // TUPLE
      case 0x91: // FROZENSET
        return this.push(this.made(this.popMark()));
      case 0x85: // TUPLE1
        return this.push(this.made([this.pop()]));
      case 0x86: {
        // TUPLE2
        const b = this.pop();
        return this.push(this.made([this.pop(), b]));
      }
      case 0x87: {
        // TUPLE3
        const c = this.pop();
        const b = this.pop();
        return this.push(this.made([this.pop(), b, c]));
      }
      case 0x73: {
        // SETITEM
        const v = this.pop();
        const k = this.pop();
        return this.setItems(this.top(), [k, v]);
      }
      case 0x75: {
        // SETITEMS
        const items = this.popMark();
        return this.setItems(this.top(), items);
      }
      case 0x61: {
        // APPEND
        const v = this.pop();
        return this.append(this.top(), [v]);
      }
      case 0x65: // APPENDS
      case 0x90: {
        // ADDITEMS
        const items = this.popMark();
        return this.append(this.top(), items);
      }
      case 0x70: // PUT
        this.memo.set(Number(this.line()), this.top());
        return;
      case 0x71: // BINPUT
        this.memo.set(this.u8(), this.top());
        return;
      case 0x72: // LONG_BINPUT
        this.memo.set(this.u32(), this.top());
        return;
      case 0x94: // MEMOIZE
        this.memo.set(this.memo.size, this.top());
        return;
      case 0x67: // GET
        return this.push(this.get(Number(this.line())));
      case 0x68: // BINGET
        return this.push(this.get(this.u8()));
      case 0x6a: // LONG_BINGET
        return this.push(this.get(this.u32()));
      case 0x63: {
        // GLOBAL
        const module = this.line();
        return this.push(this.made(new PyGlobal(module, this.line())));
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = this.pop();
        const module = this.pop();
        if (typeof module !== 'string' || typeof name !== 'string') this.fail('STACK_GLOBAL of non-strings');
        return this.push(this.made(new PyGlobal(module, name)));
      }
      case 0x52: {
        // REDUCE
        const args = this.pop();
        const fn = this.pop();
        return this.push(this.made(new PyObject(fn, Array.isArray(args) ? args : [args])));
      }
      case 0x81: {
        // NEWOBJ
        const args = this.pop();
        const cls = this.pop();
        return this.push(this.made(new PyObject(cls, Array.isArray(args) ? args : [args])));
      }
      case 0x92: {
        // NEWOBJ_EX
        const kwargs = this.pop();
        const args = this.pop();
        const cls = this.pop();
        const o = this.made(new PyObject(cls, Array.isArray(args) ? args : [args]));
        if (kwargs instanceof PyDict && kwargs.entries.length) o.dict = kwargs;
        return this.push(o);
      }
      case 0x69: {
        // INST
        const module = this.line();
        const name = this.line();
        return this.push(this.made(new PyObject(this.made(new PyGlobal(module, name)), this.popMark())));
      }
      case 0x6f: {
        // OBJ
        const items = this.popMark();
        if (items.length === 0) this.fail('OBJ without a class');
        return this.push(this.made(new PyObject(items[0], items.slice(1))));
      }
      case 0x62: {
        // BUILD
        const state = this.pop();
        const target = this.top();
        if (target instanceof PyObject) target.state = state;
        return;
      }
      case 0x50: // PERSID
        this.line();
        return this.push(this.made(new PyOpaque('persistent id')));
      case 0x51: // BINPERSID
        this.pop();
        return this.push(this.made(new PyOpaque('persistent id')));
      case 0x82: // EXT1
        this.u8();
        return this.push(this.made(new PyOpaque('extension')));
      case 0x83: // EXT2
        this.u16();
        return this.push(this.made(new PyOpaque('extension')));
      case 0x84: // EXT4
        this.i32();
        return this.push(this.made(new PyOpaque('extension')));
      default:
        this.pos--;
        this.fail(`unknown opcode 0x${code.toString(16)}`);
    }
  }
}

/** Python's repr escapes (\n, \t, \\, \', \xNN, \uNNNN) in a protocol-0 string. */
function unescapeRepr(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e: string) => {
    if (e.length > 1) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
    }
    return ({ n: '\n', t: '\t', r: '\r', '0': '\0' } as Record<string, string>)[e] ?? e;
  });
}
