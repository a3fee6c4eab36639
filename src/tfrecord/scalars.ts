// Scalars out of the serialized tensorboard.Event records of one file. Records that repeat a
// learned byte layout (event-shapes.ts) are read at its holes, most of them matched to it by the
// wasm scan already; the others take the full protobuf decode (event-decoder.ts), from which
// their shape is learned.
import * as protobuf from 'protobufjs';
import { EventDecoder } from './event-decoder';
import { EventShape, PackedShapes, ShapeTable, ShapeTag, readStepAt } from './event-shapes';
import type { ScalarSink } from './scalar-sink';
import { ENTRY_INTS, ENTRY_VALUES, RecordStatus, ScanResult } from './scan';

/** What decoding a chunk counts (the reader's statistics). */
export interface ChunkStats {
  records: number;
  /** Records the scan matched to a learned shape and decoded from it. */
  shaped: number;
  scalars: number;
  crcErrors: number;
  badHeaders: number;
  /** Records whose valid header claimed more than MAX_RECORD_BYTES. */
  oversized: number;
  skippedBytes: number;
  decodeErrors: number;
}

const NO_SHAPES: EventShape[] = [];
const NO_TAGS: (ShapeTag | undefined)[] = [];
const NO_STEPS = new Int32Array(0);
const NO_HITS = new Uint8Array(0);

/**
 * Decodes the scalars of one file's events. Events that repeat a learned shape
 * (event-shapes.ts) skip the full decode (event-decoder.ts).
 */
export class ScalarDecoder {
  private readonly shapes = new ShapeTable();
  // A tag that gets its plugin invalidates the shapes learned for its tensor values.
  private readonly events = new EventDecoder(() => this.shapes.clear());
  /** `learnShapes: false` keeps every record on the full decode (the reference the tests compare with). */
  constructor(private readonly opts: { learnShapes?: boolean } = {}) {}

  /** The shape of the previous record, when it had one (its `next` predicts this record's). */
  private prev: EventShape | undefined;
  private reader: protobuf.Reader | undefined;
  private view: DataView | undefined;
  private readerBuf: Uint8Array | undefined;

  /**
   * The packed shape table for the next scanChunk (undefined: no shapes), whose shape indexes
   * decodeChunk() then accepts.
   */
  shapesForScan(): PackedShapes | undefined {
    return this.opts.learnShapes === false ? undefined : this.shapes.packed();
  }

  private bind(buf: Buffer): void {
    this.reader = protobuf.Reader.create(buf);
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.readerBuf = buf;
  }

  /**
   * Decodes the records of a scanned chunk (scanChunk() entries over buf, scanned with `table`,
   * one that shapesForScan() returned) into sink and counts them into stats. Records the scan
   * matched to a shape are read at its holes; the rest, and any whose shape was cleared
   * meanwhile or whose step varint ends elsewhere, take decode(). Returns the number of
   * scalars added.
   */
  decodeChunk(buf: Buffer, scan: ScanResult, sink: ScalarSink, stats: ChunkStats, table: PackedShapes | undefined): number {
    if (this.readerBuf !== buf) this.bind(buf);
    const r = this.reader!;
    const dv = this.view!;
    const { entries, values, count } = scan;
    // Emptied by a clear() during the chunk, so that stale indexes find nothing.
    const shapes = table?.shapes ?? NO_SHAPES;
    const tags = table?.tags ?? NO_TAGS;
    const steps = table?.steps ?? NO_STEPS;
    const hits = table?.hits ?? NO_HITS;
    let scalars = 0;
    let records = 0;
    let shaped = 0;
    // The raw bytes of the step varint protobufjs decoded last, and its value: writers log
    // many tags at one step, so most records repeat them.
    let lastRaw = NaN;
    let lastStep = 0;
    for (let i = 0, k = 0, n = count * ENTRY_INTS; i < n; i += ENTRY_INTS, k += ENTRY_VALUES) {
      // the scanner writes a RecordStatus into each entry's status slot
      const status = entries[i + 2] as RecordStatus;
      if (status !== RecordStatus.Ok) {
        if (status === RecordStatus.DataCrcMismatch) stats.crcErrors++;
        else if (status === RecordStatus.Oversized) stats.oversized++;
        else stats.badHeaders++;
        stats.skippedBytes += entries[i + 1];
        continue;
      }
      records++;
      const index = entries[i + 3];
      if (index >= 0) {
        const tag = tags[index];
        if (tag !== undefined) {
          // One value: the scan read wall_time, value and the step's raw bytes; the step varint
          // is decoded by protobufjs (or equal to the one it decoded from the same bytes).
          const raw = values[k + 2];
          let step = lastStep;
          if (raw !== lastRaw) {
            step = readStepAt(r, entries[i] + 12, entries[i + 1], steps[2 * index], steps[2 * index + 1]);
            lastRaw = Number.isNaN(step) ? NaN : raw;
            lastStep = step;
          }
          if (!Number.isNaN(step)) {
            sink.add(tag.tag, step, values[k], values[k + 1], tag.id);
            hits[index] = 1;
            scalars++;
            shaped++;
            continue;
          }
        }
        // Several values: read at the holes here.
        const shape = tag === undefined ? shapes[index] : undefined;
        if (shape !== undefined) {
          const start = entries[i] + 12;
          const step = shape.readStep(r, start);
          if (!Number.isNaN(step)) {
            scalars += shape.emitValues(dv, start, step, shape.readWall(dv, start), sink);
            hits[index] = 1;
            shaped++;
            continue;
          }
        }
      }
      try {
        const start = entries[i] + 12;
        scalars += this.decode(buf, start, start + entries[i + 1], sink);
      } catch {
        stats.decodeErrors++;
      }
    }
    stats.records += records;
    stats.shaped += shaped;
    stats.scalars += scalars;
    return scalars;
  }

  /**
   * Decodes the Event in buf[start, end) and adds its scalars to sink. Returns the number of
   * scalars; throws (a RangeError or Error from protobufjs) on a malformed record.
   */
  decode(buf: Buffer, start: number, end: number, sink: ScalarSink): number {
    if (this.readerBuf !== buf) this.bind(buf);
    const r = this.reader!;
    const dv = this.view!;
    const len = end - start;
    if (this.opts.learnShapes === false) return this.events.decode(r, buf, start, end, sink);
    const guess = this.prev?.next;
    const shape = guess !== undefined && guess.length === len && guess.matches(dv, start) ? guess : this.shapes.find(dv, start, len);
    if (shape !== undefined) {
      const n = shape.emit(r, dv, start, sink);
      if (n >= 0) {
        shape.repeated = true;
        if (this.prev !== undefined) this.prev.next = shape;
        this.prev = shape;
        return n;
      }
    }
    this.prev = undefined;
    const count = this.events.decode(r, buf, start, end, sink);
    try {
      this.prev = this.shapes.learn(buf, start, end, this.events.layout, r);
    } catch {
      // A shape is only an optimisation: the points are already in the sink.
    }
    return count;
  }
}
