// Physically impossible values warn, quoting Trinity's default, and the fix sets it
// (`lr: -1e-6` once got no warning).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyFix, en, expectClean, expectFinding, lineOf, run, trinity } from '../../helpers';

test('lr ≤ 0 warns with the upstream default, and the fix makes the config clean', () => {
  for (const lr of ['-1e-6', '0', '0.0']) {
    const text = trinity({ algorithm: { optimizer: { lr: Number(lr) } } }).replace(/lr: .*/, `lr: ${lr}`);
    const f = expectFinding(run(text), 'trinity.physical.out-of-range', { severity: 'warning', line: lineOf(text, `lr: ${lr}`) });
    assert.match(en(f.message), /default is 1e-6/);
    if (lr === '-1e-6') assert.match(en(f.message), /`lr: -1e-6` is outside \(0, ∞\)/);
    expectClean(run(applyFix(text, f)));
  }
  expectClean(run(trinity({ algorithm: { optimizer: { lr: 5e-7 } } })));
});

test('probabilities, fractions and temperatures out of range warn; the bounds themselves are fine', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ model: { top_p: 1.5 } }, 'top_p: 1.5'],
    [{ model: { top_p: 0 } }, 'top_p: 0'],
    [{ model: { temperature: -0.5 } }, 'temperature: -0.5'],
    [{ explorer: { rollout_model: { gpu_memory_utilization: 1.2 } } }, 'gpu_memory_utilization: 1.2'],
    [{ algorithm: { optimizer: { weight_decay: -0.01 } } }, 'weight_decay: -0.01'],
  ];
  for (const [over, needle] of cases) {
    const text = trinity(over);
    expectFinding(run(text), 'trinity.physical.out-of-range', { severity: 'warning', line: lineOf(text, needle) });
  }
  expectClean(run(trinity({ model: { temperature: 0, top_p: 1 }, explorer: { rollout_model: { gpu_memory_utilization: 1 } } })));
});
