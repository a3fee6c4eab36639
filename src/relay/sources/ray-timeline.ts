// Ray's timeline of a run (`ray.timeline(filename=…)`, which Trinity's launcher calls with
// monitor.enable_ray_timeline, writing <job dir>/monitor/timeline.json): a JSON array of Chrome
// trace events, one complete event ("ph": "X") per task phase, `pid` the node and `tid` the
// worker; an actor's worker is named by its `__init__` event ("task::explorer:Explorer.__init__").
// These files reach hundreds of MB, so the file is never held whole: it is read in chunks,
// object by object, into columns (lane, start, duration, name: about 20 bytes an event), and
// windows are cut from those. A corrupt object is skipped and counted, a truncated file keeps
// what came before the cut; both are said in the slice's `problems`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TimelineReplyMessage, TimelineRequestMessage } from '../../relay-protocol/messages';

/** Bytes read per chunk (the reader's own buffer). */
const CHUNK_BYTES = 1024 * 1024;
/** An event object longer than this is skipped (Ray's are a few hundred bytes). */
const MAX_OBJECT_BYTES = 1024 * 1024;
/** Events kept at most (columns of ~20 bytes: 160 MB would be the bound; a file this big is cut). */
const MAX_EVENTS = 8_000_000;

const TIMELINE_FILE = 'monitor/timeline.json';

export interface TimelineWindow {
  /** µs since the first event. */
  from: number;
  to: number;
  /** The first event's time (µs since the epoch, as Ray writes `ts`). */
  origin: number;
  span: number;
  lanes: string[];
  lane: number[];
  start: number[];
  dur: number[];
  name: number[];
  names: string[];
  dropped: number;
  problems: TimelineProblem[];
}

/** Corrupt events skipped, over-long ones skipped, the file cut short (count: events read before), too many events (count: the cap); not an array. */
export interface TimelineProblem {
  kind: 'not-array' | 'corrupt' | 'too-long' | 'truncated' | 'capped';
  count: number;
}

class Column<T extends Float64Array | Float32Array | Uint32Array> {
  data: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.data = make(1024);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_ARRAY = 0x5b;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const COLON = 0x3a;
const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** Which kept field a key (bytes [s, e) of `b`, unquoted) is, or undefined: compared byte-wise, no string made. */
function wanted(b: Buffer, s: number, e: number): string | undefined {
  const c0 = b[s];
  const c1 = b[s + 1];
  switch (e - s) {
    case 2:
      return c0 === 0x70 && c1 === 0x68 ? 'ph' : c0 === 0x74 && c1 === 0x73 ? 'ts' : undefined;
    case 3: {
      const c2 = b[s + 2];
      if (c0 === 0x64 && c1 === 0x75 && c2 === 0x72) return 'dur';
      if (c0 === 0x70 && c1 === 0x69 && c2 === 0x64) return 'pid';
      if (c0 === 0x74 && c1 === 0x69 && c2 === 0x64) return 'tid';
      if (c0 === 0x63 && c1 === 0x61 && c2 === 0x74) return 'cat';
      return undefined;
    }
    case 4:
      return c0 === 0x6e && c1 === 0x61 && b[s + 2] === 0x6d && b[s + 3] === 0x65 ? 'name' : undefined;
    default:
      return undefined;
  }
}

/**
 * The fields the index keeps of one event object (bytes [from, to) of `b`: `{"cat": "...",
 * "ts": 1.5, ..., "args": {...}}`), read in place: strings without escapes and plain numbers at
 * its top level, nested values skipped. Undefined when the object is not that simple (then
 * JSON.parse decides, and says when it is corrupt).
 */
function topFields(b: Buffer, from: number, to: number): Record<string, string | number> | undefined {
  const out: Record<string, string | number> = {};
  let i = from + 1;
  let first = true;
  /** The end quote of the string starting at i (no escapes), or -1. */
  const strEnd = (): number => {
    if (b[i] !== QUOTE) return -1;
    const end = b.indexOf(QUOTE, i + 1);
    if (end < 0 || end >= to) return -1;
    for (let k = i + 1; k < end; k++) if (b[k] === BACKSLASH) return -1;
    return end;
  };
  for (;;) {
    while (i < to && isSpace(b[i])) i++;
    if (b[i] === CLOSE && first) return i === to - 1 ? out : undefined;
    first = false;
    const keyEnd = strEnd();
    if (keyEnd < 0) return undefined;
    const key = wanted(b, i + 1, keyEnd);
    i = keyEnd + 1;
    while (i < to && isSpace(b[i])) i++;
    if (b[i] !== COLON) return undefined;
    i++;
    while (i < to && isSpace(b[i])) i++;
    const c = b[i];
    if (c === QUOTE) {
      const end = strEnd();
      if (end < 0) return undefined;
      if (key) out[key] = b.toString('utf8', i + 1, end);
      i = end + 1;
    } else if (c === OPEN || c === OPEN_ARRAY) {
      if (key) return undefined;
      let depth = 0;
      for (; i < to; i++) {
        const d = b[i];
        if (d === QUOTE) {
          const end = strEnd();
          if (end < 0) return undefined;
          i = end;
        } else if (d === OPEN || d === OPEN_ARRAY) depth++;
        else if (d === CLOSE || d === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) break;
        }
      }
      if (depth !== 0) return undefined;
      i++;
    } else {
      const start = i;
      while (i < to && b[i] !== COMMA && b[i] !== CLOSE && !isSpace(b[i])) i++;
      if (key) {
        const text = b.toString('latin1', start, i);
        if (!NUMBER.test(text)) return undefined;
        out[key] = Number(text);
      }
    }
    while (i < to && isSpace(b[i])) i++;
    if (b[i] === COMMA) i++;
    else if (b[i] === CLOSE) return i === to - 1 ? out : undefined;
    else return undefined;
  }
}

/** Backslashes right before `at` (not before `from`). */
function backslashesBefore(buf: Buffer, at: number, from: number): number {
  let k = 0;
  while (at - k - 1 >= from && buf[at - k - 1] === BACKSLASH) k++;
  return k;
}

/** An actor's name and class from its constructor's category ("task::explorer:Explorer.__init__"). */
function actorOf(cat: string): string | undefined {
  const m = /^task::(?:([^:]+):)?([A-Za-z_][\w]*)\.__init__$/.exec(cat);
  if (!m) return undefined;
  return m[1] ? `${m[1]} (${m[2]})` : m[2];
}

export class TimelineIndex {
  private readonly laneIds = new Map<string, number>();
  private readonly laneLabels: string[] = [];
  private readonly nameIds = new Map<string, number>();
  readonly names: string[] = [];
  private readonly lane = new Column((n) => new Uint32Array(n));
  private readonly start = new Column((n) => new Float64Array(n));
  private readonly dur = new Column((n) => new Float32Array(n));
  private readonly name = new Column((n) => new Uint32Array(n));
  private corrupt = 0;
  private tooLong = 0;
  private truncated = false;
  private notArray = false;
  private capped = false;
  /** Per lane, the class seen in its tasks (a lane without a constructor event). */
  private readonly laneClass = new Map<number, string>();
  origin = Infinity;
  private end = -Infinity;

  private constructor(
    readonly file: string,
    readonly bytes: number,
    readonly mtimeMs: number,
  ) {}

  /** Reads `file` chunk by chunk, yielding to the event loop between chunks. */
  static async read(file: string, opts: { chunkBytes?: number } = {}): Promise<TimelineIndex> {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      const index = new TimelineIndex(file, st.size, st.mtimeMs);
      await index.scan(fd, opts.chunkBytes ?? CHUNK_BYTES);
      return index;
    } finally {
      fs.closeSync(fd);
    }
  }

  get events(): number {
    return this.lane.length;
  }

  private async scan(fd: number, chunkBytes: number): Promise<void> {
    const buf = Buffer.allocUnsafe(chunkBytes);
    let offset = 0;
    let depth = 0;
    let inString = false;
    let escape = false;
    let sawArray = false;
    /** Pieces of the object being read (it may span chunks); null: skipping an over-long one. */
    let pieces: Buffer[] | null = [];
    let pieceBytes = 0;
    let objStart = -1;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, chunkBytes, offset);
      if (n <= 0) break;
      offset += n;
      for (let i = 0; i < n; i++) {
        if (inString) {
          if (escape) {
            escape = false;
            continue;
          }
          // the string's end (native search; a quote after an odd run of backslashes is escaped)
          const q = buf.indexOf(QUOTE, i);
          if (q < 0 || q >= n) {
            escape = n > i && buf[n - 1] === BACKSLASH && backslashesBefore(buf, n, i) % 2 === 1;
            break;
          }
          if (backslashesBefore(buf, q, i) % 2 === 1) {
            i = q;
            continue;
          }
          inString = false;
          i = q;
          continue;
        }
        const c = buf[i];
        if (c === QUOTE) {
          inString = true;
        } else if (c === OPEN || c === OPEN_ARRAY) {
          if (depth === 0) {
            if (c === OPEN_ARRAY) sawArray = true;
            else this.notArray = true;
          }
          depth++;
          if (depth === 2 && c === OPEN) {
            objStart = i;
            pieces = [];
            pieceBytes = 0;
          }
        } else if (c === CLOSE || c === 0x5d) {
          depth--;
          if (depth === 1 && c === CLOSE && objStart >= 0) {
            if (pieces) {
              if (pieces.length) this.take(Buffer.concat([...pieces, buf.subarray(objStart, i + 1)]));
              else this.take(buf, objStart, i + 1);
            }
            objStart = -1;
          }
          if (depth < 0) depth = 0;
        }
      }
      // An object still open at the chunk's end: keep its piece (copied: the buffer is reused).
      if (objStart >= 0) {
        if (pieces) {
          pieceBytes += n - objStart;
          if (pieceBytes > MAX_OBJECT_BYTES) {
            pieces = null;
            this.tooLong++;
          } else pieces.push(Buffer.from(buf.subarray(objStart, n)));
        }
        objStart = 0;
      }
      if (this.capped) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!sawArray) this.notArray = true;
    if (depth > 0 && !this.capped) this.truncated = true;
  }

  private take(bytes: Buffer, from = 0, to = bytes.length): void {
    // The common shape read in place; anything else (or anything odd) goes through JSON.parse.
    let e: unknown = topFields(bytes, from, to);
    if (e === undefined) {
      try {
        e = JSON.parse(bytes.toString('utf8', from, to));
      } catch {
        this.corrupt++;
        return;
      }
    }
    const ev = e as { ph?: unknown; ts?: unknown; dur?: unknown; pid?: unknown; tid?: unknown; name?: unknown; cat?: unknown };
    if (ev.ph !== 'X') return;
    const ts = Number(ev.ts);
    const dur = Number(ev.dur ?? 0);
    if (!Number.isFinite(ts) || !Number.isFinite(dur) || dur < 0) {
      this.corrupt++;
      return;
    }
    if (this.lane.length >= MAX_EVENTS) {
      this.capped = true;
      return;
    }
    const laneKey = `${String(ev.pid)}\u0000${String(ev.tid)}`;
    let lane = this.laneIds.get(laneKey);
    if (lane === undefined) {
      lane = this.laneLabels.length;
      this.laneIds.set(laneKey, lane);
      const tid = String(ev.tid);
      this.laneLabels.push(tid.startsWith('driver:') ? `driver · ${String(ev.pid)}` : `${tid.slice(0, 15)} · ${String(ev.pid)}`);
    }
    const cat = typeof ev.cat === 'string' ? ev.cat : '';
    const actor = actorOf(cat);
    if (actor) this.laneLabels[lane] = `${actor} · ${String(ev.pid)}`;
    else if (!this.laneClass.has(lane)) {
      const cls = /^task::(?:[^:]+:)?([A-Za-z_]\w*)\./.exec(cat)?.[1];
      if (cls) this.laneClass.set(lane, cls);
    }
    const label = cat.startsWith('task::') ? cat.slice(6) : typeof ev.name === 'string' ? ev.name : cat;
    let nameId = this.nameIds.get(label);
    if (nameId === undefined) {
      nameId = this.names.length;
      this.nameIds.set(label, nameId);
      this.names.push(label);
    }
    this.lane.push(lane);
    this.start.push(ts);
    this.dur.push(dur);
    this.name.push(nameId);
    if (ts < this.origin) this.origin = ts;
    if (ts + dur > this.end) this.end = ts + dur;
  }

  /** Lane labels: an actor's name where its constructor was seen, else its class, else the worker. */
  lanes(): string[] {
    return this.laneLabels.map((l, i) => (l.startsWith('worker:') && this.laneClass.has(i) ? `${this.laneClass.get(i)} · ${l.split(' · ')[1]}` : l));
  }

  /** What went wrong reading the file (the view words it): corrupt or over-long events skipped, a cut. */
  problems(): TimelineProblem[] {
    const out: TimelineProblem[] = [];
    if (this.notArray) out.push({ kind: 'not-array', count: 0 });
    if (this.corrupt) out.push({ kind: 'corrupt', count: this.corrupt });
    if (this.tooLong) out.push({ kind: 'too-long', count: this.tooLong });
    if (this.truncated) out.push({ kind: 'truncated', count: this.events });
    if (this.capped) out.push({ kind: 'capped', count: MAX_EVENTS });
    return out;
  }

  /** The events overlapping [from, to] (µs since the first event), at most `maxEvents` (the longest kept). */
  window(from: number | null, to: number | null, maxEvents: number): TimelineWindow {
    const origin = Number.isFinite(this.origin) ? this.origin : 0;
    const span = Number.isFinite(this.end) ? this.end - origin : 0;
    const lo = from ?? 0;
    const hi = to ?? span;
    const hits: number[] = [];
    const start = this.start.data;
    const dur = this.dur.data;
    for (let i = 0; i < this.lane.length; i++) {
      const s = start[i] - origin;
      if (s <= hi && s + dur[i] >= lo) hits.push(i);
    }
    let kept = hits;
    if (hits.length > maxEvents) kept = hits.sort((a, b) => dur[b] - dur[a]).slice(0, maxEvents);
    const out: TimelineWindow = {
      from: lo,
      to: hi,
      origin,
      span,
      lanes: this.lanes(),
      lane: [],
      start: [],
      dur: [],
      name: [],
      names: this.names,
      dropped: hits.length - kept.length,
      problems: this.problems(),
    };
    for (const i of kept) {
      out.lane.push(this.lane.data[i]);
      out.start.push(Math.round((start[i] - origin) * 10) / 10);
      out.dur.push(Math.round(dur[i] * 10) / 10);
      out.name.push(this.name.data[i]);
    }
    return out;
  }
}

/** One index per file, rebuilt when the file changes (Ray writes it once, at the run's end). */
export class TimelineCache {
  private current: Promise<TimelineIndex> | undefined;
  private key = '';

  async get(file: string): Promise<TimelineIndex | undefined> {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      return undefined;
    }
    if (!st.isFile()) return undefined;
    const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
    if (key !== this.key || !this.current) {
      this.key = key;
      this.current = TimelineIndex.read(file);
      this.current.catch(() => {
        if (this.key === key) this.key = '';
      });
    }
    return this.current;
  }
}

/** Where a run's timeline.json would be: the job dir's (job mode: its root run), or <logdir>/<run>/. */
export function timelineFile(root: { mode: 'job' | 'logdir'; dir: string; run?: string }, run: string): string | undefined {
  if (root.mode === 'job') return run === (root.run ?? path.basename(root.dir)) ? path.join(root.dir, TIMELINE_FILE) : undefined;
  if (!run || run.split('/').some((p) => p === '..' || p === '' || p === '.')) return undefined;
  return path.join(root.dir, ...run.split('/'), TIMELINE_FILE);
}

/** The relay's answer to a `timeline` request. */
export async function timelineReply(
  cache: TimelineCache,
  root: { mode: 'job' | 'logdir'; dir: string; run?: string },
  m: TimelineRequestMessage,
): Promise<TimelineReplyMessage> {
  const file = timelineFile(root, m.run);
  const index = file ? await cache.get(file) : undefined;
  if (!index) return { type: 'timeline', request: m.request, none: true };
  return { type: 'timeline', request: m.request, window: { ...index.window(m.from, m.to, m.maxEvents), bytes: index.bytes } };
}
