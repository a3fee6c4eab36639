// Full-resolution points of one series in three growable Float64Arrays (step, wall time,
// value), kept sorted by (step, wall time). 24 bytes a point; on disk the same points are
// 24-byte records (step, wallTime, value as little-endian float64), so a spill file is read
// back with one copy.

export const RECORD_BYTES = 24;

export class Columns {
  step: Float64Array;
  wallTime: Float64Array;
  value: Float64Array;
  length = 0;

  constructor(capacity = 16) {
    this.step = new Float64Array(capacity);
    this.wallTime = new Float64Array(capacity);
    this.value = new Float64Array(capacity);
  }

  get capacity(): number {
    return this.step.length;
  }

  /** Bytes held (capacity, not length). */
  get bytes(): number {
    return this.step.length * RECORD_BYTES;
  }

  private grow(min: number): void {
    const cap = Math.max(min, Math.ceil(this.capacity * 1.5), 16);
    for (const k of ['step', 'wallTime', 'value'] as const) {
      const a = new Float64Array(cap);
      a.set(this[k].subarray(0, this.length));
      this[k] = a;
    }
  }

  push(step: number, wallTime: number, value: number): void {
    if (this.length === this.capacity) this.grow(this.length + 1);
    const i = this.length++;
    this.step[i] = step;
    this.wallTime[i] = wallTime;
    this.value[i] = value;
  }

  insert(i: number, step: number, wallTime: number, value: number): void {
    if (this.length === this.capacity) this.grow(this.length + 1);
    for (const a of [this.step, this.wallTime, this.value]) a.copyWithin(i + 1, i, this.length);
    this.step[i] = step;
    this.wallTime[i] = wallTime;
    this.value[i] = value;
    this.length++;
  }

  /** Index of the first point not before (step, wallTime). */
  lowerBound(step: number, wallTime: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = this.step[mid];
      if (s < step || (s === step && this.wallTime[mid] < wallTime)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Appends all points of another Columns. */
  append(o: Columns): void {
    if (this.length + o.length > this.capacity) this.grow(this.length + o.length);
    this.step.set(o.step.subarray(0, o.length), this.length);
    this.wallTime.set(o.wallTime.subarray(0, o.length), this.length);
    this.value.set(o.value.subarray(0, o.length), this.length);
    this.length += o.length;
  }

  /** Points [from, to) as on-disk records. */
  toRecords(from = 0, to = this.length): Buffer {
    const n = to - from;
    const f = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) {
      f[3 * i] = this.step[from + i];
      f[3 * i + 1] = this.wallTime[from + i];
      f[3 * i + 2] = this.value[from + i];
    }
    return toLittleEndian(Buffer.from(f.buffer, f.byteOffset, f.byteLength));
  }

  /** Reads `count` records from a buffer (extra bytes, e.g. a torn last record, are ignored). */
  static fromRecords(buf: Buffer, count: number): Columns {
    const n = Math.min(count, Math.floor(buf.length / RECORD_BYTES));
    const aligned = Buffer.alloc(n * RECORD_BYTES);
    buf.copy(aligned, 0, 0, n * RECORD_BYTES);
    fromLittleEndian(aligned);
    const f = new Float64Array(aligned.buffer, aligned.byteOffset, n * 3);
    const c = new Columns(Math.max(16, n));
    for (let i = 0; i < n; i++) {
      c.step[i] = f[3 * i];
      c.wallTime[i] = f[3 * i + 1];
      c.value[i] = f[3 * i + 2];
    }
    c.length = n;
    return c;
  }
}

const bigEndianHost = new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f;

function toLittleEndian(b: Buffer): Buffer {
  if (bigEndianHost) b.swap64();
  return b;
}
function fromLittleEndian(b: Buffer): void {
  if (bigEndianHost) b.swap64();
}
