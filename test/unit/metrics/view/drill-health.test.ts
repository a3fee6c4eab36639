// The health of a drilled step's GRPO groups from the rows the relay lists: a group whose rewards
// are all equal gives no gradient; truncated, empty and never-trained members are flagged; what a
// row does not say (no tensors in the buffer) is never a flag.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { english } from '../../../../src/base/l10n';
import type { ExperienceViewRow } from '../../../../src/metrics/protocol/experience-rows';
import { drillHealth } from '../../../../src/metrics/view/drill-health';

let id = 0;
function row(task: string, reward: number, facts: Partial<ExperienceViewRow> = {}): ExperienceViewRow {
  return {
    run: 'r',
    endpoint: 'e',
    source: 's',
    table: 't',
    id: ++id,
    taskId: task,
    runId: id,
    modelVersion: 3,
    reward,
    timestamp: null,
    responseTokens: 20,
    trainedTokens: 12,
    truncated: false,
    emptyResponse: false,
    ...facts,
  };
}

test('a step of three groups: one gives no gradient, one has a truncated, an empty and a never-trained member, one is healthy', () => {
  const rows = [
    ...[1, 1, 1, 1].map((r) => row('t-equal', r)),
    row('t-mixed', 1, { truncated: true }),
    row('t-mixed', 0, { emptyResponse: true, responseTokens: 0, trainedTokens: 0 }),
    row('t-mixed', 0.5),
    row('t-mixed', 0),
    ...[0, 1, 0.5, 0.25].map((r) => row('t-fine', r)),
  ];
  const h = drillHealth(rows, english)!;
  assert.equal(h.line, '1 of 3 groups give no gradient · 1 of 12 responses truncated · 1 empty · 1 with nothing trained');
  assert.deepEqual(h.groups, [
    { task: 't-equal', modelVersion: 3, flags: ['All 4 rewards are 1.0: this group contributes nothing'] },
    {
      task: 't-mixed',
      modelVersion: 3,
      flags: ['1 of 4 responses truncated', '1 of 4 responses empty', '1 of 4 experiences have no trained token (mask all zero)'],
    },
  ]);
});

test('rows without tensor facts: only the rewards count (equal rewards still give no gradient); no rows, no health', () => {
  const bare = (task: string, reward: number): ExperienceViewRow => ({
    run: 'r',
    endpoint: 'e',
    source: 's',
    table: 't',
    id: ++id,
    taskId: task,
    runId: null,
    modelVersion: 1,
    reward,
    timestamp: null,
  });
  const h = drillHealth([bare('a', 0), bare('a', 0), bare('b', 0), bare('b', 1)], english)!;
  assert.equal(h.line, '1 of 2 groups give no gradient · 0 of 4 responses truncated · 0 empty · 0 with nothing trained');
  assert.deepEqual(h.groups, [{ task: 'a', modelVersion: 1, flags: ['All 2 rewards are 0.0: this group contributes nothing'] }]);
  assert.equal(drillHealth([], english), undefined);
});
