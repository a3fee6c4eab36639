// TensorBoard's scalar smoothing, exactly: a debiased exponential moving average
// (TensorBoard's vz_line_chart2 `resmoothDataset`). The EMA starts at 0 and is divided by
// 1 − s^n, n = finite points seen so far, so early values are not pulled towards 0;
// non-finite values pass through unsmoothed and are not counted; a constant series is
// returned as is (TensorBoard #786: no floating-point wobble on a flat line).

/** Smooths `values` (in display order) with weight `s` ∈ [0, 1]. */
export function emaSmooth(values: ArrayLike<number>, s: number): Float64Array {
  const out = new Float64Array(values.length);
  const first = values.length > 0 ? values[0] : NaN;
  let constant = true;
  for (let i = 0; i < values.length; i++) {
    // TensorBoard compares with ==, so a series starting with NaN is never "constant".
    if (!(values[i] === first)) {
      constant = false;
      break;
    }
  }
  let last = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (constant || !Number.isFinite(v)) {
      out[i] = v;
      continue;
    }
    last = last * s + (1 - s) * v;
    n++;
    const debias = s === 1 ? 1 : 1 - Math.pow(s, n);
    out[i] = last / debias;
  }
  return out;
}

/** The same EMA, one value at a time (the streaming path); `constant` is tracked so far. */
export class EmaState {
  private last = 0;
  private n = 0;
  private first: number | undefined;
  private constantSoFar = true;

  constructor(readonly weight: number) {}

  /** Feeds one value; returns its smoothed value. */
  push(v: number): number {
    if (this.first === undefined) this.first = v;
    else if (this.constantSoFar && !(v === this.first)) this.constantSoFar = false;
    if (!Number.isFinite(v)) return v;
    const s = this.weight;
    this.last = this.last * s + (1 - s) * v;
    this.n++;
    if (this.constantSoFar) return v;
    const debias = s === 1 ? 1 : 1 - Math.pow(s, this.n);
    return this.last / debias;
  }

  /**
   * Feeds `c` values whose mean is `v` as if each were `v` (an envelope bucket, envelopes.ts):
   * the EMA of a bucket of points is approximated by that of its mean, in closed form.
   */
  pushMean(v: number, c: number): number {
    if (c <= 0 || !Number.isFinite(v)) return v;
    if (this.first === undefined) this.first = v;
    else if (this.constantSoFar && !(v === this.first)) this.constantSoFar = false;
    const s = this.weight;
    const sc = Math.pow(s, c);
    this.last = this.last * sc + (1 - sc) * v;
    this.n += c;
    if (this.constantSoFar) return v;
    const debias = s === 1 ? 1 : 1 - Math.pow(s, this.n);
    return this.last / debias;
  }
}
