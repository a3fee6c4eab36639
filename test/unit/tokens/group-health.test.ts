// GRPO group health: groups by task and model version; equal rewards (or all-zero advantages) are
// "no gradient"; truncated, empty and never-trained members counted; a step's shares as series.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromTensors } from '../../../src/tokens/experience';
import { type GroupMember, groupHealth, memberOf, STEP_SERIES, stepHealth } from '../../../src/tokens/group-health';
import { describeGroupFlag } from '../../../src/tokens/strings';

const english = { t: (m: string, ...a: Array<string | number | boolean>) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

const member = (taskId: string, reward: number | null, over: Partial<GroupMember> = {}): GroupMember => ({
  taskId,
  modelVersion: 3,
  reward,
  responseTokens: 10,
  trainedTokens: 8,
  meanAdvantage: NaN,
  maxAbsAdvantage: NaN,
  truncated: false,
  emptyResponse: false,
  ...over,
});

test('all 8 rewards equal: no gradient, worded as the view shows it', () => {
  const [g] = groupHealth(Array.from({ length: 8 }, () => member('t1', 1)));
  assert.deepEqual(g.flags, [{ kind: 'no-gradient', size: 8, reward: 1, why: 'equal-rewards' }]);
  assert.equal(describeGroupFlag(g.flags[0], english), 'All 8 rewards are 1.0: this group contributes nothing');
  assert.equal(g.rewardStd, 0);
});

test('groups are per task and model version; differing rewards give gradient; unbiased std as torch.std', () => {
  const gs = groupHealth([member('a', 1), member('a', 0), member('b', 0), member('a', 1, { modelVersion: 4 }), member('b', 0), member('a', 0)]);
  assert.deepEqual(
    gs.map((g) => [g.taskId, g.modelVersion, g.members.length]),
    [
      ['a', 3, 3],
      ['b', 3, 2],
      ['a', 4, 1],
    ],
  );
  assert.deepEqual(gs[0].flags, []);
  assert.ok(Math.abs(gs[0].rewardStd - Math.sqrt(1 / 3)) < 1e-12);
  assert.equal(gs[1].flags[0].kind, 'no-gradient');
  assert.deepEqual(gs[2].flags, [], 'one member: Trinity gives it an advantage of its reward');
});

test('all advantages zero (std_threshold, or a zero reward spread the row shows only through its tensors): no gradient', () => {
  const [g] = groupHealth([member('a', 1, { maxAbsAdvantage: 0 }), member('a', null, { maxAbsAdvantage: 1e-8 })]);
  assert.deepEqual(g.flags, [{ kind: 'no-gradient', size: 2, reward: null, why: 'zero-advantages' }]);
  assert.equal(describeGroupFlag(g.flags[0], english), 'All 2 advantages are zero: this group contributes nothing');
});

test("truncated, empty, nothing trained: counted per group and as the step's shares", () => {
  const gs = groupHealth([
    member('a', 1, { truncated: true }),
    member('a', 0, { emptyResponse: true, trainedTokens: 0 }),
    member('b', 1),
    member('b', 1),
    member('c', 0.5),
    member('c', 0.25, { truncated: true }),
  ]);
  assert.deepEqual(
    gs[0].flags.map((f) => f.kind),
    ['truncated', 'empty', 'nothing-trained'],
  );
  assert.equal(describeGroupFlag(gs[0].flags[0], english), '1 of 2 responses truncated');
  const h = stepHealth(gs);
  assert.deepEqual(
    {
      groups: h.groups,
      experiences: h.experiences,
      noGradientGroups: h.noGradientGroups,
      truncated: h.truncated,
      empty: h.empty,
      nothingTrained: h.nothingTrained,
    },
    { groups: 3, experiences: 6, noGradientGroups: 1, truncated: 2, empty: 1, nothingTrained: 1 },
  );
  assert.deepEqual(Object.keys(h.series), [...STEP_SERIES]);
  assert.deepEqual(h.series, { 'rollout/no_gradient_groups': 1 / 3, 'rollout/truncated': 2 / 6, 'rollout/empty': 1 / 6, 'rollout/nothing_trained': 1 / 6 });
  assert.deepEqual(stepHealth([]).series['rollout/no_gradient_groups'], 0);
});

test('a member from a decoded experience: trained tokens, mean and largest advantage over trained tokens', () => {
  const e = fromTensors({ tokens: [1, 2, 3, 4], prompt_length: 1, action_mask: [1, 0, 1], advantages: [0.5, 9, -0.25], truncate_status: 'response_truncated' });
  const m = memberOf(e, { taskId: 't', reward: 0.5, modelVersion: 2 });
  assert.deepEqual(m, {
    taskId: 't',
    reward: 0.5,
    modelVersion: 2,
    responseTokens: 3,
    trainedTokens: 2,
    meanAdvantage: 0.125,
    maxAbsAdvantage: 0.5,
    truncated: true,
    emptyResponse: false,
  });
});
