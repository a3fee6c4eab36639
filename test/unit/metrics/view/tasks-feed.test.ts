// The Tasks view's extension side without VS Code: while the page shows the view it gets every
// experience source's table (as a relay folds it: TaskTable's wire form) with the tasks classed,
// the example rows per version and the lengths, again on each tick while the run goes; nothing
// once hidden; a source that fails is named; "Debug This Rollout" comes out as an event. The
// relay is the boundary here: the port hands the table a relay would send (the relay's own fold
// is tested in test/component/relay/conformance/tasks.test.ts). Timers are node:test's fake ones.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { TASKS_STRING_KEYS, type TasksStrings, type TasksTableMessage } from '../../../../src/metrics/protocol/tasks-protocol';
import { UI_STRING_KEYS, type UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { type HostMessage, METRICS_PROTOCOL_VERSION } from '../../../../src/metrics/protocol/view-protocol';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import type { TaskTableWire } from '../../../../src/relay-protocol/tasks';
import { TaskTable } from '../../../../src/tasks/task-table';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const tasksStrings = Object.fromEntries(TASKS_STRING_KEYS.map((k) => [k, k])) as TasksStrings;

let id = 1;
/** Four members of a task at a version, k of them rewarded 1, with lengths 10 + version. */
function members(task: number, version: number, k: number): ExperienceRow[] {
  return [0, 1, 2, 3].map((m) => ({
    id: id++,
    table: 'experience_buffer',
    task_id: String(task),
    run_id: m,
    model_version: version,
    reward: m < k ? 1 : 0,
    timestamp: null,
    task_index: task,
    response_tokens: 10 + version,
  }));
}

function setup(wire: () => TaskTableWire | Error) {
  const posted: HostMessage[] = [];
  const ctl = new ViewController(
    new MetricsStore(),
    {
      post: (m) => posted.push(m as HostMessage),
      tasks: {
        strings: tasksStrings,
        sources: () => [{ endpoint: 'e1', source: 'sql:buffer/exp.db#experience_buffer', run: 'run', table: 'experience_buffer' }],
        readTasks: () => {
          const w = wire();
          return w instanceof Error ? Promise.reject(w) : Promise.resolve(w);
        },
      },
    },
    silentLogger,
    strings,
  );
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  const tables = () => posted.filter((m): m is TasksTableMessage => m.type === 'tasksTable');
  return { ctl, tables };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('a shown Tasks view gets the classed table with example rows and lengths, live while shown, nothing once hidden', async (t) => {
  t.mock.timers.enable({ apis: ['setInterval'] });
  const table = new TaskTable();
  table.add([...members(0, 1, 0), ...members(1, 1, 4)]);
  table.add([...members(0, 2, 4), ...members(1, 2, 4)]);
  const { ctl, tables } = setup(() => table.toWire());
  ctl.flush();
  assert.equal(tables().length, 0, 'nothing before the page shows the view');
  ctl.receive({ type: 'watchTasks', on: true });
  await settle();
  ctl.flush();
  assert.equal(tables().length, 1);
  const first = tables()[0].tables[0];
  assert.deepEqual(
    first.report.tasks.map((x) => [x.task, x.class, x.first_solved]),
    [
      ['0', 'learned', 2],
      ['1', 'always', 1],
    ],
  );
  assert.deepEqual(first.examples['0'][2], [9, 9, 9], 'the best, worst and longest member of task 0 at version 2 (its first row)');
  assert.deepEqual(first.lengths['0'], { 1: 11, 2: 12 });
  assert.equal(first.table, 'experience_buffer');

  table.add(members(0, 3, 0)); // the run goes on: task 0 lost at version 3
  t.mock.timers.tick(3000);
  await settle();
  ctl.flush();
  assert.equal(tables().length, 2);
  assert.equal(tables()[1].tables[0].report.tasks[0].rewards[3], 0);

  ctl.receive({ type: 'watchTasks', on: false });
  t.mock.timers.tick(30_000);
  await settle();
  ctl.flush();
  assert.equal(tables().length, 2, 'no reads while hidden');
  ctl.dispose();
});

test('a source whose table cannot be read is named', async () => {
  const { ctl, tables } = setup(() => new Error('endpoint e1 is not connected'));
  ctl.receive({ type: 'watchTasks', on: true });
  await settle();
  ctl.flush();
  assert.deepEqual(tables()[0].errors, ['run: endpoint e1 is not connected']);
  assert.deepEqual(tables()[0].tables, []);
  ctl.dispose();
});
