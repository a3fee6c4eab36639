// A sparse index of one event file built during the envelope pass: per stretch of records
// [start, end) (byte offsets at record boundaries), the lowest and highest step in it. A
// detail request then re-reads only the stretches whose steps can fall in its range, instead
// of the relay keeping every point. Bounded: past `cap` entries, neighbours are merged pairwise
// (the stretches double), so a file of any size costs at most `cap` × 32 bytes.

export interface Region {
  start: number;
  end: number;
}

export class FileIndex {
  private start: number[] = [];
  private end: number[] = [];
  private minStep: number[] = [];
  private maxStep: number[] = [];

  constructor(readonly cap = 4096) {}

  get size(): number {
    return this.start.length;
  }

  /** Byte offset the index covers up to. */
  get covered(): number {
    return this.end.length ? this.end[this.end.length - 1] : 0;
  }

  /** Records [start, end) held steps minStep…maxStep (Infinity/-Infinity: no scalars). */
  add(start: number, end: number, minStep: number, maxStep: number): void {
    if (end <= start) return;
    this.start.push(start);
    this.end.push(end);
    this.minStep.push(minStep);
    this.maxStep.push(maxStep);
    if (this.start.length > this.cap) this.halve();
  }

  /** Merges entries pairwise. */
  private halve(): void {
    const n = this.start.length;
    const s: number[] = [];
    const e: number[] = [];
    const lo: number[] = [];
    const hi: number[] = [];
    for (let i = 0; i < n; i += 2) {
      const j = Math.min(i + 1, n - 1);
      s.push(this.start[i]);
      e.push(this.end[j]);
      lo.push(Math.min(this.minStep[i], this.minStep[j]));
      hi.push(Math.max(this.maxStep[i], this.maxStep[j]));
    }
    this.start = s;
    this.end = e;
    this.minStep = lo;
    this.maxStep = hi;
  }

  /** The byte regions (adjacent stretches joined) that may hold steps in [from, to], below `before`. */
  regions(from: number, to: number, before = Infinity): Region[] {
    const out: Region[] = [];
    for (let i = 0; i < this.start.length; i++) {
      if (this.start[i] >= before) break;
      if (this.maxStep[i] < from || this.minStep[i] > to) continue;
      const end = Math.min(this.end[i], before);
      const last = out[out.length - 1];
      if (last && last.end === this.start[i]) last.end = end;
      else out.push({ start: this.start[i], end });
    }
    return out;
  }
}
