// The min/max envelope of one tag, built in one pass over its points in any order, in at most
// `cap` step buckets (src/relay-protocol/envelope.ts says what a bucket holds). The step range is not known
// before the end of the pass, so the width starts at the caller's guess and doubles whenever
// the steps seen span more than `cap` buckets: bucket k at width w falls wholly into bucket
// ⌊k/2⌋ at 2w, so nothing is approximated by the doubling. Columns are typed arrays (about
// 100 bytes a bucket), whatever the number of points.
import type { EnvelopeColumns } from '../../relay-protocol/envelope';
import { EnvelopeArrays, EnvelopeColumnName, envelopeColumns } from '../../relay-protocol/envelope-frame';

/** The per-bucket columns, in one place so that relayout moves them all. */
const FIELDS = ['count', 'min', 'max', 'sum', 'fStep', 'fVal', 'fWall', 'lStep', 'lVal', 'lWall', 'nan', 'pInf', 'nInf'] as const;
type Field = (typeof FIELDS)[number];
/** The wire column each field travels as (envelope-frame.ts), besides `bucket`. */
const WIRE: [Exclude<EnvelopeColumnName, 'bucket'>, Field][] = [
  ['count', 'count'],
  ['min', 'min'],
  ['max', 'max'],
  ['sum', 'sum'],
  ['firstStep', 'fStep'],
  ['firstValue', 'fVal'],
  ['firstWall', 'fWall'],
  ['lastStep', 'lStep'],
  ['lastValue', 'lVal'],
  ['lastWall', 'lWall'],
  ['nan', 'nan'],
  ['posInf', 'pInf'],
  ['negInf', 'nInf'],
];

export class EnvelopeBuilder {
  /** Bucket width in steps (a power of two). */
  width: number;
  /** Absolute bucket index of slot 0. */
  private lo = 0;
  /** Lowest and highest absolute bucket index in use (lo ≤ first ≤ last < lo + cap). */
  private first = Infinity;
  private last = -Infinity;
  points = 0;
  private c: Record<Field, Float64Array>;

  constructor(
    readonly cap: number,
    width = 1,
  ) {
    this.width = Math.max(1, 2 ** Math.ceil(Math.log2(Math.max(1, width))));
    this.c = EnvelopeBuilder.columns(cap);
  }

  private static columns(n: number): Record<Field, Float64Array> {
    return clear(Object.fromEntries(FIELDS.map((f) => [f, new Float64Array(n)])) as Record<Field, Float64Array>);
  }

  add(step: number, wall: number, value: number): void {
    let k = Math.floor(step / this.width) - this.lo;
    if (k < 0 || k >= this.cap) k = this.fit(step);
    const abs = this.lo + k;
    if (abs < this.first) this.first = abs;
    if (abs > this.last) this.last = abs;
    const c = this.c;
    const n = c.count[k]++;
    if (n === 0 || step < c.fStep[k]) {
      c.fStep[k] = step;
      c.fVal[k] = value;
      c.fWall[k] = wall;
    }
    if (n === 0 || step >= c.lStep[k]) {
      c.lStep[k] = step;
      c.lVal[k] = value;
      c.lWall[k] = wall;
    }
    if (value - value === 0) {
      if (value < c.min[k]) c.min[k] = value;
      if (value > c.max[k]) c.max[k] = value;
      c.sum[k] += value;
    } else if (value === Infinity) c.pInf[k]++;
    else if (value === -Infinity) c.nInf[k]++;
    else c.nan[k]++;
    this.points++;
  }

  /** Makes room for `step` (doubling the width as needed); returns its slot. */
  private fit(step: number): number {
    const idx = Math.floor(step / this.width);
    if (this.points === 0) {
      this.lo = idx;
      this.first = this.last = idx;
      return 0;
    }
    let lowest = Math.min(this.first, idx);
    let highest = Math.max(this.last, idx);
    let shift = 0;
    while (Math.floor(highest / 2 ** shift) - Math.floor(lowest / 2 ** shift) + 1 > this.cap) shift++;
    lowest = Math.floor(lowest / 2 ** shift);
    highest = Math.floor(highest / 2 ** shift);
    this.relayout(shift, lowest);
    this.first = lowest;
    this.last = highest;
    return Math.floor(idx / 2 ** shift) - this.lo;
  }

  /**
   * Moves every bucket to width·2^shift with slot 0 at absolute index `lo`. Folds into a scratch
   * set shared by all builders and copies back: a pass over 50 tags relays out each a few times
   * as the width doubles, and fresh columns each time left ~40 MB of garbage typed arrays (and
   * the fragmented malloc heap they leave behind) in the relay.
   */
  private relayout(shift: number, lo: number): void {
    const old = this.c;
    const oldLo = this.lo;
    const next = scratch(this.cap);
    const f = 2 ** shift;
    for (let j = 0; j < this.cap; j++) {
      if (old.count[j] === 0) continue;
      const k = Math.floor((oldLo + j) / f) - lo;
      mergeSlot(next, k, old, j);
    }
    for (const field of FIELDS) old[field].set(next[field]);
    this.lo = lo;
    this.width *= f;
  }

  /** The non-empty buckets as typed columns (min/max ±Infinity where no value was finite). */
  arrays(): EnvelopeArrays {
    const c = this.c;
    let n = 0;
    const slots = new Int32Array(this.cap);
    for (let j = 0; j < this.cap; j++) if (c.count[j] !== 0) slots[n++] = j;
    const bucket = new Float64Array(n);
    for (let i = 0; i < n; i++) bucket[i] = this.lo + slots[i];
    const out = { width: this.width, bucket } as EnvelopeArrays;
    for (const [name, field] of WIRE) {
      const from = c[field];
      const to = (out[name] = new Float64Array(n));
      for (let i = 0; i < n; i++) to[i] = from[slots[i]];
    }
    return out;
  }

  /** The non-empty buckets as JSON wire columns. */
  columns(): EnvelopeColumns {
    return envelopeColumns(this.arrays());
  }

  /** Bytes of the columns (the relay's memory accounting). */
  get bytes(): number {
    return FIELDS.length * 8 * this.cap;
  }
}

/** Empty buckets: zero counts and sums, min/max at ±Infinity. */
function clear(c: Record<Field, Float64Array>): Record<Field, Float64Array> {
  for (const f of FIELDS) c[f].fill(0);
  c.min.fill(Infinity);
  c.max.fill(-Infinity);
  return c;
}

/** The relayout scratch of one bucket count (relayout is synchronous, so one set serves all). */
const scratches = new Map<number, Record<Field, Float64Array>>();
function scratch(cap: number): Record<Field, Float64Array> {
  const c = scratches.get(cap);
  if (c) return clear(c);
  if (scratches.size >= 4) scratches.clear(); // a few bucket counts are in use at once (envelope, detail)
  const fresh = Object.fromEntries(FIELDS.map((f) => [f, new Float64Array(cap)])) as Record<Field, Float64Array>;
  scratches.set(cap, clear(fresh));
  return fresh;
}

/** Folds slot j of `from` into slot k of `to` (their step ranges are disjoint). */
function mergeSlot(to: Record<Field, Float64Array>, k: number, from: Record<Field, Float64Array>, j: number): void {
  const empty = to.count[k] === 0;
  if (empty || from.fStep[j] < to.fStep[k]) {
    to.fStep[k] = from.fStep[j];
    to.fVal[k] = from.fVal[j];
    to.fWall[k] = from.fWall[j];
  }
  if (empty || from.lStep[j] >= to.lStep[k]) {
    to.lStep[k] = from.lStep[j];
    to.lVal[k] = from.lVal[j];
    to.lWall[k] = from.lWall[j];
  }
  to.count[k] += from.count[j];
  to.min[k] = Math.min(to.min[k], from.min[j]);
  to.max[k] = Math.max(to.max[k], from.max[j]);
  to.sum[k] += from.sum[j];
  to.nan[k] += from.nan[j];
  to.pInf[k] += from.pInf[j];
  to.nInf[k] += from.nInf[j];
}
