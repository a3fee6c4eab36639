// The hover legend's numbers side by side: one format (a smoothed 0.24731 once stood beside 0.25).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtTick, fmtTogether } from '../../../../src/metrics/webview/format';

test('a value and its smoothed value, min and max: the same decimals, 4 significant digits of the largest', () => {
  assert.deepEqual(fmtTogether([0.25, 0.24731, 0.1, 0.4]), ['0.2500', '0.2473', '0.1000', '0.4000']);
  assert.deepEqual(fmtTogether([12.5, 12.3456, null, undefined]), ['12.50', '12.35', '–', '–']);
  assert.deepEqual(fmtTogether([1234.5, 1000]), ['1235', '1000']);
  assert.deepEqual(fmtTogether([0, 0]), ['0', '0']);
  assert.deepEqual(fmtTogether([NaN, 0.5]), ['NaN', '0.5000']);
  // beyond fixed notation each keeps fmtNum's exponent form
  assert.deepEqual(fmtTogether([2e7, 1.5e7]), ['2.000e+7', '1.500e+7']);
  for (const row of [
    [0.25, 0.24731],
    [3.14159, 2.5],
    [-0.0125, 0.02],
  ]) {
    const decimals = fmtTogether(row).map((x) => x.split('.')[1]?.length ?? 0);
    assert.equal(new Set(decimals).size, 1, `${row.join(', ')}: ${fmtTogether(row).join(', ')}`);
  }
});

test('a y-axis tick in its shortest exact form: a learning-rate axis reads 0.0005, not 5.000e-4', () => {
  assert.deepEqual([0.0005, 0.001, 0.0015].map(fmtTick), ['0.0005', '0.001', '0.0015']);
  assert.deepEqual([0.1 + 0.2, 0.25, 0, -1.5, 1200].map(fmtTick), ['0.3', '0.25', '0', '-1.5', '1200']);
  assert.deepEqual([2e-5, 1.5e-7, 2e7, -3e-6].map(fmtTick), ['2e-5', '1.5e-7', '2e+7', '-3e-6']);
  assert.deepEqual([NaN, Infinity].map(fmtTick), ['NaN', 'Infinity']);
});
