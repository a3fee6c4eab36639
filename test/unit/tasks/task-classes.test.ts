// Tasks classed from their reward by model version: each class on a known trajectory, the
// threshold from the run's reward range, replaced rows, and rows that cannot be placed (counted).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { classifyTasks, sortTasks } from '../../../src/tasks/task-classes';
import { TaskTable } from '../../../src/tasks/task-table';

let nextId = 1;
function row(task: number | null, version: number | null, reward: number | null | string, extra: Partial<ExperienceRow> = {}): ExperienceRow {
  return {
    id: nextId++,
    table: 'experience_buffer',
    task_id: '0',
    run_id: 0,
    model_version: version,
    reward: reward as ExperienceRow['reward'],
    timestamp: null,
    ...(task === null ? {} : { task_index: task, taskset_id: 0 }),
    ...extra,
  };
}

/** Four members per version with the given mean reward (binary rewards: k of 4 are 1). */
function trajectory(task: number, means: number[]): ExperienceRow[] {
  return means.flatMap((m, v) => Array.from({ length: 4 }, (_, j) => row(task, v + 1, j < Math.round(m * 4) ? 1 : 0)));
}

test('each class from its trajectory: learned at a known version, never, always, forgotten, flaky', () => {
  const t = new TaskTable();
  t.add(trajectory(0, [0, 0.25, 0.25, 0.75, 1, 1, 1])); // learned at version 4
  t.add(trajectory(1, [0, 0, 0, 0, 0, 0, 0])); // never
  t.add(trajectory(2, [1, 1, 0.75, 1, 1, 1, 1])); // always
  t.add(trajectory(3, [0.25, 0.75, 1, 1, 0.25, 0, 0])); // forgotten after version 4
  t.add(trajectory(4, [0, 1, 0, 1, 0, 1, 0.5])); // flaky (0.5 is solved: ≥ 0.5 of the range)
  t.add(trajectory(5, [0.25, 0.25, 0.5, 0.25, 0.25, 0, 0.25])); // solved once (0.5), then lost: forgotten
  const r = classifyTasks(t);
  const byTask = Object.fromEntries(r.tasks.map((x) => [x.task, x]));
  assert.deepEqual(
    r.tasks.map((x) => [x.task, x.class]),
    [
      ['0', 'learned'],
      ['1', 'never'],
      ['2', 'always'],
      ['3', 'forgotten'],
      ['4', 'flaky'],
      ['5', 'forgotten'],
    ],
  );
  assert.equal(byTask['0'].first_solved, 4);
  assert.equal(byTask['0'].flipped, 4);
  assert.equal(byTask['3'].first_solved, 2);
  assert.equal(byTask['3'].flipped, 5, 'lost at version 5');
  assert.equal(byTask['1'].first_solved, null);
  assert.equal(byTask['1'].rewarded_versions, 0);
  assert.deepEqual(r.counts, { learned: 1, never: 1, always: 1, forgotten: 2, flaky: 1 });
  assert.deepEqual(r.versions, [1, 7]);
  assert.equal(r.threshold, 0.5);
  assert.deepEqual(byTask['0'].rewards, { 1: 0, 2: 0.25, 3: 0.25, 4: 0.75, 5: 1, 6: 1, 7: 1 });
  assert.equal(byTask['0'].gain, 1);
});

test('the window decides where a task ended; --solved moves the threshold within the run’s range', () => {
  const t = new TaskTable();
  t.add(trajectory(0, [0, 0, 1, 1, 0, 1, 1])); // dipped once: learned with a window of 2, flaky with 3
  assert.equal(classifyTasks(t, { solved: 0.5, window: 2 }).tasks[0].class, 'learned');
  assert.equal(classifyTasks(t, { solved: 0.5, window: 3 }).tasks[0].class, 'flaky');
  const u = new TaskTable();
  u.add(trajectory(0, [0.25, 0.5, 0.5, 0.5]));
  u.add(trajectory(1, [0, 0, 0, 1]));
  assert.equal(classifyTasks(u, { solved: 0.5, window: 3 }).tasks[0].class, 'learned');
  assert.equal(classifyTasks(u, { solved: 0.75, window: 3 }).tasks[0].class, 'never');
});

test('rewards on another scale: the threshold is halfway up the run’s range (-1 … 3 → 1)', () => {
  const t = new TaskTable();
  t.add([row(0, 1, -1), row(0, 2, 1.5), row(0, 3, 2), row(0, 4, 1), row(1, 1, 3), row(1, 2, 3), row(1, 3, 2), row(1, 4, 1)]);
  const r = classifyTasks(t);
  assert.equal(r.threshold, 1);
  assert.deepEqual(
    r.tasks.map((x) => x.class),
    ['learned', 'always'],
  );
});

test('a single version: solved is always, unsolved is never; an all-equal run has no range and no solve at 0', () => {
  const t = new TaskTable();
  t.add([row(0, 5, 1), row(1, 5, 0)]);
  assert.deepEqual(
    classifyTasks(t).tasks.map((x) => x.class),
    ['always', 'never'],
  );
  const z = new TaskTable();
  z.add([row(0, 1, 0), row(0, 2, 0)]);
  assert.deepEqual(
    classifyTasks(z).tasks.map((x) => x.class),
    ['never'],
  );
});

test('rows that cannot be placed are counted by reason, never dropped silently; NaN rewards are not averaged in', () => {
  const t = new TaskTable();
  t.add([row(null, 1, 1, { task_id: null }), row(0, null, 1), row(0, 1, 'NaN'), row(0, 1, null), row(0, 1, 1)]);
  assert.deepEqual(t.skipped, { noTask: 1, noVersion: 1, noReward: 2 });
  assert.equal(t.rows, 5);
  assert.deepEqual(classifyTasks(t).tasks[0].rewards, { 1: 1 });
});

test('an updated row replaces its first delivery (a reward set later by /feedback)', () => {
  const t = new TaskTable();
  const first = row(0, 1, null);
  t.add([first, row(0, 1, 0)]);
  assert.equal(t.skipped.noReward, 1);
  t.add([{ ...first, reward: 1, updated: true }]);
  assert.equal(t.skipped.noReward, 0);
  assert.equal(t.rows, 2);
  assert.deepEqual(classifyTasks(t).tasks[0].rewards, { 1: 0.5 });
});

test('without task_index the batch position (eid.task) is the key, said so; out-of-order versions are sorted', () => {
  const t = new TaskTable();
  t.add([row(null, 3, 1, { task_id: '2' }), row(null, 1, 0, { task_id: '2' }), row(null, 4, 1, { task_id: '2' }), row(null, 2, 1, { task_id: '2' })]);
  assert.equal(t.identity, 'eid.task');
  const r = classifyTasks(t);
  assert.equal(r.tasks[0].task, 'eid 2');
  assert.deepEqual(Object.keys(r.tasks[0].rewards), ['1', '2', '3', '4']);
  assert.equal(r.tasks[0].class, 'learned');
  t.add([row(7, 1, 1)]);
  assert.equal(t.identity, 'mixed');
});

test('tasks of a second taskset are apart; natural order; sorted by gain, flip and length change', () => {
  const t = new TaskTable();
  t.add([
    row(10, 1, 0, { response_tokens: 10 }),
    row(10, 2, 1, { response_tokens: 50 }),
    row(2, 1, 1, { response_tokens: 30 }),
    row(2, 2, 1, { response_tokens: 20 }),
    row(2, 1, 0, { taskset_id: 1 }),
    row(2, 2, 0, { taskset_id: 1 }),
  ]);
  const r = classifyTasks(t);
  assert.deepEqual(
    r.tasks.map((x) => x.task),
    ['1/2', '2', '10'],
  );
  assert.deepEqual(
    sortTasks(r.tasks, 'gain').map((x) => x.task),
    ['10', '1/2', '2'],
  );
  assert.deepEqual(
    sortTasks(r.tasks, 'flip').map((x) => x.task),
    ['10', '1/2', '2'],
  );
  assert.deepEqual(
    sortTasks(r.tasks, 'length').map((x) => [x.task, x.length_change]),
    [
      ['10', 40],
      ['2', -10],
      ['1/2', null],
    ],
  );
});
