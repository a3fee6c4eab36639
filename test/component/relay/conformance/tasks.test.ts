// The tasks table both relays fold on the node (`tasks` request, src/relay-protocol/tasks.ts),
// on a buffer written by Trinity-RFT 0.5.2's own SQL storage: the same table from the Node relay
// and its Python twin — the cells, the example rows, the bad input counted (rows without a task,
// NaN rewards, versions out of order), the responses many tasks gave — brought up to date with only the new rows when asked
// again, and classed right on the client.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { TaskTableWire } from '../../../../src/relay-protocol/tasks';
import { classifyTasks } from '../../../../src/tasks/task-classes';
import { TaskTable } from '../../../../src/tasks/task-table';
import { until } from '../../../harness/wait';
import { tmpDir } from '../helpers';
import { TrinitySqlWriter, noTrinity } from '../trinity-sql-writer';
import { PYTHON_RUNTIMES, RelayRuntime, relaySkipReason, startRelay } from './helpers';

/** Mean reward per version (4 members: k of 4 rewarded 1). */
const TRAJECTORIES: Record<number, number[]> = {
  0: [0, 0.25, 0.75, 1, 1], // learned at version 3
  1: [0, 0, 0, 0, 0], // never
  2: [1, 1, 1, 1, 1], // always
  3: [1, 1, 0, 0, 0], // forgotten
};

function batch(version: number, extra: object[] = [], response?: string): object[] {
  return Object.entries(TRAJECTORIES)
    .map(([task, means], position) => ({
      ...(response ? { response } : {}),
      index: Number(task),
      position,
      version,
      rewards: [0, 1, 2, 3].map((m) => (m < means[version - 1] * 4 ? 1 : 0)),
      metrics: { accuracy: 1 },
      length: 10 + version,
    }))
    .concat(extra as never[]);
}

interface Run {
  first: TaskTableWire;
  again: TaskTableWire;
}

/** Writes versions 1–4 with bad rows, asks, writes version 5 (and a late version-2 row), asks again. */
async function run(runtime: RelayRuntime): Promise<Run> {
  const job = path.join(tmpDir('conf-tasks-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const py = new TrinitySqlWriter();
  try {
    await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
    for (let v = 1; v <= 4; v++)
      await py.call({
        op: 'tasks',
        items: batch(
          v,
          v === 2
            ? [
                { index: null, position: null, version: 2, rewards: [1] }, // no task at all
                { index: null, position: 7, version: 2, rewards: [0] }, // eid.task only
                { index: 1, position: 1, version: 2, rewards: ['nan'] }, // NaN reward
              ]
            : [],
        ),
      });
    const relay = await startRelay(['--job-dir', job], { runtime });
    const client = new RelayClient({ url: relay.url, experiences: false });
    let source = '';
    client.on('hello', (h) => (source = h.sources.find((s) => s.kind === 'sql')?.id ?? ''));
    try {
      client.start();
      await until('hello with the SQL source', () => source, 60_000);
      const first = await client.requestTasks(source);
      // Version 5: every task answers the same (up to case and spacing): the sketch of same responses shows it.
      await py.call({ op: 'tasks', items: [...batch(5, [], '  The answer is 42\n'), { index: 0, position: 0, version: 2, rewards: [1] }] });
      let again = first;
      await until('the new rows in the table', async () => (again = await client.requestTasks(source)).rows > first.rows, 60_000);
      return { first, again };
    } finally {
      await client.close();
      await relay.stop();
    }
  } finally {
    await py.close();
  }
}

let node: Promise<Run> | undefined;
const reference = () => (node ??= run('node'));

test(
  'the Node relay folds the buffer: each task by its taskset row, bad rows counted and named, new rows folded in',
  { skip: noTrinity, timeout: 300_000 },
  async () => {
    const { first, again } = await reference();
    assert.equal(first.rows, 4 * 4 * 4 + 3);
    assert.deepEqual(first.notes, { noTask: 1, noVersion: 0, noReward: 1, versionsOutOfOrder: 0 });
    assert.equal(first.unstable, 1, 'the row with eid.task only is keyed by it');
    assert.ok(first.cells.some((c) => c.task === 'eid 7'));
    assert.equal(again.rows, first.rows + 4 * 4 + 1);
    assert.equal(again.notes.versionsOutOfOrder, 1, 'the version-2 row written after version 5');
    const r = classifyTasks(TaskTable.fromWire(again));
    assert.deepEqual(
      r.tasks.filter((t) => !t.task.startsWith('eid')).map((t) => [t.task, t.class, t.first_solved]),
      [
        ['0', 'learned', 3],
        ['1', 'never', null],
        ['2', 'always', 1],
        ['3', 'forgotten', 1],
      ],
    );
    assert.deepEqual(first.same, [], 'each task answered in its own words up to version 4');
    assert.equal(again.hashed, again.rows - 2, 'every placed row has a response fingerprint (the two bad rows are not placed)');
    assert.deepEqual(
      again.same.map((x) => [x.version, x.rows, x.tasks, x.examples.length]),
      [[5, 16, 4, 3]],
    );
    const late = again.cells.find((c) => c.task === '0' && c.version === 2)!;
    assert.equal(late.n, 5, "the late row joined its version's cell");
    assert.equal(late.sum, 2, 'one of four rewarded at version 2, and the late row');
  },
);

for (const runtime of PYTHON_RUNTIMES) {
  test(`the same tasks table from the Python relay [${runtime}]`, { skip: noTrinity || relaySkipReason(runtime), timeout: 300_000 }, async () => {
    const got = await run(runtime);
    const want = await reference();
    assert.deepEqual(got.first, want.first);
    assert.deepEqual(got.again, want.again);
  });
}
