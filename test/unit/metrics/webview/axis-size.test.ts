// The y axis is as wide as its widest label (a fixed 56 px clipped "−0.025" to
// "0.025", and exponents / long ticks lost their first characters).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { AXIS_PAD, yAxisSize } from '../../../../src/metrics/webview/axis-size';

/** A monospace stand-in for canvas measureText: 7 px per character (12 px editor font). */
const mono = (s: string) => 7 * s.length;
/** What today's chart reserved for its y axis labels. */
const OLD_FIXED = 56;

test('y axis width fits negative, exponent and long labels', () => {
  for (const labels of [
    ['-0.025', '-0.0225', '-0.02', '-0.0175'],
    ['1.235e-4', '-2.500e-4', '0'],
    ['123456.78', '-98765.4'],
  ]) {
    const size = yAxisSize(labels, mono);
    const widest = Math.max(...labels.map(mono));
    assert.ok(size >= widest + AXIS_PAD, `${labels.join(',')}: ${size} < ${widest + AXIS_PAD}`);
    // Today's fixed width is too narrow for these labels: they were clipped.
    assert.ok(OLD_FIXED < widest + AXIS_PAD);
  }
});

test('y axis stays compact for short labels and before the first pass', () => {
  assert.ok(yAxisSize(['0', '1', '2'], mono) < OLD_FIXED);
  assert.equal(yAxisSize(null, mono), yAxisSize([], mono));
  assert.equal(yAxisSize([null, '0.5'], mono), Math.max(32, Math.ceil(mono('0.5') + AXIS_PAD)));
});
