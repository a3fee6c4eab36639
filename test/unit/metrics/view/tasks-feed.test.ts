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
import type { TasksPort } from '../../../../src/metrics/view/tasks-feed';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import type { TaskTableWire } from '../../../../src/relay-protocol/tasks';
import { TaskTable } from '../../../../src/tasks/task-table';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { english, type L10n } from '../../../../src/base/l10n';
import { repoRoot } from '../../../harness/paths';

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

function setup(wire: () => TaskTableWire | Error, l10n?: L10n, more: Partial<TasksPort> = {}) {
  const posted: HostMessage[] = [];
  const ctl = new ViewController(
    new MetricsStore(),
    {
      post: (m) => posted.push(m as HostMessage),
      tasks: {
        strings: tasksStrings,
        l10n,
        sources: () => [{ endpoint: 'e1', source: 'sql:buffer/exp.db#experience_buffer', run: 'run', table: 'experience_buffer' }],
        readTasks: () => {
          const w = wire();
          return w instanceof Error ? Promise.reject(w) : Promise.resolve(w);
        },
        ...more,
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

test("the findings' sentences and what was not checked come in the reader's language (here the zh-cn bundle), numbers kept", async () => {
  const bundle = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
  const zh: L10n = { t: (message, ...args) => english.t(bundle[message] ?? message, ...args) };
  // lengths 10 + 20 × version while the reward rises
  const table = new TaskTable();
  for (let v = 1; v <= 8; v++)
    table.add([0, 1, 2].flatMap((task) => members(task, v, Math.min(4, v - 1)).map((r) => ({ ...r, response_tokens: 10 + 20 * v }))));
  const { ctl, tables } = setup(() => table.toWire(), zh);
  ctl.receive({ type: 'watchTasks', on: true });
  await settle();
  ctl.flush();
  const report = tables()[0].tables[0].report;
  const growth = report.findings.find((f) => f.kind === 'length_growth');
  assert.ok(growth, JSON.stringify(report.findings));
  assert.match(growth.detail, /^平均回答长度从 40\.00 增至 160 个 token（\+300 %），同时平均奖励从 0\.\d\d 升至 1\.00（版本 1–2 → 7–8）$/);
  assert.equal(report.not_checked.find((n) => n.kind === 'reference_answer')?.why, '需要任务集的参考答案（此处未读取）');
  ctl.dispose();
});

test("with the run's reference answers (a local job dir), the accepted answers without them are a finding; with answers that hold them, none", async () => {
  const table = new TaskTable();
  for (let v = 1; v <= 4; v++) table.add([0, 1, 2].flatMap((task) => members(task, v, 2)));
  const answers = {
    answers: new Map([
      ['0', '7'],
      ['1', '8'],
      ['2', '9'],
    ]),
    tasksets: 1,
  };
  const read: number[] = [];
  const check = async (say: (task: string) => string) => {
    const { ctl, tables } = setup(() => table.toWire(), undefined, {
      references: (endpoint) => (endpoint === 'e1' ? answers : undefined),
      readResponse: (_e, _s, id) => {
        read.push(id);
        const task = [...table.examples].find(([, e]) => e.best === id)![0].split('@')[0];
        return Promise.resolve(say(task));
      },
    });
    ctl.receive({ type: 'watchTasks', on: true });
    await settle();
    await settle();
    ctl.flush();
    ctl.dispose();
    return tables()[0].tables[0].report;
  };
  const hacked = await check(() => 'The answer is \\boxed{}');
  const f = hacked.findings.find((x) => x.kind === 'reference_answer');
  assert.ok(f, JSON.stringify(hacked.findings));
  assert.equal(f.numbers.without_reference, 9, 'each task at its last three versions');
  assert.equal(read.length, 9);
  const honest = await check((task) => `so it is ${answers.answers.get(task)}`);
  assert.deepEqual(honest.findings, []);
  assert.ok(!honest.not_checked.some((n) => n.kind === 'reference_answer'));
});
