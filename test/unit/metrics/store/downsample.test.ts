// Min/max-envelope downsampling: the min and max of every bucket are kept, so a planted
// one-point spike survives at every zoom level and chart width.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseGrid, downsample, shortNumber } from '../../../../src/metrics/store/downsample';

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

test('shortNumber: 9 significant digits, written in as few by JSON; zero, tiny, infinite and NaN values as they are', () => {
  for (const [v, text] of [
    [1 / 3, '0.333333333'],
    [-2 / 3, '-0.666666667'],
    [0.1 + 0.2, '0.3'],
    [1.5, '1.5'],
    [123456789012, '123456789000'],
    [1e-7 / 3, '3.33333333e-8'],
    [1700000123.456789, '1700000120'],
  ] as const)
    assert.equal(JSON.stringify(shortNumber(v)), text, String(v));
  for (const v of [0, 5e-324, Infinity, -Infinity]) assert.equal(shortNumber(v), v);
  assert.ok(Number.isNaN(shortNumber(NaN)));
  const ys = noisy(10_000, 7);
  for (const y of ys) {
    assert.ok(Math.abs(shortNumber(y) - y) <= Math.abs(y) * 5e-9, `${y}`);
    assert.ok(JSON.stringify(shortNumber(y)).replace(/^-?0\.0*|[.-]|e.*$/g, '').length <= 9, `${y} → ${shortNumber(y)}`);
  }
});

test('a frame: means and the smoothed line to 9 significant digits, min and max exact', () => {
  const n = 10_000;
  const ys = noisy(n, 3);
  const xs = Float64Array.from({ length: n }, (_, i) => i);
  const r = downsample(xs, ys, 100, { smoothing: 0.6 });
  const exact = new Set(ys);
  for (let b = 0; b < r.grid.n; b++) {
    if (r.y[b] === null) continue;
    assert.ok(exact.has(r.lo[b]!) && exact.has(r.hi[b]!), `bucket ${b}: min and max are points`);
    assert.equal(r.y[b], shortNumber(r.y[b]!), `bucket ${b}: the line is short`);
  }
});
