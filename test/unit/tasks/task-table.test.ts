// The fold of rows into tasks × model versions as the relay keeps it: a changed row takes back
// what its first delivery added (dense and sparse row ids alike), rows out of version order are
// counted, the same-response sketch keeps the responses many tasks gave, and the wire form goes
// through the protocol's validation and back to the same table.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ExperienceRow, parseServerMessage } from '../../../src/relay-protocol/messages';
import { TaskTable } from '../../../src/tasks/task-table';

const row = (id: number, task: number, version: number, reward: number | string, extra: Partial<ExperienceRow> = {}): ExperienceRow => ({
  id,
  table: 'experience_buffer',
  task_id: '0',
  run_id: 0,
  model_version: version,
  reward: reward as ExperienceRow['reward'],
  timestamp: null,
  task_index: task,
  ...extra,
});

test('a changed row replaces its first delivery, whatever its id; versions out of order are counted', () => {
  for (const base of [1, 2 ** 40]) {
    const t = new TaskTable();
    t.add([
      row(base, 0, 2, 0, { metrics: { accuracy: 0 }, response_tokens: 10 }),
      row(base + 1, 0, 2, 1, { metrics: { accuracy: 1 }, response_tokens: 30 }),
      row(base + 2, 0, 1, 1), // after version 2: out of order
      row(base + 3, 1, 2, 'NaN'),
    ]);
    assert.equal(t.versionsOutOfOrder, 1);
    assert.equal(t.skipped.noReward, 1);
    // The late /feedback: row `base` rewarded 1, its length and parts as now; the NaN row gets a reward.
    t.add([row(base, 0, 2, 1, { metrics: { accuracy: 1 }, response_tokens: 20, updated: true }), row(base + 3, 1, 2, 0.5, { updated: true })]);
    const c = t.cells.get('0')!.get(2)!;
    assert.deepEqual([c.n, c.sum, c.lenN, c.lenSum, c.parts.get('accuracy')], [2, 2, 2, 50, { n: 2, sum: 2 }]);
    assert.equal(t.skipped.noReward, 0);
    assert.equal(t.rows, 4, 'a changed row counts once');
    assert.equal(t.versionsOutOfOrder, 1, 'a changed row is not a new one');
  }
});

test('the wire form passes the protocol and rebuilds the same table; the responses several tasks gave are kept', () => {
  const t = new TaskTable();
  const rows: ExperienceRow[] = [];
  for (let task = 0; task < 6; task++)
    for (let m = 0; m < 2; m++) rows.push(row(rows.length + 1, task, 3, m, { response_hash: m ? 'same' : `own-${task}`, response_tokens: 5 + m }));
  rows.push(row(100, 9, 3, 1, { task_index: undefined, task_id: null }));
  t.add(rows);
  const wire = t.toWire();
  assert.deepEqual(
    wire.same.map((s) => [s.version, s.hash, s.rows, s.tasks, s.examples]),
    [[3, 'same', 6, 6, [2, 4, 6]]],
  );
  assert.equal(wire.hashed, 12);
  assert.equal(wire.notes.noTask, 1);
  const m = parseServerMessage(JSON.stringify({ type: 'tasks', request: 1, source: 's', table: wire }));
  assert.ok(m.type === 'tasks' && m.table);
  const back = TaskTable.fromWire(m.table);
  assert.deepEqual(back.toWire(), wire);
  assert.deepEqual(back.examples.get('5@3'), t.examples.get('5@3'));
  assert.throws(
    () => parseServerMessage(JSON.stringify({ type: 'tasks', request: 1, source: 's', table: { ...wire, cells: [{ task: 1 }] } })),
    /tasks: bad table/,
  );
});
