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
import { type TimelineSink, scanTimeline } from './timeline-scan';
import { StringTable } from './timeline-strings';

/** Bytes read per chunk (the reader's own buffer). */
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Events kept at most (columns of ~20 bytes: 160 MB would be the bound; a file this big is cut). */
const MAX_EVENTS = 8_000_000;

/** About the fewest bytes a Ray event takes (the real file's average is ~260): sizes the columns ahead. */
const EVENT_BYTES = 200;

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

/** The events' columns, grown together (each typed array of one kind: its stores stay monomorphic). */
class Columns {
  length = 0;
  lane: Uint32Array;
  start: Float64Array;
  dur: Float32Array;
  name: Uint32Array;

  /** `expected`: the events the file likely holds (grown beyond as needed). */
  constructor(expected: number) {
    const n = Math.max(1024, Math.min(MAX_EVENTS, Math.ceil(expected)));
    this.lane = new Uint32Array(n);
    this.start = new Float64Array(n);
    this.dur = new Float32Array(n);
    this.name = new Uint32Array(n);
  }

  push(lane: number, start: number, dur: number, name: number): void {
    const k = this.length;
    if (k === this.lane.length) this.grow();
    this.lane[k] = lane;
    this.start[k] = start;
    this.dur[k] = dur;
    this.name[k] = name;
    this.length = k + 1;
  }

  private grow(): void {
    const n = this.lane.length * 2;
    const lane = new Uint32Array(n);
    lane.set(this.lane);
    this.lane = lane;
    const start = new Float64Array(n);
    start.set(this.start);
    this.start = start;
    const dur = new Float32Array(n);
    dur.set(this.dur);
    this.dur = dur;
    const name = new Uint32Array(n);
    name.set(this.name);
    this.name = name;
  }
}

/** What an event's cat says: the actor it constructs, or the class of its task; the name (string id) last seen with it and its event name. */
interface CatInfo {
  actor: string | undefined;
  cls: string | undefined;
  name: number;
  nameId: number;
}

/** An actor's name and class from its constructor's category ("task::explorer:Explorer.__init__"). */
function actorOf(cat: string): string | undefined {
  const m = /^task::(?:([^:]+):)?([A-Za-z_][\w]*)\.__init__$/.exec(cat);
  if (!m) return undefined;
  return m[1] ? `${m[1]} (${m[2]})` : m[2];
}

/** JavaScript's Math.round to a tenth (the Python relay rounds the same way). */
const tenth = (v: number) => Math.round(v * 10) / 10;

export class TimelineIndex implements TimelineSink {
  readonly strings = new StringTable();
  /** Lane by pid and tid (string ids: pid · 2^26 + tid). */
  private readonly laneIds = new Map<number, number>();
  private readonly laneLabels: string[] = [];
  /** Event name by cat and name (string ids, as lanes). */
  private readonly nameOf = new Map<number, number>();
  private readonly nameIds = new Map<string, number>();
  readonly names: string[] = [];
  /** Per cat (string id + 1); null: not seen yet. */
  private readonly catInfo: (CatInfo | null)[] = [];
  private readonly columns: Columns;
  private corrupt = 0;
  private tooLong = 0;
  private truncated = false;
  private notArray = false;
  private capped = false;
  /** Per lane, the class seen in its tasks (a lane without a constructor event). */
  private readonly laneClass = new Map<number, string>();
  origin = Infinity;
  private end = -Infinity;
  /** The last event's pid, tid (string ids; -2: none yet) and lane. */
  private lastPid = -2;
  private lastTid = -2;
  private lastLane = -1;

  private constructor(
    readonly file: string,
    readonly bytes: number,
    readonly mtimeMs: number,
  ) {
    // sized once for the file (growing them in steps cost ~0.1 s on 200 MB)
    this.columns = new Columns(bytes / EVENT_BYTES);
  }

  /** Reads `file` chunk by chunk (timeline-scan.ts), yielding to the event loop between chunks. */
  static async read(file: string, opts: { chunkBytes?: number } = {}): Promise<TimelineIndex> {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      const index = new TimelineIndex(file, st.size, st.mtimeMs);
      await scanTimeline(fd, opts.chunkBytes ?? CHUNK_BYTES, index);
      return index;
    } finally {
      fs.closeSync(fd);
    }
  }

  get events(): number {
    return this.columns.length;
  }

  problem(kind: 'not-array' | 'corrupt' | 'too-long' | 'truncated'): void {
    if (kind === 'not-array') this.notArray = true;
    else if (kind === 'corrupt') this.corrupt++;
    else if (kind === 'too-long') this.tooLong++;
    else this.truncated = true;
  }

  event(ts: number, dur: number, pid: number, tid: number, cat: number, name: number): boolean {
    if (this.columns.length >= MAX_EVENTS) {
      this.capped = true;
      return false;
    }
    const text = this.strings.text;
    // neighbouring events mostly share their worker: the last lane tried first
    let lane = this.lastLane;
    if (pid !== this.lastPid || tid !== this.lastTid) {
      const laneKey = pid * 67108864 + tid;
      lane = this.laneIds.get(laneKey) ?? -1;
      if (lane < 0) {
        lane = this.laneLabels.length;
        this.laneIds.set(laneKey, lane);
        const t = text[tid];
        this.laneLabels.push(t.startsWith('driver:') ? `driver · ${text[pid]}` : `${t.slice(0, 15)} · ${text[pid]}`);
      }
      this.lastPid = pid;
      this.lastTid = tid;
      this.lastLane = lane;
    }
    let info = cat + 1 < this.catInfo.length ? this.catInfo[cat + 1] : null;
    if (info === null) {
      const c = cat < 0 ? '' : text[cat];
      const actor = actorOf(c);
      info = { actor, cls: actor ? undefined : /^task::(?:[^:]+:)?([A-Za-z_]\w*)\./.exec(c)?.[1], name: -2, nameId: -1 };
      // grown in order (no holes: a sparse array would fall back to a dictionary)
      while (this.catInfo.length <= cat + 1) this.catInfo.push(null);
      this.catInfo[cat + 1] = info;
    }
    if (info.actor) this.laneLabels[lane] = `${info.actor} · ${text[pid]}`;
    else if (info.cls && !this.laneClass.has(lane)) this.laneClass.set(lane, info.cls);
    // a cat mostly comes with one name: the last one tried first
    let nameId = info.nameId;
    if (name !== info.name) {
      const nameKey = (cat + 1) * 67108864 + name + 1;
      nameId = this.nameOf.get(nameKey) ?? -1;
      if (nameId < 0) {
        const c = cat < 0 ? '' : text[cat];
        const label = c.startsWith('task::') ? c.slice(6) : name >= 0 ? text[name] : c;
        nameId = this.nameIds.get(label) ?? -1;
        if (nameId < 0) {
          nameId = this.names.length;
          this.nameIds.set(label, nameId);
          this.names.push(label);
        }
        this.nameOf.set(nameKey, nameId);
      }
      info.name = name;
      info.nameId = nameId;
    }
    this.columns.push(lane, ts, dur, nameId);
    if (ts < this.origin) this.origin = ts;
    if (ts + dur > this.end) this.end = ts + dur;
    return true;
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

  /**
   * The events overlapping [from, to] (µs since the first event), in file order; over
   * `maxEvents`, the longest kept (longest first, ties in file order) and the rest counted.
   */
  window(from: number | null, to: number | null, maxEvents: number): TimelineWindow {
    const origin = Number.isFinite(this.origin) ? this.origin : 0;
    const span = Number.isFinite(this.end) ? this.end - origin : 0;
    const lo = from ?? 0;
    const hi = to ?? span;
    const { start, dur, length: count } = this.columns;
    const hits = new Uint32Array(count);
    let h = 0;
    for (let i = 0; i < count; i++) {
      const s = start[i] - origin;
      if (s <= hi && s + dur[i] >= lo) hits[h++] = i;
    }
    let kept: ArrayLike<number> = hits.subarray(0, h);
    if (h > maxEvents) kept = longest(hits.subarray(0, h), dur, maxEvents);
    const out: TimelineWindow = {
      from: lo,
      to: hi,
      origin,
      span,
      lanes: this.lanes(),
      lane: new Array<number>(kept.length),
      start: new Array<number>(kept.length),
      dur: new Array<number>(kept.length),
      name: new Array<number>(kept.length),
      names: this.names,
      dropped: h - kept.length,
      problems: this.problems(),
    };
    for (let k = 0; k < kept.length; k++) {
      const i = kept[k];
      out.lane[k] = this.columns.lane[i];
      out.start[k] = tenth(start[i] - origin);
      out.dur[k] = tenth(dur[i]);
      out.name[k] = this.columns.name[i];
    }
    return out;
  }
}

/**
 * The `k` longest of `hits` (indexes into `dur`), longest first, ties in file order: what a stable
 * sort by duration and a cut give, without sorting them all (the k-th duration found on a sorted
 * copy of the durations, then only those at least as long sorted).
 */
function longest(hits: Uint32Array, dur: Float32Array, k: number): number[] {
  const d = new Float32Array(hits.length);
  for (let j = 0; j < hits.length; j++) d[j] = dur[hits[j]];
  d.sort();
  const threshold = d[d.length - k];
  let above = 0;
  for (let j = d.length - k; j < d.length; j++) if (d[j] > threshold) above++;
  let ties = k - above;
  const out: number[] = [];
  for (const i of hits) {
    const v = dur[i];
    if (v > threshold) out.push(i);
    else if (v === threshold && ties > 0) {
      out.push(i);
      ties--;
    }
  }
  return out.sort((a, b) => dur[b] - dur[a] || a - b);
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
