// The host's index of experience rows: a row sent again (its reward arrived, the trainer
// consumed it) replaces the one held — also on disk, where the last line of a row wins — and
// the drill of 10⁶ rows packs into columns with bounded work: each row's task read a fixed
// number of times (the sort runs on numeric keys, the collator on the distinct tasks only).
// Its time: `npm run bench -- drill`.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import type { ExperienceViewRow } from '../../../../src/metrics/protocol/experience-rows';
import { ExperienceIndex } from '../../../../src/metrics/store/experiences';
import { byTaskThenRun } from '../../../../src/metrics/view/drill';
import { toColumns } from '../../../../src/metrics/experiences/columns';

const row = (id: number, extra: Partial<ExperienceRow> = {}): ExperienceRow => ({
  id,
  table: 'proxy_history',
  task_id: '',
  run_id: 0,
  model_version: 2,
  reward: null,
  timestamp: null,
  consumed: 0,
  ...extra,
});

test('a repeated row replaces the one held (same key), is reported, and is written again; loading keeps the last version', () => {
  const x = new ExperienceIndex();
  const changes: [string, (number | null)[]][] = [];
  x.onChange = (run, v) => changes.push([run, [...v]]);
  assert.equal(x.add('e', 's', 'r', [row(1), row(2)]), 2);
  const first = x.takeUnpersisted();
  assert.equal(first.split('\n').filter(Boolean).length, 2);
  assert.equal(
    x.add('e', 's', 'r', [row(1, { reward: 0.75, consumed: 1, task_id: 't', updated: true, metrics: { accuracy: 1, format_score: 'NaN' }, advantage: -0.5 })]),
    0,
  );
  assert.equal(x.add('e', 's', 'r', [row(2)]), 0, 'an unchanged repeat');
  assert.equal(x.add('e', 'other-source', 'r', [row(1)]), 1, 'another source, another row');
  assert.equal(x.size, 3);
  assert.equal(changes.length, 3, 'added, replaced, added (the unchanged repeat is not a change)');
  assert.deepEqual(changes[1], ['r', [2]]);
  const [r1] = x.select('r', [2]);
  assert.deepEqual([r1.reward, r1.consumed, r1.taskId, r1.advantage], [0.75, 1, 't', -0.5]);
  assert.ok(Number.isNaN(r1.metrics!.format_score));
  // Moving a row to another model version moves it in the index.
  x.add('e', 's', 'r', [row(2, { model_version: 3 })]);
  assert.deepEqual(
    x.select('r', [2]).map((r) => r.id),
    [1, 1],
  );
  assert.deepEqual(
    x.select('r', [3]).map((r) => r.id),
    [2],
  );

  const second = x.takeUnpersisted();
  assert.equal(second.split('\n').filter(Boolean).length, 3, 'the two replaced rows and the new one');
  assert.match(second, /"format_score":"NaN"/);
  assert.equal(x.persisted, 5);
  assert.equal(x.takeUnpersisted(), '');

  const y = new ExperienceIndex();
  assert.equal(y.load(first + second, x.persisted), 5);
  assert.equal(y.size, 3);
  const again = y.select('r', [2]).find((r) => r.source === 's')!;
  assert.deepEqual([again.reward, again.consumed, again.advantage], [0.75, 1, -0.5]);
  assert.ok(Number.isNaN(again.metrics!.format_score));
  assert.deepEqual(
    y.select('r', [3]).map((r) => r.id),
    [2],
  );
  assert.equal(y.takeUnpersisted(), '', 'loaded rows are on disk already');
});

test('the drill of 10⁶ rows sorts and packs into columns in bounded time', () => {
  const x = new ExperienceIndex();
  const rows: ExperienceRow[] = [];
  for (let i = 0; i < 1_000_000; i++)
    rows.push(
      row(i + 1, { task_id: String((i * 7919) % 125_000), run_id: i % 8, model_version: 1, reward: i % 3, metrics: { accuracy: i % 2, format_score: 0 } }),
    );
  x.add('e', 's', 'r', rows);
  // Each selected row with its task's reads counted (a sort comparing rows' tasks would read
  // each one ~2·log₂(10⁶) ≈ 40 times).
  let taskReads = 0;
  const counting = {
    get taskId(): string | null {
      taskReads++;
      return (this as unknown as { task: string | null }).task;
    },
  };
  const selected = x
    .select('r', [1])
    .map(({ taskId, ...rest }): ExperienceViewRow => Object.assign(Object.create(counting) as ExperienceViewRow, rest, { task: taskId }));
  const cols = toColumns(byTaskThenRun(selected));
  assert.equal(cols.id.length, 1_000_000);
  assert.equal(cols.tasks.length, 125_000);
  assert.deepEqual([cols.tasks[0], cols.tasks[1]], ['0', '1']);
  assert.ok(taskReads <= 5 * 1_000_000, `${taskReads} reads of a row's task for 10⁶ rows`);
  assert.ok(taskReads >= 1_000_000, 'the reads are counted');
});
