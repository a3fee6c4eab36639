import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { english, type L10n } from '../../../../src/base/l10n';
import { repoRoot } from '../../../harness/paths';
import {
  bootstrapMeanInterval,
  byLargestChange,
  compare,
  failsGate,
  passAtK,
  seededRandom,
  taskStats,
  verdict,
  type TaskRewards,
} from '../../../../src/eval/stats/paired';

/** Synthetic paired scores: per task a difficulty p ~ U(0.1, 0.8) for model a and p + delta for
 *  model b (never clamped, so the true mean difference is exactly delta), k Bernoulli repeats each. */
function synthetic(seed: number, tasks: number, k: number, delta: number): { a: Map<string, TaskRewards>; b: Map<string, TaskRewards> } {
  const rand = seededRandom(seed * 7919 + 13);
  const a = new Map<string, TaskRewards>();
  const b = new Map<string, TaskRewards>();
  for (let t = 0; t < tasks; t++) {
    const p = 0.1 + 0.7 * rand();
    const draw = (q: number) => Array.from({ length: k }, () => (rand() < q ? 1 : 0));
    a.set(`t${t}`, draw(p));
    b.set(`t${t}`, draw(p + delta));
  }
  return { a, b };
}

describe('eval statistics', () => {
  test('pass@k is the unbiased estimator', () => {
    assert.equal(passAtK(4, 0, 4), 0);
    assert.equal(passAtK(4, 1, 4), 1);
    assert.equal(passAtK(4, 1, 1), 0.25);
    assert.ok(Math.abs(passAtK(10, 3, 2) - (1 - (7 * 6) / (10 * 9))) < 1e-12);
  });

  test('mean@k and pass@k per task leave failed repeats out and count them', () => {
    assert.deepEqual(taskStats([1, 0, null, 0.5]), { scored: 3, failed: 1, mean: 0.5, pass: 1 });
    assert.deepEqual(taskStats([null, null]), { scored: 0, failed: 2, mean: null, pass: null });
    assert.deepEqual(taskStats([0.2, 0.4], 0.5), { scored: 2, failed: 0, mean: 0.30000000000000004, pass: 0 });
  });

  test('the bootstrap is seeded: same seed same interval, other seed other interval', () => {
    const v = [0.1, 0.3, -0.2, 0.5, 0, 0.25, 0.1, -0.05];
    assert.deepEqual(bootstrapMeanInterval(v, { seed: 3 }), bootstrapMeanInterval(v, { seed: 3 }));
    assert.notDeepEqual(bootstrapMeanInterval(v, { seed: 3 }), bootstrapMeanInterval(v, { seed: 4 }));
    assert.equal(bootstrapMeanInterval([0.5], { seed: 1 }), null);
  });

  test('paired comparison: tasks a model failed entirely are left out and counted per model', () => {
    const a = new Map<string, TaskRewards>([
      ['x', [1, 1]],
      ['y', [0, 0]],
      ['z', [null, null]],
      ['w', [1, null]],
    ]);
    const b = new Map<string, TaskRewards>([
      ['x', [0, 0]],
      ['y', [1, 0]],
      ['z', [1, 1]],
      ['w', [null, null]],
    ]);
    const c = compare(a, b, { seed: 1 });
    assert.equal(c.paired, 2);
    assert.equal(c.meanDiff, (-1 + 0.5) / 2);
    assert.deepEqual(c.failures, { a: { episodes: 3, tasks: 1 }, b: { episodes: 2, tasks: 1 } });
    assert.equal(c.repeats, 2);
    assert.deepEqual(
      byLargestChange(c.tasks).map((t) => t.task),
      ['x', 'y', 'w', 'z'],
    );
  });

  test('verdict: a clear difference is named with its interval on tasks × repeats', () => {
    const { a, b } = synthetic(1, 50, 4, 0.3);
    const c = compare(a, b, { seed: 1 });
    const v = verdict(c, { a: 'base', b: 'new' });
    assert.equal(v.kind, 'better');
    assert.match(v.text, /^new is better than base by 0\.\d\d ± 0\.\d\d on 50 tasks × 4$/);
    const w = verdict(compare(b, a, { seed: 1 }), { a: 'new', b: 'base' });
    assert.equal(w.kind, 'worse');
  });

  test('verdict: the sentence is in the language it is given (the zh-cn bundle here), numbers unchanged', () => {
    const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
    const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };
    const { a, b } = synthetic(1, 50, 4, 0.3);
    const c = compare(a, b, { seed: 1 });
    const en = verdict(c, { a: 'base', b: 'new' });
    const v = verdict(c, { a: 'base', b: 'new' }, 0.02, chinese);
    assert.equal(v.kind, en.kind);
    assert.match(v.text, /^new 优于 base：高 0\.\d\d ± 0\.\d\d（50 个任务 × 4）$/);
    assert.equal(v.text.match(/\d\.\d\d/g)?.join(), en.text.match(/\d\.\d\d/g)?.join());
    const noise = verdict(compare(synthetic(2, 10, 2, 0).a, synthetic(2, 10, 2, 0).b, { seed: 1 }), { a: 'base', b: 'new' }, 0.02, chinese);
    assert.doesNotMatch(noise.text, /UNTRANSLATED|no difference/);
  });

  test('verdict: no difference says so and estimates how many more tasks would tell', () => {
    const { a, b } = synthetic(2, 10, 2, 0);
    const c = compare(a, b, { seed: 1 });
    const v = verdict(c, { a: 'base', b: 'new' });
    assert.equal(v.kind, 'noise');
    assert.ok(v.moreTasks !== undefined && v.moreTasks > 0);
    assert.match(v.text, /no difference distinguishable from noise at this sample size .* about \d+ more tasks would tell$/);
    assert.equal(verdict(compare(new Map([['x', [1]]]), new Map([['x', [0]]])), { a: 'a', b: 'b' }).kind, 'insufficient');
  });

  test('coverage: with a known true difference the interval covers it in at least 90% of 200 seeds', () => {
    const delta = 0.1;
    let covered = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const { a, b } = synthetic(seed, 50, 4, delta);
      const c = compare(a, b, { seed, resamples: 1000 });
      if (c.interval && c.interval.lo <= delta && delta <= c.interval.hi) covered++;
    }
    assert.ok(covered >= 180, `covered ${covered} of 200`);
  });

  test('the gate passes in at least 95% of 200 seeds when there is no difference, and fails a real regression', () => {
    let passed = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const { a, b } = synthetic(seed, 50, 4, 0);
      if (!failsGate(compare(a, b, { seed, resamples: 1000 }), 0.02)) passed++;
    }
    assert.ok(passed >= 190, `passed ${passed} of 200`);
    const { a, b } = synthetic(5, 50, 4, 0.15);
    assert.equal(failsGate(compare(b, a, { seed: 5 }), 0.02), true, 'b -> a is a regression of 0.15');
    assert.equal(failsGate(compare(b, a, { seed: 5 }), 0.5), false, 'not beyond a threshold of 0.5');
  });
});
