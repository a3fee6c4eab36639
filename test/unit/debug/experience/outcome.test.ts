import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { english } from '../../../../src/base/l10n';
import { comparisonLines, rewardFinding, rowReplayResult, sameNumber } from '../../../../src/debug/experience/outcome';
import { recordedExperience, type RecordedExperience } from '../../../../src/debug/experience/recorded';

const x = recordedExperience({
  id: '12',
  detail: { reward: 1, metrics: { accuracy: 1, format_score: 0 }, info: { model_version: 140, task_index: { index: 2 } }, response_text: 'a' },
}) as RecordedExperience;
const log = { calls: 1, divergedAt: null, slot: null, unchecked: [] };
const task = { found: true, index: 2, rows: 10, why: null };
const config = { from: 'workspace' as const, why: 'math.yaml' };

test('the same reward and parts: same, no finding', () => {
  const r = rowReplayResult(x, log, { reward: 1, metrics: { accuracy: 1, format_score: 0, 'time/run_execution': 3 }, experiences: [] }, task, config);
  assert.equal(r.same, true);
  assert.deepEqual(r.reward_parts, { accuracy: [1, 1], format_score: [0, 0] });
  assert.equal(rewardFinding(r, english), undefined);
  assert.equal(r.task_index, 2);
  assert.equal(r.model_version, 140);
});

test('a changed reward is a finding naming the model version and the parts that differ', () => {
  const r = rowReplayResult(x, log, { reward: 0, metrics: { accuracy: 0, format_score: 0 }, experiences: [] }, task, config);
  assert.equal(r.same, false);
  assert.equal(rewardFinding(r, english), 'Your reward function now gives 0; training recorded 1 at model version 140. Parts that differ: accuracy 1 → 0.');
  assert.match(comparisonLines(r, english).join('\n'), /accuracy: 1 → 0 {2}≠/);
});

test("a group-sampling call compares the recorded member's slot, not the group's mean", () => {
  const r = rowReplayResult(
    x,
    { ...log, slot: { index: 1, of: 2 } },
    {
      reward: 0.5,
      metrics: {},
      experiences: [
        { reward: 0, metrics: { accuracy: 0 } },
        { reward: 1, metrics: { accuracy: 1, format_score: 0 } },
      ],
    },
    task,
    config,
  );
  assert.equal(r.reward, 1);
  assert.equal(r.same, true);
});

test('a divergence or an error is never "same"', () => {
  const d = rowReplayResult(
    x,
    { ...log, divergedAt: { call: 1, message: 'm', diff: 'd' } },
    { reward: 1, metrics: { accuracy: 1, format_score: 0 }, experiences: [] },
    task,
    config,
  );
  assert.equal(d.same, false);
  assert.deepEqual(d.diverged_at, { call: 1, diff: 'd' });
  const e = rowReplayResult(
    x,
    log,
    { reward: null, metrics: {}, experiences: [], error: { phase: 'workflow', type: 'ValueError', message: 'boom' } },
    task,
    config,
  );
  assert.equal(e.error, 'workflow error ValueError: boom');
  assert.equal(e.same, false);
  assert.ok(sameNumber(0.1, 0.1 + 1e-9) && !sameNumber(0.1, 0.2) && sameNumber(null, null) && !sameNumber(null, 0));
});
