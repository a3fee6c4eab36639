// The smoothing equals TensorBoard's debiased EMA (vz_line_chart2 resmoothDataset) on known data.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmaState, emaSmooth } from '../../../../src/metrics/store/smoothing';

const close = (a: ArrayLike<number>, b: number[], eps = 1e-12) => {
  assert.equal(a.length, b.length);
  for (let i = 0; i < b.length; i++) {
    if (a[i] === b[i]) continue;
    if (Number.isNaN(b[i])) assert.ok(Number.isNaN(a[i]), `[${i}] ${a[i]} is not NaN`);
    else assert.ok(Math.abs(a[i] - b[i]) <= eps * Math.max(1, Math.abs(b[i])), `[${i}] ${a[i]} != ${b[i]}`);
  }
};

test('worked example: weight 0.5 over 1, 2, 3, 4 (debiased, by hand)', () => {
  // last_n = 0.5·last_{n-1} + 0.5·v_n, divided by 1 − 0.5^n
  close(emaSmooth([1, 2, 3, 4], 0.5), [1, 1.25 / 0.75, 2.125 / 0.875, 3.0625 / 0.9375]);
});

test('the first smoothed value is the first value (debiasing), for any weight', () => {
  for (const s of [0, 0.3, 0.6, 0.9, 0.99, 0.999]) assert.ok(Math.abs(emaSmooth([7.25, 1], s)[0] - 7.25) < 1e-12);
});

test('weight 0 is the identity; weight 0.6 (TensorBoard default) on a known sequence', () => {
  close(emaSmooth([3, -1, 4, 1, 5], 0), [3, -1, 4, 1, 5]);
  // Reference values from TensorBoard's published formula, expanded by hand:
  const s = 0.6;
  const v = [0.5, 0.9, 0.2, 0.7];
  const expected: number[] = [];
  let last = 0;
  v.forEach((x, i) => {
    last = last * s + (1 - s) * x;
    expected.push(last / (1 - s ** (i + 1)));
  });
  close(emaSmooth(v, s), expected);
  close(emaSmooth(v, s), [0.5, 0.75, 0.368 / 0.784, 0.5008 / 0.8704], 1e-12);
});

test('non-finite values pass through and are not counted (TensorBoard: !Number.isFinite)', () => {
  const s = 0.5;
  const out = emaSmooth([1, NaN, 3, Infinity, 5], s);
  // Finite points are 1, 3, 5 with n = 1, 2, 3.
  const e1 = 0.5 / 0.5;
  const l2 = 0.25 + 1.5;
  const l3 = l2 * 0.5 + 2.5;
  close(
    out,
    [e1, NaN, l2 / 0.75, Infinity, l3 / 0.875].map((x) => x),
  );
  assert.equal(out[3], Infinity);
});

test('a constant series is returned unchanged (TensorBoard #786)', () => {
  const v = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
  const out = emaSmooth(v, 0.99);
  assert.deepEqual([...out], v);
  // …while the plain EMA would wobble in the last bits:
  let last = 0;
  const raw = v.map((x, i) => {
    last = last * 0.99 + 0.01 * x;
    return last / (1 - 0.99 ** (i + 1));
  });
  assert.ok(
    raw.some((x) => x !== 0.1),
    'the reference EMA is exact here; pick another constant',
  );
});

test('EmaState (streaming) equals emaSmooth (batch) on non-constant data', () => {
  const v = Array.from({ length: 500 }, (_, i) => Math.sin(i / 7) + (i % 13 === 0 ? NaN : 0));
  for (const s of [0.2, 0.6, 0.95]) {
    const st = new EmaState(s);
    close(
      v.map((x) => st.push(x)),
      [...emaSmooth(v, s)],
    );
  }
});
