import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { bufferRescoreJson, groupAdvantages } from '../../../../src/eval/stats/advantages';
import type { BufferRowOutcome } from '../../../../src/feature-api/rollouts';

const row = (id: string, task: number, recorded: number, now: number | null, step = 140): BufferRowOutcome => ({
  id,
  step,
  modelVersion: step,
  taskIndex: task,
  task: `#${task}`,
  recorded,
  now,
  error: now === null ? 'diverged at LLM call 1' : null,
});

test("GRPO advantages as Trinity's: (r - mean) / (std + 1e-6) with the unbiased std; a group of one is r / (1 + 1e-6)", () => {
  const [a, b] = groupAdvantages([1, 0]);
  assert.ok(Math.abs(a! - 0.5 / (Math.SQRT1_2 + 1e-6)) < 1e-9 && Math.abs(b! + 0.5 / (Math.SQRT1_2 + 1e-6)) < 1e-9);
  assert.deepEqual(groupAdvantages([2]), [2 / (1 + 1e-6)]);
  assert.deepEqual(groupAdvantages([null, 3, 3]), [null, 0, 0]);
});

test('a broken reward: the rows that changed and the advantages that flip sign, counted independently', () => {
  // Task 0: the right answer (1 → 0) and a wrong one (0 → 1): both change, both flip.
  // Task 1: everything now 0: the right answer's advantage goes + → 0 (a flip), the wrong one's - → 0 (a flip).
  // Task 2 at another step: unchanged. One row could not be replayed.
  const rows = [
    row('1', 0, 1, 0),
    row('2', 0, 0, 1),
    row('3', 1, 1, 0),
    row('4', 1, 0, 0),
    row('5', 2, 1, 1, 141),
    row('6', 2, 0, 0, 141),
    row('7', 3, 1, null),
  ];
  const j = bufferRescoreJson(rows, [140, 141]);
  let changed = 0;
  let flips = 0;
  for (const r of j.rows) {
    if (r.now !== null && r.now !== r.recorded) changed++;
    if (
      r.advantage_recorded !== null &&
      r.advantage_now !== null &&
      Math.sign(Math.round(r.advantage_recorded * 1e6)) !== Math.sign(Math.round(r.advantage_now * 1e6))
    )
      flips++;
  }
  assert.equal(j.changed, 3);
  assert.equal(j.changed, changed);
  assert.equal(j.flips, 4);
  assert.equal(j.flips, flips);
  assert.equal(j.errors, 1);
  // A row that could not be re-scored counts with its recorded reward: alone in its group here, no advantage now.
  assert.equal(j.rows[6].advantage_now, null);
  assert.deepEqual(j.steps, [140, 141]);
  assert.deepEqual(Object.keys(j.rows[0]), ['id', 'step', 'task_index', 'recorded', 'now', 'advantage_recorded', 'advantage_now', 'error']);
});
