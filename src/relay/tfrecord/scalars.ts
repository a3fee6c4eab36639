// Scalars out of serialized tensorboard.Event records.
// The hot path walks Event → Summary → Value with protobufjs's Reader, using the field numbers
// of the parsed message definitions, and hands any nested message it needs (metadata, tensor)
// to the protobufjs-generated decoders. Everything else is skipped by wire type.
import * as protobuf from 'protobufjs';
import { EventLayout, EventShape, PackedShapes, ShapeTable, ShapeTag, readStepAt } from './event-shapes';
import { ENTRY_INTS, ENTRY_VALUES, RecordStatus, ScanResult } from './scan';
import { DataType, EventType, MetadataType, MetadataMsg, SummaryType, TensorMsg, TensorType, ValueType } from './event-proto';

/** What decoding a chunk counts (the reader's statistics). */
export interface ChunkStats {
  records: number;
  /** Records the scan matched to a learned shape and decoded from it. */
  shaped: number;
  scalars: number;
  crcErrors: number;
  badHeaders: number;
  skippedBytes: number;
  decodeErrors: number;
}

export interface ScalarSink {
  /** `tagId` is a small integer, the same for equal tags of one decoder (a cheap map key). */
  add(tag: string, step: number, wallTime: number, value: number, tagId: number): void;
}

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;
const key = (t: protobuf.Type, field: string, wire: number) => (t.fields[field].id << 3) | wire;

const EV_WALL = key(EventType, 'wall_time', WIRE_I64);
const EV_STEP = key(EventType, 'step', WIRE_VARINT);
const EV_SUMMARY = key(EventType, 'summary', WIRE_LEN);
const SUM_VALUE = key(SummaryType, 'value', WIRE_LEN);
const VAL_TAG = key(ValueType, 'tag', WIRE_LEN);
const VAL_SIMPLE = key(ValueType, 'simple_value', WIRE_I32);
const VAL_METADATA = key(ValueType, 'metadata', WIRE_LEN);
const VAL_TENSOR = key(ValueType, 'tensor', WIRE_LEN);

interface TagEntry {
  bytes: Buffer;
  tag: string;
  id: number;
}

/** Interns tag strings by their UTF-8 bytes, so the hot path rarely decodes a string. */
class TagInterner {
  /** Direct-mapped cache on (length, first, middle, last byte): hits without hashing. */
  private readonly slots: (TagEntry | undefined)[] = new Array(1024);
  private readonly table = new Map<number, TagEntry[]>();
  private count = 0;

  intern(buf: Uint8Array, start: number, len: number): TagEntry {
    const end = start + len;
    const slot = len === 0 ? 0 : (len * 31 + buf[start] * 7 + buf[start + (len >> 1)] * 3 + buf[end - 1]) & 1023;
    const hit = this.slots[slot];
    if (hit && same(hit.bytes, buf, start, len)) return hit;
    const e = this.lookup(buf, start, len);
    this.slots[slot] = e;
    return e;
  }

  private lookup(buf: Uint8Array, start: number, len: number): TagEntry {
    let h = Math.imul(len, 0x9e3779b1);
    for (let i = start, end = start + len; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    let bucket = this.table.get(h);
    if (bucket) {
      for (const e of bucket) if (same(e.bytes, buf, start, len)) return e;
    } else {
      bucket = [];
      this.table.set(h, bucket);
    }
    const bytes = Buffer.from(buf.subarray(start, start + len));
    const e = { bytes, tag: bytes.toString('utf8'), id: this.count++ };
    bucket.push(e);
    return e;
  }
}

function same(a: Buffer, buf: Uint8Array, start: number, len: number): boolean {
  if (a.length !== len) return false;
  let i = len - 1;
  // Tags often share prefixes ("rollout/…"): compare from the end, 4 bytes per step.
  for (; i >= 3; i -= 4) {
    if (a[i] !== buf[start + i] || a[i - 1] !== buf[start + i - 1] || a[i - 2] !== buf[start + i - 2] || a[i - 3] !== buf[start + i - 3]) return false;
  }
  for (; i >= 0; i--) if (a[i] !== buf[start + i]) return false;
  return true;
}

const NUMERIC = new Set<number>([
  DataType.DT_FLOAT, DataType.DT_DOUBLE, DataType.DT_HALF, DataType.DT_BFLOAT16, DataType.DT_INT32,
  DataType.DT_INT64, DataType.DT_INT16, DataType.DT_INT8, DataType.DT_UINT8, DataType.DT_UINT16,
  DataType.DT_UINT32, DataType.DT_UINT64, DataType.DT_BOOL,
]);

function halfToNumber(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/** The value of a 0-d (or single-element) numeric tensor, or undefined. */
export function tensorScalar(t: TensorMsg): number | undefined {
  const dtype = t.dtype ?? 0;
  if (!NUMERIC.has(dtype)) return undefined;
  const dims = t.tensor_shape?.dim ?? [];
  if (dims.some((d) => (d.size ?? 0) !== 1)) return undefined;
  const c = t.tensor_content;
  if (c && c.length > 0) {
    const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    switch (dtype) {
      case DataType.DT_FLOAT: return b.length === 4 ? b.readFloatLE(0) : undefined;
      case DataType.DT_DOUBLE: return b.length === 8 ? b.readDoubleLE(0) : undefined;
      case DataType.DT_HALF: return b.length === 2 ? halfToNumber(b.readUInt16LE(0)) : undefined;
      case DataType.DT_BFLOAT16: {
        if (b.length !== 2) return undefined;
        const f = Buffer.alloc(4);
        f.writeUInt16LE(b.readUInt16LE(0), 2);
        return f.readFloatLE(0);
      }
      case DataType.DT_INT32: return b.length === 4 ? b.readInt32LE(0) : undefined;
      case DataType.DT_INT64: return b.length === 8 ? Number(b.readBigInt64LE(0)) : undefined;
      case DataType.DT_UINT64: return b.length === 8 ? Number(b.readBigUInt64LE(0)) : undefined;
      case DataType.DT_UINT32: return b.length === 4 ? b.readUInt32LE(0) : undefined;
      case DataType.DT_INT16: return b.length === 2 ? b.readInt16LE(0) : undefined;
      case DataType.DT_UINT16: return b.length === 2 ? b.readUInt16LE(0) : undefined;
      case DataType.DT_INT8: return b.length === 1 ? b.readInt8(0) : undefined;
      case DataType.DT_UINT8: return b.length === 1 ? b.readUInt8(0) : undefined;
      case DataType.DT_BOOL: return b.length === 1 ? (b[0] ? 1 : 0) : undefined;
      default: return undefined;
    }
  }
  const first = <T>(a: T[] | undefined) => (a && a.length > 0 ? a[0] : undefined);
  switch (dtype) {
    case DataType.DT_FLOAT: return first(t.float_val);
    case DataType.DT_DOUBLE: return first(t.double_val);
    case DataType.DT_HALF:
    case DataType.DT_BFLOAT16: {
      const h = first(t.half_val);
      if (h === undefined) return undefined;
      if (dtype === DataType.DT_HALF) return halfToNumber(h);
      const f = Buffer.alloc(4);
      f.writeUInt16LE(h & 0xffff, 2);
      return f.readFloatLE(0);
    }
    case DataType.DT_INT64: return first(t.int64_val);
    case DataType.DT_UINT64: return first(t.uint64_val);
    case DataType.DT_UINT32: return first(t.uint32_val);
    case DataType.DT_BOOL: { const v = first(t.bool_val); return v === undefined ? undefined : v ? 1 : 0; }
    default: return first(t.int_val);
  }
}

const TEN_CONTENT = key(TensorType, 'tensor_content', WIRE_LEN);
const TEN_FLOAT_PACKED = key(TensorType, 'float_val', WIRE_LEN);
const TEN_FLOAT = key(TensorType, 'float_val', WIRE_I32);
const TEN_DOUBLE_PACKED = key(TensorType, 'double_val', WIRE_LEN);
const TEN_DOUBLE = key(TensorType, 'double_val', WIRE_I64);

/**
 * Where in tensor bytes [start, end) the value tensorScalar() took lies, for a float or double
 * tensor (a shape hole); undefined for any other encoding. Walks the fields with the Reader.
 */
function locateTensorValue(r: protobuf.Reader, start: number, end: number, t: TensorMsg): { pos: number; wide: boolean } | undefined {
  const c = t.tensor_content;
  const fromContent = c !== undefined && c.length > 0;
  let content = -1;
  let first = -1;
  r.pos = start;
  r.len = end;
  while (r.pos < end) {
    const k = r.uint32();
    if (k === TEN_CONTENT) {
      const n = r.uint32();
      content = n === (t.dtype === DataType.DT_DOUBLE ? 8 : 4) ? r.pos : -1; // the last one counts
      r.pos += n;
    } else if ((k === TEN_FLOAT_PACKED && t.dtype === DataType.DT_FLOAT) || (k === TEN_DOUBLE_PACKED && t.dtype === DataType.DT_DOUBLE)) {
      const n = r.uint32();
      if (first < 0 && n > 0) first = r.pos;
      r.pos += n;
    } else if ((k === TEN_FLOAT && t.dtype === DataType.DT_FLOAT) || (k === TEN_DOUBLE && t.dtype === DataType.DT_DOUBLE)) {
      if (first < 0) first = r.pos;
      r.skipType(k & 7);
    } else r.skipType(k & 7);
  }
  const pos = fromContent ? content : first;
  if (pos < 0 || (t.dtype !== DataType.DT_FLOAT && t.dtype !== DataType.DT_DOUBLE)) return undefined;
  return { pos, wide: t.dtype === DataType.DT_DOUBLE };
}

const NO_SHAPES: EventShape[] = [];
const NO_TAGS: (ShapeTag | undefined)[] = [];
const NO_STEPS = new Int32Array(0);
const NO_HITS = new Uint8Array(0);

/**
 * Decodes the scalars of one file's events. Keeps, per tag, the plugin named by the first
 * metadata seen (TF2 may write it only once per tag), so histograms or text written as tensors
 * are never taken for scalars. Events that repeat a learned shape (event-shapes.ts) skip the walk.
 */
export class ScalarDecoder {
  private readonly tags = new TagInterner();
  private readonly plugins = new Map<string, string>();
  private readonly shapes = new ShapeTable();
  /** `learnShapes: false` keeps every record on the full decode (the reference the tests compare with). */
  constructor(private readonly opts: { learnShapes?: boolean } = {}) {}

  /** The shape of the previous record, when it had one (its `next` predicts this record's). */
  private prev: EventShape | undefined;
  private readonly layout: EventLayout = { wallPos: -1, stepPos: -1, stepEnd: -1, wall: 0, step: 0, values: [], learnable: true };
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
      const status = entries[i + 2];
      if (status !== RecordStatus.Ok) {
        if (status === RecordStatus.DataCrcMismatch) {
          stats.crcErrors++;
          stats.skippedBytes += entries[i + 1] + 16;
        } else {
          stats.badHeaders++;
          stats.skippedBytes += entries[i + 1];
        }
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
            lastRaw = step === step ? raw : NaN;
            lastStep = step;
          }
          if (step === step) {
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
          if (step === step) {
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
    if (this.opts.learnShapes === false) return this.decodeFully(r, buf, start, end, sink);
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
    const count = this.decodeFully(r, buf, start, end, sink);
    try {
      this.prev = this.shapes.learn(buf, start, end, this.layout, r);
    } catch {
      // A shape is only an optimisation: the points are already in the sink.
    }
    return count;
  }

  /** The protobuf walk; records in this.layout where the variable fields were. */
  private decodeFully(r: protobuf.Reader, buf: Buffer, start: number, end: number, sink: ScalarSink): number {
    const layout = this.layout;
    layout.wallPos = layout.stepPos = layout.stepEnd = -1;
    layout.values.length = 0;
    layout.learnable = true;
    r.pos = start;
    r.len = end;
    let wall = 0;
    let step = 0;
    let summaryStart = -1;
    let summaryEnd = -1;
    while (r.pos < end) {
      const k = r.uint32();
      if (k === EV_WALL) {
        layout.wallPos = r.pos - start;
        wall = r.double();
      } else if (k === EV_STEP) {
        layout.stepPos = r.pos - start;
        step = r.int64() as unknown as number;
        layout.stepEnd = r.pos - start;
      } else if (k === EV_SUMMARY) {
        const n = r.uint32();
        summaryStart = r.pos;
        summaryEnd = summaryStart + n;
        if (summaryEnd > end) throw new RangeError('summary overruns the record');
        r.pos = summaryEnd;
      } else this.skip(r, k);
    }
    if (r.pos !== end) throw new RangeError('event overruns the record');
    layout.wall = wall;
    layout.step = step;
    if (summaryStart < 0) return 0;
    // The summary may precede step/wall_time on the wire, so it is read after the event fields.
    let count = 0;
    r.pos = summaryStart;
    r.len = summaryEnd;
    while (r.pos < summaryEnd) {
      const k = r.uint32();
      if (k !== SUM_VALUE) {
        this.skip(r, k);
        continue;
      }
      const vEnd = r.uint32() + r.pos;
      if (vEnd > summaryEnd) throw new RangeError('value overruns the summary');
      r.len = vEnd;
      let tag: TagEntry | undefined;
      let value: number | undefined;
      let valuePos = -1;
      let valueFields = 0;
      let tensor: TensorMsg | undefined;
      let tensorStart = -1;
      let tensorEnd = -1;
      let meta: MetadataMsg | undefined;
      while (r.pos < vEnd) {
        const vk = r.uint32();
        if (vk === VAL_TAG) {
          const n = r.uint32();
          if (r.pos + n > vEnd) throw new RangeError('tag overruns the value');
          tag = this.tags.intern(buf, r.pos, n);
          r.pos += n;
        } else if (vk === VAL_SIMPLE) {
          valueFields++;
          valuePos = r.pos;
          value = r.float();
          tensor = undefined;
        } else if (vk === VAL_TENSOR) {
          valueFields++;
          const n = r.uint32();
          tensorStart = r.pos;
          tensorEnd = r.pos + n;
          tensor = TensorType.decode(r, n) as unknown as TensorMsg;
          value = undefined;
        } else if (vk === VAL_METADATA) {
          meta = MetadataType.decode(r, r.uint32()) as unknown as MetadataMsg;
        } else this.skip(r, vk);
      }
      r.len = summaryEnd;
      if (tag === undefined) continue;
      if (meta?.plugin_data?.plugin_name && !this.plugins.has(tag.tag)) {
        this.plugins.set(tag.tag, meta.plugin_data.plugin_name);
        // Learned shapes of tensor values assumed the tag had no plugin yet.
        this.shapes.clear();
      }
      if (tensor) {
        const plugin = this.plugins.get(tag.tag);
        if (plugin !== undefined && plugin !== 'scalars') continue;
        value = tensorScalar(tensor);
      }
      if (value === undefined) continue;
      sink.add(tag.tag, step, wall, value, tag.id);
      count++;
      if (!layout.learnable) continue;
      let at: { pos: number; wide: boolean } | undefined = { pos: valuePos, wide: false };
      if (tensor) {
        const resume = r.pos;
        try {
          at = locateTensorValue(r, tensorStart, tensorEnd, tensor);
        } catch {
          at = undefined;
        }
        r.pos = resume;
        r.len = summaryEnd;
      }
      if (valueFields !== 1 || at === undefined) layout.learnable = false;
      else layout.values.push({ pos: at.pos - start, wide: at.wide, tag, value });
    }
    r.len = end;
    return count;
  }

  private skip(r: protobuf.Reader, k: number): void {
    const wire = k & 7;
    if (k >>> 3 === 0 || wire === 3 || wire === 4 || wire > 5) throw new Error(`invalid wire key ${k}`);
    r.skipType(wire);
  }
}

/** Reference decoding through the full generated decoder (tests compare the hot path to it). */
export function decodeEventFully(data: Uint8Array): protobuf.Message {
  return EventType.decode(data);
}
