// Min/max-envelope downsampling: the min and max of every bucket are kept, so a planted
// one-point spike survives at every zoom level and chart width.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseGrid, downsample } from '../../../../src/metrics/store/downsample';

function noisy(n: number, seed = 1): Float64Array {
  let x = seed;
  const v = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    v[i] = 0.5 + 0.1 * Math.sin(i / 50) + (x / 2147483648 - 0.5) * 0.05;
  }
  return v;
}

test('chooseGrid: power-of-two buckets, at most `width` of them, covering the range', () => {
  for (const [lo, hi, w] of [
    [0, 999_999, 800],
    [17, 23, 800],
    [0, 0, 100],
    [1.7e9, 1.7e9 + 86400, 1000],
    [-5, 5, 3],
  ]) {
    const g = chooseGrid(lo, hi, w, 1);
    assert.ok(g.n <= w, `${g.n} buckets > ${w}`);
    assert.ok(g.origin <= lo && g.origin + g.n * g.dx > hi, 'range not covered');
    assert.equal(Math.log2(g.dx) % 1, 0, 'dx is not a power of two');
    // The next finer grid would not fit.
    if (g.dx > 1) assert.ok(Math.floor(hi / (g.dx / 2)) - Math.floor(lo / (g.dx / 2)) + 1 > w);
  }
});

test('every bucket keeps the exact min and max of its points', () => {
  const n = 100_000;
  const ys = noisy(n);
  const xs = Float64Array.from({ length: n }, (_, i) => i);
  for (const w of [37, 300, 1000, 4096]) {
    const r = downsample(xs, ys, w);
    const { origin, dx } = r.grid;
    const mins = new Map<number, number>();
    const maxs = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const b = Math.floor((xs[i] - origin) / dx);
      mins.set(b, Math.min(mins.get(b) ?? Infinity, ys[i]));
      maxs.set(b, Math.max(maxs.get(b) ?? -Infinity, ys[i]));
    }
    for (let b = 0; b < r.grid.n; b++) {
      assert.equal(r.lo[b], mins.get(b) ?? null, `width ${w} bucket ${b} min`);
      assert.equal(r.hi[b], maxs.get(b) ?? null, `width ${w} bucket ${b} max`);
    }
  }
});

test('a planted one-point spike survives at any zoom and width', () => {
  const n = 1_000_000;
  const ys = noisy(n, 7);
  const xs = Float64Array.from({ length: n }, (_, i) => i);
  const at = 612_345;
  ys[at] = 25; // one point, 50× the signal
  const dip = 400_001;
  ys[dip] = -25;
  for (const w of [50, 333, 800, 1920]) {
    for (const range of [undefined, [0, n - 1], [600_000, 620_000], [612_000, 612_400], [612_345, 612_345], [399_000, 700_000]] as (
      [number, number] | undefined
    )[]) {
      const r = downsample(xs, ys, w, { range });
      const b = Math.floor((at - r.grid.origin) / r.grid.dx);
      if (b >= 0 && b < r.grid.n) assert.equal(r.hi[b], 25, `spike lost at width ${w}, range ${JSON.stringify(range)}`);
      const d = Math.floor((dip - r.grid.origin) / r.grid.dx);
      if (d >= 0 && d < r.grid.n) assert.equal(r.lo[d], -25, `dip lost at width ${w}, range ${JSON.stringify(range)}`);
      // …and nowhere else: the envelope is not inflated.
      for (let k = 0; k < r.grid.n; k++) if (k !== b && r.hi[k] !== null) assert.ok(r.hi[k]! < 1, `bucket ${k} inflated`);
    }
  }
});

test('the line is the bucket mean (or the smoothed value at the bucket end)', () => {
  const xs = [0, 1, 2, 3];
  const ys = [1, 3, 10, 20];
  const r = downsample(xs, ys, 2, { range: [0, 3] });
  assert.equal(r.grid.dx, 2);
  assert.deepEqual(r.y, [2, 15]);
  assert.deepEqual(r.lo, [1, 10]);
  assert.deepEqual(r.hi, [3, 20]);
  const sm = downsample(xs, ys, 4, { smoothing: 0.5 });
  assert.equal(sm.y[0], 1);
});

test('gaps: NaN-only buckets and holes in the steps break the line; sparse regular data does not', () => {
  const xs: number[] = [];
  const ys: number[] = [];
  for (let s = 0; s <= 100; s++) {
    xs.push(s);
    ys.push(s === 40 ? NaN : 1);
  }
  for (let s = 300; s <= 400; s++) {
    xs.push(s);
    ys.push(1);
  }
  const r = downsample(xs, ys, 1000);
  assert.equal(r.grid.dx, 1);
  assert.ok(r.gaps.includes(40), 'NaN bucket is a gap');
  assert.ok(r.gaps.includes(101), 'hole 101..299 is a gap');
  assert.equal(r.y[150], null);
  // Eval every 10 steps: empty buckets between points are not gaps.
  const ex = Array.from({ length: 30 }, (_, i) => i * 10);
  const e = downsample(
    ex,
    ex.map(() => 0.5),
    1000,
  );
  assert.deepEqual(e.gaps, []);
});

test('non-finite values never reach min/max', () => {
  const r = downsample([0, 1, 2], [1, Infinity, -Infinity], 3);
  assert.deepEqual(r.hi, [1, null, null]);
  assert.deepEqual(r.gaps, [1, 2], 'buckets holding only ±Inf break the line');
});
