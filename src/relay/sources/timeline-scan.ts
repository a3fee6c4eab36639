// The byte-level reader of a Ray timeline.json (a JSON array of Chrome trace events) behind
// ray-timeline.ts. A 200 MB file holds about a million events; making a string of each key and a
// JS object of each event (JSON.parse) cost seconds, so an event of the common shape is read in
// place: its bytes validated as JSON, the few kept fields taken (ts, dur as numbers; ph, pid, tid,
// cat, name interned by their bytes in timeline-strings.ts, no string made for one already seen), everything else
// skipped. An event of another shape (escapes in a string, a kept field that is not a plain
// string or number…) goes through JSON.parse, which also decides when it is corrupt. The Python
// relay's timeline.py reads with the same rules, so both relays answer the same windows.
//
// The rules (both relays): the file must start with `[` (else nothing is read: not-array); inside
// it, each object is an event (other values are skipped); an event longer than MAX_OBJECT_BYTES
// is skipped (too-long); one that is not JSON, or nested deeper than MAX_DEPTH, is corrupt; the array not closed at the end of the
// file is truncated (the events before the cut are kept); after MAX_EVENTS kept events the
// reading stops (capped). An event is kept when ph is "X"; then ts must be a finite number and
// dur a number ≥ 0 finite as a 32-bit float, or absent (0), else it is corrupt. pid / tid are strings, or integers
// written as their digits; anything else is "".
import * as fs from 'node:fs';
import type { StringTable } from './timeline-strings';

/** An event object longer than this is skipped (Ray's are a few hundred bytes). */
const MAX_OBJECT_BYTES = 1024 * 1024;
/** An event nested deeper than this (its own braces are 1) is corrupt (parsers differ beyond). */
const MAX_DEPTH = 64;

/** What the scan hands over, event by event (string ids from `strings`; -1: absent or not a string). */
export interface TimelineSink {
  readonly strings: StringTable;
  /** A complete event (ph "X"); false: stop reading (the cap). */
  event(ts: number, dur: number, pid: number, tid: number, cat: number, name: number): boolean;
  problem(kind: 'not-array' | 'corrupt' | 'too-long' | 'truncated'): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** More bytes are needed (the value runs to the buffer's end). */
const NEED = -1;
/** Not the common shape: JSON.parse decides. */
const OTHER = -2;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const latin1 = (b: Buffer, s: number, e: number): string =>
  (b as unknown as { latin1Slice?: (s: number, e: number) => string }).latin1Slice?.(s, e) ?? b.toString('latin1', s, e);

// ---- one event, read in place ------------------------------------------------------------
// The fields of the last event `fastEvent` read (module scratch: no object per event).
let fPhX = false;
let fTs = NaN;
let fDur = 0;
let fPid = -1;
let fTid = -1;
let fCat = -1;
let fName = -1;
/** The value of the last number scanned. */
let nValue = 0;
/** The number just scanned is an integer written as ≤ 15 digits (a pid / tid of digits). */
let nDigitsOnly = false;

/** The end (after the closing quote) of the string at i; OTHER on an escape or a control byte. */
function scanString(b: Buffer, i: number, n: number): number {
  for (let j = i + 1; j < n; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH || c < 0x20) return OTHER;
  }
  return NEED;
}

/** 10^0 … 10^22: each exactly a double (written as literals, which parse exactly). */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
const TWO_53 = 2 ** 53;
/** More than the error of a correctly rounded quotient below 1 (half its ulp, ≤ 2^-54). */
const FRACTION_SLACK = 2 ** -52;

/**
 * The double nearest the decimal `int`.`frac` (frac: the `scale` digits after the point as an
 * integer), as Number() gives it, or NaN when this cannot tell. Exact when int < 2^53 and
 * scale ≤ 15: int, frac and 10^scale are doubles, frac / 10^scale is correctly rounded (error
 * ≤ 2^-54 since it is below 1), so the true fraction lies in [lo, hi] below; rounding is
 * monotonic, so when int + lo and int + hi round to the same double, so does int + frac / 10^scale.
 * They differ only near a halfway point between two doubles (NaN: the caller asks Number()).
 * Ray writes `ts` as µs since the epoch with a fraction (1796618490721803.8: 17 digits, beyond
 * the 15 of the plain fast path), which this reads.
 */
function decimalValue(int: number, frac: number, scale: number): number {
  if (!(int < TWO_53) || scale > 15) return NaN;
  if (frac === 0) return int;
  const f = frac / POW10[scale];
  const lo = int + (f - FRACTION_SLACK);
  return lo === int + (f + FRACTION_SLACK) ? lo : NaN;
}

/** The end of the JSON number at i (its value in nValue when `value`); OTHER when it is not one. */
function scanNumber(b: Buffer, i: number, n: number, value: boolean): number {
  let j = i;
  if (b[j] === MINUS) j++;
  if (j >= n) return NEED;
  let c = b[j];
  if (c < ZERO || c > NINE) return OTHER;
  /** The integer part's value, then the fraction's digits as an integer. */
  let int = 0;
  let frac = 0;
  let digits = 0;
  let scale = 0;
  if (c === ZERO) {
    j++;
  } else {
    while (j < n && (c = b[j]) >= ZERO && c <= NINE) {
      int = int * 10 + (c - ZERO);
      digits++;
      j++;
    }
  }
  nDigitsOnly = b[i] !== MINUS && digits <= 15;
  let simple = true;
  if (j < n && b[j] === DOT) {
    nDigitsOnly = false;
    j++;
    const from = j;
    while (j < n && (c = b[j]) >= ZERO && c <= NINE) {
      frac = frac * 10 + (c - ZERO);
      j++;
    }
    if (j === from) return j >= n ? NEED : OTHER;
    scale = j - from;
    digits += scale;
  }
  if (j < n && (b[j] === 0x65 || b[j] === 0x45)) {
    nDigitsOnly = false;
    simple = false;
    j++;
    if (j < n && (b[j] === 0x2b || b[j] === MINUS)) j++;
    const from = j;
    while (j < n && (c = b[j]) >= ZERO && c <= NINE) j++;
    if (j === from) return j >= n ? NEED : OTHER;
  }
  if (j >= n) return NEED;
  if (value) {
    let v = NaN;
    if (simple) {
      // ≤ 15 digits: all of them and 10^scale are exact, their quotient correctly rounded (as Number())
      if (digits <= 15) v = (int * POW10[scale] + frac) / POW10[scale];
      else v = decimalValue(int, frac, scale);
    }
    if (Number.isNaN(v)) v = Number(latin1(b, i, j));
    else if (b[i] === MINUS) v = -v;
    nValue = v;
  }
  return j;
}

const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

function scanLiteral(b: Buffer, i: number, n: number): number {
  const lit = b[i] === 0x74 ? LITERALS[0] : b[i] === 0x66 ? LITERALS[1] : b[i] === 0x6e ? LITERALS[2] : undefined;
  if (!lit) return OTHER;
  for (let k = 0; k < lit.length; k++) {
    if (i + k >= n) return NEED;
    if (b[i + k] !== lit[k]) return OTHER;
  }
  return i + lit.length;
}

function skipSpace(b: Buffer, i: number, n: number): number {
  while (i < n && isSpace(b[i])) i++;
  return i;
}

/** Open containers of the value `skipValue` is in (1 object, 2 array). */
let stack = new Uint8Array(64);

/** The end of the JSON value at i (validated, escapes sent to OTHER), NEED or OTHER. */
function skipValue(b: Buffer, i: number, n: number): number {
  let depth = 0;
  for (;;) {
    // a value at i
    i = skipSpace(b, i, n);
    if (i >= n) return NEED;
    const c = b[i];
    if (c === OPEN || c === OPEN_ARRAY) {
      // this container's nesting: the event's braces, the open ones, itself
      if (depth + 2 > MAX_DEPTH) return OTHER;
      i = skipSpace(b, i + 1, n);
      if (i >= n) return NEED;
      if (b[i] === (c === OPEN ? CLOSE : CLOSE_ARRAY)) i++;
      else {
        if (depth === stack.length) {
          const more = new Uint8Array(stack.length * 2);
          more.set(stack);
          stack = more;
        }
        stack[depth++] = c === OPEN ? 1 : 2;
        if (c === OPEN) {
          i = key(b, i, n);
          if (i < 0) return i;
        }
        continue;
      }
    } else if (c === QUOTE) i = scanString(b, i, n);
    else if (c === MINUS || (c >= ZERO && c <= NINE)) i = scanNumber(b, i, n, false);
    else i = scanLiteral(b, i, n);
    if (i < 0) return i;
    // after a value: close containers, or a comma and the next value
    for (;;) {
      if (depth === 0) return i;
      i = skipSpace(b, i, n);
      if (i >= n) return NEED;
      const d = b[i];
      const top = stack[depth - 1];
      if (d === COMMA) {
        i++;
        if (top === 1) {
          i = key(b, skipSpace(b, i, n), n);
          if (i < 0) return i;
        }
        break;
      }
      if ((d === CLOSE && top === 1) || (d === CLOSE_ARRAY && top === 2)) {
        depth--;
        i++;
        continue;
      }
      return OTHER;
    }
  }
}

/** A key and its colon at i: where its value starts. */
function key(b: Buffer, i: number, n: number): number {
  if (i >= n) return NEED;
  if (b[i] !== QUOTE) return OTHER;
  i = scanString(b, i, n);
  if (i < 0) return i;
  i = skipSpace(b, i, n);
  if (i >= n) return NEED;
  return b[i] === COLON ? i + 1 : OTHER;
}

/** Which kept field the key in bytes [s, e) is: 1 ph, 2 ts, 3 dur, 4 pid, 5 tid, 6 cat, 7 name, 0 none. */
function field(b: Buffer, s: number, e: number): number {
  const c0 = b[s];
  const c1 = b[s + 1];
  switch (e - s) {
    case 2:
      return c0 === 0x70 && c1 === 0x68 ? 1 : c0 === 0x74 && c1 === 0x73 ? 2 : 0;
    case 3: {
      const c2 = b[s + 2];
      if (c0 === 0x64 && c1 === 0x75 && c2 === 0x72) return 3;
      if (c0 === 0x70 && c1 === 0x69 && c2 === 0x64) return 4;
      if (c0 === 0x74 && c1 === 0x69 && c2 === 0x64) return 5;
      if (c0 === 0x63 && c1 === 0x61 && c2 === 0x74) return 6;
      return 0;
    }
    case 4:
      return c0 === 0x6e && c1 === 0x61 && b[s + 2] === 0x6d && b[s + 3] === 0x65 ? 7 : 0;
    default:
      return 0;
  }
}

/** Reads the event object at i (b[i] is `{`) in place into the f* fields: its end, NEED or OTHER. */
function fastEvent(b: Buffer, i: number, n: number, strings: StringTable): number {
  fPhX = false;
  fTs = NaN;
  fDur = 0;
  fPid = -1;
  fTid = -1;
  fCat = -1;
  fName = -1;
  i = skipSpace(b, i + 1, n);
  if (i >= n) return NEED;
  if (b[i] === CLOSE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return OTHER;
    const ks = i + 1;
    i = scanString(b, i, n);
    if (i < 0) return i;
    const f = field(b, ks, i - 1);
    i = skipSpace(b, i, n);
    if (i >= n) return NEED;
    if (b[i] !== COLON) return OTHER;
    i = skipSpace(b, i + 1, n);
    if (i >= n) return NEED;
    const c = b[i];
    if (f === 0) {
      i = skipValue(b, i, n);
    } else if (c === QUOTE) {
      if (f === 2 || f === 3) return OTHER;
      const s = i + 1;
      let id = -1;
      if (f !== 1) {
        // the string the field likely holds, matched in place while scanning (its bytes are plain)
        const k = strings.guess(f - 4);
        if (k >= 0) {
          const have = strings.guessBytes(k);
          const len = have.length;
          const stop = Math.min(len, n - s);
          let j = 0;
          while (j < stop && b[s + j] === have[j]) j++;
          if (j === len && s + len < n && b[s + len] === QUOTE) {
            i = s + len + 1;
            id = strings.found(f - 4, k);
          }
        }
      }
      if (id < 0) {
        i = scanString(b, i, n);
        if (i < 0) return i;
      }
      if (f === 1) fPhX = i - s === 2 && b[s] === 0x58;
      else {
        if (id < 0) id = strings.ofBytes(f - 4, b, s, i - 1);
        if (f === 4) fPid = id;
        else if (f === 5) fTid = id;
        else if (f === 6) fCat = id;
        else fName = id;
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if (f !== 2 && f !== 3 && f !== 4 && f !== 5) return OTHER;
      const s = i;
      i = scanNumber(b, i, n, f === 2 || f === 3);
      if (i < 0) return i;
      if (f === 2) fTs = nValue;
      else if (f === 3) fDur = nValue;
      else {
        if (!nDigitsOnly || (b[s] === ZERO && i - s > 1)) return OTHER;
        const id = strings.ofBytes(f - 4, b, s, i);
        if (f === 4) fPid = id;
        else fTid = id;
      }
    } else return OTHER;
    if (i < 0) return i;
    i = skipSpace(b, i, n);
    if (i >= n) return NEED;
    if (b[i] === CLOSE) return i + 1;
    if (b[i] !== COMMA) return OTHER;
    i = skipSpace(b, i + 1, n);
    if (i >= n) return NEED;
  }
}

// ---- anything else: its end found by brackets and strings, JSON.parse decides ----------

/** Where a skipped value stands when it spans chunks. */
interface SkipState {
  depth: number;
  /** The deepest it went. */
  max: number;
  inString: boolean;
  escape: boolean;
}

/** Runs the structural skip over [i, n): the value's end, or -1 (state kept for the next chunk). */
function structural(b: Buffer, i: number, n: number, st: SkipState): number {
  for (; i < n; i++) {
    const c = b[i];
    if (st.inString) {
      if (st.escape) st.escape = false;
      else if (c === BACKSLASH) st.escape = true;
      else if (c === QUOTE) {
        st.inString = false;
        if (st.depth === 0) return i + 1;
      }
    } else if (c === QUOTE) st.inString = true;
    else if (c === OPEN || c === OPEN_ARRAY) {
      if (++st.depth > st.max) st.max = st.depth;
    } else if (c === CLOSE || c === CLOSE_ARRAY) {
      st.depth--;
      if (st.depth <= 0) return i + 1;
    } else if (st.depth === 0) return i + 1;
  }
  return -1;
}

/** A duration that is not a number ≥ 0 the columns hold (a 32-bit float). */
const badDuration = (d: number) => !(d >= 0) || !Number.isFinite(Math.fround(d));

function normalizedId(v: unknown, strings: StringTable): number {
  if (typeof v === 'string') return strings.ofString(v);
  if (typeof v === 'number' && Number.isSafeInteger(v)) return strings.ofString(String(v));
  return strings.ofString('');
}

/** An event JSON.parse read: handed to the sink by the same rules as the fast path. */
function parsed(b: Buffer, s: number, e: number, sink: TimelineSink): boolean {
  let ev: unknown;
  try {
    ev = JSON.parse(b.toString('utf8', s, e));
  } catch {
    sink.problem('corrupt');
    return true;
  }
  const o = ev as { ph?: unknown; ts?: unknown; dur?: unknown; pid?: unknown; tid?: unknown; cat?: unknown; name?: unknown };
  if (o.ph !== 'X') return true;
  const { ts } = o;
  const dur = o.dur === undefined ? 0 : o.dur;
  if (typeof ts !== 'number' || typeof dur !== 'number' || !Number.isFinite(ts) || badDuration(dur)) {
    sink.problem('corrupt');
    return true;
  }
  const str = sink.strings;
  return sink.event(
    ts,
    dur,
    normalizedId(o.pid, str),
    normalizedId(o.tid, str),
    typeof o.cat === 'string' ? str.ofString(o.cat) : -1,
    typeof o.name === 'string' ? str.ofString(o.name) : -1,
  );
}

/** Reads the file at `fd` into `sink`, `chunkBytes` at a time, yielding to the event loop between chunks. */
export async function scanTimeline(fd: number, chunkBytes: number, sink: TimelineSink): Promise<void> {
  const strings = sink.strings;
  const buf = Buffer.allocUnsafe(chunkBytes + MAX_OBJECT_BYTES);
  let offset = 0;
  let len = 0;
  let started = false;
  let closed = false;
  /** A value too long to keep, being skipped across chunks (its kind counted once). */
  let skipping: SkipState | undefined;
  let eof = false;
  while (!eof && !closed) {
    const n = fs.readSync(fd, buf, len, chunkBytes, offset);
    if (n <= 0) eof = true;
    offset += n;
    len += n;
    let i = 0;
    if (skipping) {
      const end = structural(buf, 0, len, skipping);
      if (end < 0) {
        len = 0;
        continue;
      }
      skipping = undefined;
      i = end;
    }
    if (!started) {
      i = skipSpace(buf, i, len);
      if (i >= len) {
        len = 0;
        continue;
      }
      if (buf[i] !== OPEN_ARRAY) {
        sink.problem('not-array');
        return;
      }
      started = true;
      i++;
    }
    /** Where an unfinished value starts (kept for the next chunk), or -1. */
    let pending = -1;
    while (i < len) {
      const c = buf[i];
      if (isSpace(c) || c === COMMA) {
        i++;
        continue;
      }
      if (c === CLOSE_ARRAY) {
        closed = true;
        break;
      }
      if (c === OPEN) {
        let end = fastEvent(buf, i, len, strings);
        if (end >= 0) {
          if (end - i > MAX_OBJECT_BYTES) sink.problem('too-long');
          else if (fPhX) {
            if (!Number.isFinite(fTs) || badDuration(fDur)) sink.problem('corrupt');
            else if (!sink.event(fTs, fDur, fPid < 0 ? strings.ofString('') : fPid, fTid < 0 ? strings.ofString('') : fTid, fCat, fName)) return;
          }
          i = end;
          continue;
        }
        if (end === OTHER) {
          const st = { depth: 0, max: 0, inString: false, escape: false };
          end = structural(buf, i, len, st);
          if (end >= 0) {
            if (end - i > MAX_OBJECT_BYTES) sink.problem('too-long');
            else if (st.max > MAX_DEPTH) sink.problem('corrupt');
            else if (!parsed(buf, i, end, sink)) return;
            i = end;
            continue;
          }
        }
        pending = i;
        break;
      }
      // another value in the array: skipped
      const end = structural(buf, i, len, { depth: 0, max: 0, inString: false, escape: false });
      if (end < 0) {
        pending = i;
        break;
      }
      i = end;
    }
    if (closed) break;
    if (pending < 0) len = 0;
    else if (len - pending > MAX_OBJECT_BYTES || eof) {
      // an object longer than the bound is too long, cut by the file's end or not
      if (buf[pending] === OPEN && len - pending > MAX_OBJECT_BYTES) sink.problem('too-long');
      if (eof) break;
      skipping = { depth: 0, max: 0, inString: false, escape: false };
      structural(buf, pending, len, skipping);
      len = 0;
    } else {
      buf.copyWithin(0, pending, len);
      len -= pending;
    }
    if (!eof) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (!started) sink.problem('not-array');
  else if (!closed) sink.problem('truncated');
}
