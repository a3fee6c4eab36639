// Learned byte layouts ("shapes") of event records, so repeated events skip the protobuf walk.
//
// A writer logging one tag writes the same bytes every time except wall_time, step and the
// value: same field order, same tag bytes, same metadata, same lengths. After the full decode
// (protobufjs Reader + generated decoders) has read one such event and reported where it found
// those three fields, the record becomes a shape: its constant bytes plus holes at the learned
// offsets. A later record of the same length whose constant bytes are all equal decodes to the
// same structure, so its fields are read at the holes with protobufjs's own Reader (double,
// int64 varint, float) — no varint is decoded by hand. Anything different (one byte, the step
// varint's length) misses, and the caller falls back to the full decode.
//
// The table is also packed for the WebAssembly scan (scan.wat), which then matches records to
// shapes while it frames them, 16 bytes per compare.
import type * as protobuf from 'protobufjs';
import type { ScalarSink } from './scalar-sink';
import { SHAPE_TABLE_BYTES, SHAPE_TABLE_MAX } from './scan';

/** A tag as the decoder interned it (the strings are shared, the id is the sink's map key). */
export interface ShapeTag {
  readonly tag: string;
  readonly id: number;
}

/** Where the full decode found the variable fields of one event (offsets from the record start). */
export interface EventLayout {
  /** Offset of the 8 wall_time bytes, or -1 when absent (then 0). */
  wallPos: number;
  /** [stepPos, stepEnd) is the step varint, or stepPos = -1 when absent (then 0). */
  stepPos: number;
  stepEnd: number;
  /** What the full decode read for them. */
  wall: number;
  step: number;
  /** The scalars the full decode emitted, in order. */
  values: LayoutValue[];
  /** False when the event holds something a shape cannot replay (e.g. a repeated value field). */
  learnable: boolean;
}

export interface LayoutValue {
  /** Offset of the value's bytes: a little-endian float (4 bytes) or double (8 bytes). */
  pos: number;
  wide: boolean;
  tag: ShapeTag;
  /** The value the full decode produced (the shape is only kept if its hole reads the same). */
  value: number;
}

export class EventShape {
  /** The shape that followed this one last time (writers cycle through their tags in order). */
  next: EventShape | undefined;
  /** Matched by a record after the one it was learned from (a shape worth packing for the scan). */
  repeated = false;

  constructor(
    readonly length: number,
    /**
     * The 4-byte words holding constant bytes, as (offset, mask, expected value) triples, last
     * word first: the mask zeroes hole bytes; the last word may overlap its neighbour.
     */
    private readonly words: Int32Array,
    readonly wallPos: number,
    readonly stepPos: number,
    readonly stepEnd: number,
    readonly valuePos: Int32Array,
    readonly valueWide: Uint8Array,
    readonly tags: ShapeTag[],
    /** For the wasm scan: the constant bytes as 16-byte (offset, 0, 0, 0, mask, value) chunks. */
    private readonly chunks: Int32Array,
  ) {}

  /** Whether the wasm scan can match this shape (it compares 16 bytes at a time). */
  get packable(): boolean {
    return this.length >= 16;
  }

  /** Int32 words of this shape in a packed table (layout in scan.wat). */
  get packedSize(): number {
    return 8 + this.chunks.length;
  }

  pack(into: Int32Array, at: number): void {
    into[at] = this.length;
    into[at + 1] = this.chunks.length / 12;
    into[at + 2] = this.wallPos;
    into[at + 3] = this.tags.length === 1 ? 2 * this.valuePos[0] + this.valueWide[0] : -1;
    into[at + 4] = this.stepPos;
    into[at + 5] = this.stepEnd - this.stepPos;
    into[at + 6] = 0;
    into[at + 7] = 0;
    into.set(this.chunks, at + 8);
  }

  /** True when the record at `start` (of this shape's length: the caller checks) has its constant bytes. */
  matches(dv: DataView, start: number): boolean {
    const w = this.words;
    for (let k = 0; k < w.length; k += 3) if ((dv.getInt32(start + w[k], true) & w[k + 1]) !== w[k + 2]) return false;
    return true;
  }

  /**
   * Reads the holes of a matching record at `start` with the reader (positioned over its buffer)
   * and adds the scalars to sink. Returns their count, or -1 (nothing added) when the step
   * varint does not end where the learned one did.
   */
  emit(r: protobuf.Reader, dv: DataView, start: number, sink: ScalarSink): number {
    const step = this.readStep(r, start);
    if (Number.isNaN(step)) return -1;
    return this.emitValues(dv, start, step, this.readWall(dv, start), sink);
  }

  /** The step of a matching record at `start`; NaN when its varint does not end where the learned one did. */
  readStep(r: protobuf.Reader, start: number): number {
    return readStepAt(r, start, this.length, this.stepPos, this.stepEnd);
  }

  /** Fixed-width little-endian IEEE fields, read as the Reader's double() would. */
  readWall(dv: DataView, start: number): number {
    return this.wallPos >= 0 ? dv.getFloat64(start + this.wallPos, true) : 0;
  }

  /** Adds the record's scalars (values at the learned holes) to sink; returns their count. */
  emitValues(dv: DataView, start: number, step: number, wall: number, sink: ScalarSink): number {
    const n = this.tags.length;
    for (let i = 0; i < n; i++) {
      const at = start + this.valuePos[i];
      const value = this.valueWide[i] ? dv.getFloat64(at, true) : dv.getFloat32(at, true);
      const t = this.tags[i];
      sink.add(t.tag, step, wall, value, t.id);
    }
    return n;
  }
}

/**
 * The step varint of a record at `start` (of `length` bytes) whose shape put it at
 * [stepPos, stepEnd), read with protobufjs's Reader: 0 when stepPos < 0 (no step field), NaN
 * when the varint does not end at stepEnd (a different shape after all).
 */
export function readStepAt(r: protobuf.Reader, start: number, length: number, stepPos: number, stepEnd: number): number {
  if (stepPos < 0) return 0;
  r.len = start + length;
  r.pos = start + stepPos;
  // A varint of at most 4 bytes is below 2^28, where int64 and uint32 decode alike
  // (uint32 is the Reader's allocation-free path; int64 builds a LongBits).
  const step = stepEnd - stepPos <= 4 ? r.uint32() : (r.int64() as unknown as number);
  return r.pos === start + stepEnd ? step : NaN;
}

/** Most shapes kept per file; past it the table starts over (a file whose events never repeat). */
const MAX_SHAPES = 4096;
/** Shapes packed before they repeated (the newest): room for a writer's new tags. */
const MAX_FRESH_PACKED = 256;
const PACKED_HEADER = 257;

/** One packed shape table (for scanChunk) with what the decoder needs to read the scan's shape indexes into it. */
export interface PackedShapes {
  /** The table in scan.wat's layout. */
  readonly words: Int32Array;
  /** Shapes by index; emptied by ShapeTable.clear(), so that an index into a forgotten table finds nothing. */
  readonly shapes: EventShape[];
  /** Per shape: its tag when it has exactly one value (the scan then reads it), else undefined. */
  readonly tags: (ShapeTag | undefined)[];
  /** Per shape: stepPos, stepEnd (a flat array: one cache line serves many shapes). */
  readonly steps: Int32Array;
  /** Per shape: set to 1 by the decoder when the scan matched a record to it. */
  readonly hits: Uint8Array;
}

export class ShapeTable {
  private readonly byLength = new Map<number, EventShape[]>();
  /** Every shape, in the order learned. */
  private readonly learned: EventShape[] = [];
  private current: PackedShapes | undefined;
  private packedStale = true;
  /**
   * The table packed for scanChunk (layout in scan.wat): the same object until a shape is
   * learned or the table is cleared. Shapes that repeated go first, newest first; then the
   * newest few that have not repeated yet (an event with a value that is not a hole, say, makes
   * a new shape every time: those must not crowd out the good ones). The rest are still
   * matched in JS.
   */
  packed(): PackedShapes {
    const last = this.current;
    if (!this.packedStale && last !== undefined) return last;
    last?.hits.forEach((hit, i) => {
      if (hit) last.shapes[i].repeated = true;
    });
    const shapes: EventShape[] = [];
    let words = PACKED_HEADER;
    let fresh = 0;
    for (const repeated of [true, false]) {
      for (let i = this.learned.length - 1; i >= 0 && shapes.length < SHAPE_TABLE_MAX; i--) {
        const shape = this.learned[i];
        if (shape.repeated !== repeated || !shape.packable) continue;
        if (!repeated && fresh++ >= MAX_FRESH_PACKED) break;
        const size = 2 + shape.packedSize;
        if ((words + size) * 4 > SHAPE_TABLE_BYTES) continue;
        shapes.push(shape);
        words += size;
      }
    }
    const out = new Int32Array(words);
    out[0] = shapes.length;
    out.fill(-1, 1, PACKED_HEADER);
    const dir = PACKED_HEADER;
    let at = dir + 2 * shapes.length;
    const tail = new Map<number, number>();
    shapes.forEach((shape, i) => {
      out[dir + 2 * i] = at * 4;
      out[dir + 2 * i + 1] = -1;
      shape.pack(out, at);
      at += shape.packedSize;
      // Chain within the length bucket, newest first (as packed).
      const bucket = shape.length & 255;
      const last = tail.get(bucket);
      if (last === undefined) out[1 + bucket] = i;
      else out[dir + 2 * last + 1] = i;
      tail.set(bucket, i);
    });
    const table: PackedShapes = {
      words: out,
      shapes,
      tags: shapes.map((sh) => (sh.tags.length === 1 ? sh.tags[0] : undefined)),
      steps: Int32Array.from(shapes.flatMap((sh) => [sh.stepPos, sh.stepEnd])),
      hits: new Uint8Array(shapes.length),
    };
    this.current = table;
    this.packedStale = false;
    return table;
  }

  /** A shape matching buf[start, start + len), if one was learned. */
  find(dv: DataView, start: number, len: number): EventShape | undefined {
    const list = this.byLength.get(len);
    if (list === undefined) return undefined;
    for (let i = 0; i < list.length; i++) if (list[i].matches(dv, start)) return list[i];
    return undefined;
  }

  /**
   * Learns the shape of the event in buf[start, end), decoded fully with this layout. Returns
   * undefined when the layout cannot be replayed exactly (the event keeps the full decode).
   */
  learn(buf: Uint8Array, start: number, end: number, layout: EventLayout, r: protobuf.Reader): EventShape | undefined {
    if (!layout.learnable || layout.values.length === 0) return undefined;
    const len = end - start;
    const holes: [number, number][] = [];
    if (layout.wallPos >= 0) holes.push([layout.wallPos, layout.wallPos + 8]);
    if (layout.stepPos >= 0) holes.push([layout.stepPos, layout.stepEnd]);
    for (const v of layout.values) holes.push([v.pos, v.pos + (v.wide ? 8 : 4)]);
    holes.sort((a, b) => a[0] - b[0]);
    // Constant-byte mask of the record, then the 4-byte words that hold any constant byte.
    const constant = new Uint8Array(len).fill(0xff);
    let at = 0;
    for (const [h0, h1] of holes) {
      if (h0 < at || h1 > len || h1 <= h0) return undefined; // overlapping or outside: never replay
      constant.fill(0, h0, h1);
      at = h1;
    }
    if (len < 4) return undefined;
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const shape = new EventShape(
      len,
      constantWords(dv, start, constant, 4),
      layout.wallPos,
      layout.stepPos,
      layout.stepEnd,
      Int32Array.from(layout.values, (v) => v.pos),
      Uint8Array.from(layout.values, (v) => (v.wide ? 1 : 0)),
      layout.values.map((v) => v.tag),
      len >= 16 ? constantWords(dv, start, constant, 16) : new Int32Array(0),
    );
    // Self-check: replaying the learned record must give exactly what the full decode gave.
    const replay: number[] = [];
    let same = true;
    const n = shape.emit(r, dv, start, {
      add: (_t, step, wall, value) => {
        same &&= Object.is(step, layout.step) && Object.is(wall, layout.wall);
        replay.push(value);
      },
    });
    if (!same || n !== layout.values.length || layout.values.some((v, i) => !Object.is(v.value, replay[i]))) return undefined;
    if (this.learned.length >= MAX_SHAPES) this.clear();
    let list = this.byLength.get(len);
    if (list === undefined) this.byLength.set(len, (list = []));
    list.push(shape);
    this.learned.push(shape);
    this.packedStale = true;
    return shape;
  }

  clear(): void {
    this.byLength.clear();
    this.learned.length = 0;
    if (this.current !== undefined) {
      this.current.shapes.length = 0;
      this.current.tags.length = 0;
    }
    this.current = undefined;
    this.packedStale = true;
  }
}

/**
 * The record's constant bytes as masked little-endian units of `unit` bytes (4: i32 words as
 * (offset, mask, value) triples, last word first; 16: wasm v128 chunks as (offset, 0, 0, 0,
 * mask x4, value x4)). The last unit may overlap its neighbour; its overlap is masked out.
 */
function constantWords(dv: DataView, start: number, constant: Uint8Array, unit: 4 | 16): Int32Array {
  const len = constant.length;
  const out: number[][] = [];
  for (let w = 0; w < len; w += unit) {
    const p = Math.min(w, len - unit);
    const masks: number[] = [];
    for (let q = 0; q < unit; q += 4) {
      let m = 0;
      for (let i = 0; i < 4; i++) if (constant[p + q + i] && p + q + i >= w) m |= 0xff << (8 * i);
      masks.push(m);
    }
    if (masks.every((m) => m === 0)) continue;
    const values = masks.map((m, q) => dv.getInt32(start + p + 4 * q, true) & m);
    out.push(unit === 4 ? [p, masks[0], values[0]] : [p, 0, 0, 0, ...masks, ...values]);
  }
  if (unit === 4) out.reverse(); // the last word first: records of one length differ most at the end
  return Int32Array.from(out.flat());
}
