// Details on demand: the points of one tag in a step range, read again from the file regions
// the envelope pass indexed (file-index.ts) — the relay never keeps the points themselves.
// When the range holds more than `maxPoints`, the answer is a finer envelope of it instead
// (at most maxPoints buckets), so one answer is bounded whatever the range. The points are
// gathered in Float64Array columns (readDetailColumns): a reading client flooding `detail` for
// 50 k points made number arrays of ~0.8 MB an answer in V8's large-object space, garbage that
// only a full collection frees (80 MB of it between two in the relay-hostile bench); a typed
// column's bytes are outside the heap, freed with its young wrapper.
import type { DetailMessage } from '../../relay-protocol/envelope';
import { toWireNumber } from '../../relay-protocol/messages';
import { TfRecordFileReader } from '../../tfrecord/file-reader';
import type { ScalarSink } from '../../tfrecord/scalar-sink';
import { EnvelopeBuilder } from './builder';
import type { Region } from './file-index';

export interface DetailQuery {
  tag: string;
  from: number;
  to: number;
  maxPoints: number;
}

/** The exact points of a detail answer, one column each (as many as `length`). */
export interface DetailColumns {
  step: Float64Array;
  wallTime: Float64Array;
  value: Float64Array;
}

/**
 * Columns given back once their answer was written, for the next answers (the POOLED largest).
 * A client flooding `detail` requests otherwise cost ~3 MB of new columns an answer; promoted
 * while the answer was written in turns, they left their bytes to the next full collection.
 */
const pool: Float64Array[] = [];
/** Three answers' columns: at most ~1 MB each (maxPoints is bounded), so ≤ ~9 MB kept. */
const POOLED = 9;

/** A column with room for `capacity` points: the smallest pooled one that fits, or a new one. */
function column(capacity: number): Float64Array {
  let best = -1;
  for (let i = 0; i < pool.length; i++) if (pool[i].length >= capacity && (best < 0 || pool[i].length < pool[best].length)) best = i;
  return best >= 0 ? pool.splice(best, 1)[0] : new Float64Array(capacity);
}

function giveBack(a: Float64Array): void {
  if (a.buffer.byteLength === 0) return;
  pool.push(new Float64Array(a.buffer));
  if (pool.length > POOLED) {
    pool.sort((x, y) => y.length - x.length);
    pool.length = POOLED;
  }
}

/** Gives a detail answer's columns back once its text is written (they are not to be read after). */
export function releaseColumns(c: DetailColumns): void {
  giveBack(c.step);
  giveBack(c.wallTime);
  giveBack(c.value);
}

/** A column with room for point `n`: `a`, or a column twice its size holding its points (`a` given back). */
function grown(a: Float64Array, n: number): Float64Array {
  if (n < a.length) return a;
  const b = column(Math.max(1024, a.length * 2));
  b.set(a);
  giveBack(a);
  return b;
}

/** Collects the points of the query: exactly while they fit, then as an envelope. */
class DetailSink implements ScalarSink {
  step: Float64Array = new Float64Array(0);
  wall: Float64Array = new Float64Array(0);
  value: Float64Array = new Float64Array(0);
  n = 0;
  envelope: EnvelopeBuilder | undefined;
  /** The decoder's id of the tag (-2: not seen by the current reader). */
  tagId = -2;

  constructor(private readonly q: DetailQuery) {}

  add(tag: string, step: number, wallTime: number, value: number, tagId: number): void {
    if (tagId !== this.tagId) {
      if (tag !== this.q.tag) return;
      if (tagId >= 0) this.tagId = tagId;
    }
    if (step < this.q.from || step > this.q.to) return;
    if (this.envelope) {
      this.envelope.add(step, wallTime, value);
      return;
    }
    const i = this.n++;
    if (i >= this.step.length) {
      this.step = grown(this.step, i);
      this.wall = grown(this.wall, i);
      this.value = grown(this.value, i);
    }
    this.step[i] = step;
    this.wall[i] = wallTime;
    this.value[i] = value;
    if (this.n > this.q.maxPoints) this.spill();
  }

  /** Too many points: from now on an envelope over the range, the points so far folded into it. */
  private spill(): void {
    const { from, to, maxPoints } = this.q;
    // Buckets of a power-of-two width aligned at multiples of it: the range fits in maxPoints of them.
    let width = Math.max(1, 2 ** Math.ceil(Math.log2(Math.max(1, (to - from + 1) / maxPoints))));
    while (Math.floor(to / width) - Math.floor(from / width) + 1 > maxPoints) width *= 2;
    const b = new EnvelopeBuilder(maxPoints, width);
    for (let i = 0; i < this.n; i++) b.add(this.step[i], this.wall[i], this.value[i]);
    this.envelope = b;
    releaseColumns({ step: this.step, wallTime: this.wall, value: this.value });
    this.step = this.wall = this.value = new Float64Array(0);
    this.n = 0;
  }
}

/** Bytes decoded between two checks of the time slice. */
const SLICE_BYTES = 256 * 1024;
/** Work between two yields to the event loop (ms): a region can be the whole file (adjacent stretches join). */
const SLICE_MS = 10;

/** The query's points as number arrays, as they go on the wire (readDetailColumns). */
export async function readDetail(file: string, regions: Region[], q: DetailQuery): Promise<Pick<DetailMessage, 'points' | 'envelope'>> {
  const { points, envelope } = await readDetailColumns(file, regions, q);
  if (envelope) return { envelope };
  const out = { step: Array.from(points!.step), wallTime: Array.from(points!.wallTime), value: Array.from(points!.value, toWireNumber) };
  releaseColumns(points!);
  return { points: out };
}

/** Reads `regions` of an event file for the query's points, yielding every SLICE_MS so other clients take turns. */
export async function readDetailColumns(
  file: string,
  regions: Region[],
  q: DetailQuery,
): Promise<{ points?: DetailColumns; envelope?: DetailMessage['envelope'] }> {
  const sink = new DetailSink(q);
  let since = Date.now();
  for (const region of regions) {
    // Its own reader per region, with no read-ahead: it reads exactly [start, end).
    const reader = new TfRecordFileReader(file, region.start, { pipelineMinBytes: Infinity, end: region.end });
    sink.tagId = -2;
    try {
      while (reader.offset < region.end) {
        const r = reader.read(sink, Math.min(SLICE_BYTES, region.end - reader.offset));
        if (r.consumed === 0) break;
        if (Date.now() - since >= SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          since = Date.now();
        }
      }
    } finally {
      reader.close();
    }
  }
  if (sink.envelope) return { envelope: sink.envelope.columns() };
  return { points: { step: sink.step.subarray(0, sink.n), wallTime: sink.wall.subarray(0, sink.n), value: sink.value.subarray(0, sink.n) } };
}
