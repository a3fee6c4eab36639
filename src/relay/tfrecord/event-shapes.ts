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
import type * as protobuf from 'protobufjs';
import type { ScalarSink } from './scalars';

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
  ) {}

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
    r.len = start + this.length;
    let step = 0;
    if (this.stepPos >= 0) {
      r.pos = start + this.stepPos;
      // A varint of at most 4 bytes is below 2^28, where int64 and uint32 decode alike
      // (uint32 is the Reader's allocation-free path; int64 builds a LongBits).
      step = this.stepEnd - this.stepPos <= 4 ? r.uint32() : (r.int64() as unknown as number);
      if (r.pos !== start + this.stepEnd) return -1;
    }
    // Fixed-width little-endian IEEE fields, read as the Reader's double()/float() would.
    const wall = this.wallPos >= 0 ? dv.getFloat64(start + this.wallPos, true) : 0;
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

/** Most shapes kept per file; past it the table starts over (a file whose events never repeat). */
const MAX_SHAPES = 4096;

export class ShapeTable {
  private readonly byLength = new Map<number, EventShape[]>();
  private count = 0;

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
    const words: number[] = [];
    const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let w = 0; w < len; w += 4) {
      const p = Math.min(w, len - 4);
      let m = 0;
      for (let i = 0; i < 4; i++) if (constant[p + i] && p + i >= w) m |= 0xff << (8 * i);
      if (m !== 0) words.unshift(p, m, dv.getInt32(start + p, true) & m);
    }
    const shape = new EventShape(
      len,
      Int32Array.from(words),
      layout.wallPos,
      layout.stepPos,
      layout.stepEnd,
      Int32Array.from(layout.values, (v) => v.pos),
      Uint8Array.from(layout.values, (v) => (v.wide ? 1 : 0)),
      layout.values.map((v) => v.tag),
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
    if (this.count >= MAX_SHAPES) this.clear();
    let list = this.byLength.get(len);
    if (list === undefined) this.byLength.set(len, (list = []));
    list.push(shape);
    this.count++;
    return shape;
  }

  clear(): void {
    this.byLength.clear();
    this.count = 0;
  }
}
