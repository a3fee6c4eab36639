// Stacks of a deadlocked run, from real captures of Ray 2.58's dashboard (test/fixtures/ray/stacks:
// `GET /worker/traceback` answers for the two actors of test/fixtures/ray/deadlock_job.py, its job
// supervisor, a pid that is gone, a pid py-spy may not trace, a head started without profiling, a
// node without py-spy; `/api/v0/actors` and `/api/v0/tasks` at the same moment). Each capture ends
// with the `HTTP <status>` line curl added.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { RayActor, RayTask } from '../../../../src/ray/api/api-types';
import {
  actorLabel,
  classifyTracebackError,
  frameText,
  parsePySpyDump,
  roleOf,
  stacksReport,
  waitCycle,
  waitEdges,
  waitingFrame,
} from '../../../../src/ray/diagnostics/stacks';
import { repoRoot } from '../../../harness/paths';

const dir = path.join(repoRoot, 'test', 'fixtures', 'ray', 'stacks');
function capture(name: string): { status: number; body: string } {
  const text = fs.readFileSync(path.join(dir, `traceback-${name}.txt`), 'utf8');
  const m = text.match(/\nHTTP (\d+)\n?$/);
  assert.ok(m, `${name}: the capture ends with its HTTP status`);
  return { status: Number(m[1]), body: text.slice(0, m.index) };
}
const stateRows = <T>(file: string): T[] =>
  (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { data: { result: { result: T[] } } }).data.result.result;
const actors = stateRows<RayActor>('actors.json');
const tasks = stateRows<RayTask>('tasks.json');
const actor = (name: string) => actors.find((a) => a.name === name)!;

test('a py-spy dump parses into the process, its threads and their frames (innermost first)', () => {
  const p = parsePySpyDump(capture('explorer').body);
  assert.equal(p.pid, actor('explorer').pid);
  assert.equal(p.title, 'ray::Explorer.explore_step');
  assert.match(p.python ?? '', /^v3\.\d+/);
  assert.deepEqual(
    p.threads.map((t) => [t.name, t.idle]),
    [
      ['MainThread', true],
      ['PythonGCThread', true],
    ],
  );
  assert.deepEqual(p.threads[0].frames[0], { func: 'get_objects', file: 'ray/_private/worker.py', line: 1004 });
  assert.equal(p.threads[0].frames.at(-1)?.func, '<module>');
  // a thread without a name or frames (the supervisor's last line) still counts
  assert.equal(parsePySpyDump(capture('job-supervisor').body).threads.length, 4);
  assert.deepEqual(parsePySpyDump('Error: nothing like a dump').threads, []);
});

test("each actor's waiting frame: its own code's innermost frame and the blocking call in it", () => {
  const ex = waitingFrame(parsePySpyDump(capture('explorer').body))!;
  assert.equal(ex.call, 'ray.get');
  assert.equal(frameText(ex.frame!), 'explore_step (deadlock_job.py:32)');
  assert.equal(ex.thread, 'MainThread');
  const sy = waitingFrame(parsePySpyDump(capture('synchronizer').body))!;
  assert.equal(sy.call, 'ray.get');
  assert.equal(frameText(sy.frame!), 'wait_for_explorer_state (deadlock_job.py:22)');
  // an actor running nothing sits in Ray's loop: no frame of its own to wait in
  assert.equal(waitingFrame(parsePySpyDump(capture('job-supervisor').body)), undefined);
});

test('roles: Trinity names and classes', () => {
  assert.equal(roleOf(actor('explorer')), 'explorer');
  assert.equal(roleOf(actor('synchronizer')), 'synchronizer');
  assert.equal(roleOf({ name: 'trainer', class_name: 'Trainer' }), 'trainer');
  assert.equal(roleOf({ name: 'explorer_rollout_model_3', class_name: 'vLLMRolloutModel' }), 'rollout');
  assert.equal(roleOf({ class_name: 'WorkflowRunner' }), 'workflow');
  assert.equal(roleOf({ name: '_ray_internal_job_actor_x', class_name: 'JobSupervisor' }), 'other');
  assert.equal(actorLabel(actor('explorer')), 'explorer (Explorer)');
  assert.equal(actorLabel({ actor_id: '0123456789abcdef', class_name: 'WorkflowRunner' }), 'WorkflowRunner 01234567');
});

test('who waits on whom, from the task table: explorer → synchronizer → explorer, a cycle', () => {
  const run = actors.filter((a) => a.ray_namespace === 'agentrl-sample/ray-deadlock');
  const edges = waitEdges(run, tasks);
  const ex = actor('explorer').actor_id;
  const sy = actor('synchronizer').actor_id;
  assert.deepEqual(
    edges.filter((e) => e.from !== 'driver').map((e) => [e.from, e.to, e.task, e.source]),
    [
      [ex, sy, 'Synchronizer.wait_for_explorer_state', 'tasks'],
      [sy, ex, 'Explorer.state', 'tasks'],
    ].sort((a, b) => tasks.findIndex((t) => t.name === a[2]) - tasks.findIndex((t) => t.name === b[2])),
  );
  assert.ok(
    edges.some((e) => e.from === 'driver' && e.to === ex && e.task === 'Explorer.explore_step'),
    'the driver waits on the explorer',
  );
  assert.deepEqual(new Set(waitCycle(edges)), new Set([ex, sy]));
  // finished tasks wait on nothing: mark them all finished and the waits go away
  assert.deepEqual(
    waitEdges(
      run,
      tasks.map((t) => ({ ...t, state: 'FINISHED' })),
    ),
    [],
  );
  assert.equal(waitCycle([{ from: 'a', to: 'b', task: 't', source: 'tasks' }]), undefined);
});

test('without the task table, a `wait_for_<role>` frame still names whom it waits on', () => {
  const run = actors.filter((a) => a.ray_namespace === 'agentrl-sample/ray-deadlock');
  const sy = actor('synchronizer').actor_id;
  const waits = new Map([[sy, waitingFrame(parsePySpyDump(capture('synchronizer').body))]]);
  assert.deepEqual(waitEdges(run, [], waits), [{ from: sy, to: actor('explorer').actor_id, task: 'wait_for_explorer_state', source: 'frame' }]);
});

test('a report groups the actors by role with their waits and the deadlock', () => {
  const r = stacksReport(
    [
      { actor: actor('synchronizer'), ...capture('synchronizer') },
      { actor: actor('explorer'), ...capture('explorer') },
      { actor: { ...actor('explorer'), actor_id: 'gone', name: 'explorer_rollout_model_0', class_name: 'vLLMRolloutModel' }, ...capture('process-gone') },
    ],
    tasks,
  );
  assert.deepEqual(
    r.groups.map((g) => g.role),
    ['explorer', 'synchronizer', 'rollout'],
  );
  const [ex] = r.groups[0].actors;
  assert.deepEqual(ex.running, ['Explorer.explore_step']);
  assert.equal(ex.wait?.frame?.func, 'explore_step');
  assert.equal(r.groups[1].actors[0].wait?.frame?.func, 'wait_for_explorer_state');
  assert.equal(r.groups[2].actors[0].error?.kind, 'process-gone');
  assert.ok(r.cycle && r.cycle.length === 2);
});

test("the dashboard's refusals are told apart (profiling off, no py-spy, no ptrace, process gone)", () => {
  const kind = (n: string) => {
    const c = capture(n);
    return classifyTracebackError(c.status, c.body);
  };
  assert.equal(kind('profiling-disabled').kind, 'profiling-disabled');
  assert.match(kind('profiling-disabled').detail, /RAY_DASHBOARD_ENABLE_PROFILING=1/);
  assert.equal(kind('py-spy-missing').kind, 'py-spy-missing');
  const denied = kind('not-permitted');
  assert.equal(denied.kind, 'not-permitted');
  assert.doesNotMatch(denied.detail, /anyhow|lang_start/, "py-spy's Rust backtrace is dropped");
  assert.match(denied.detail, /Permission denied/);
  assert.equal(kind('process-gone').kind, 'process-gone');
  assert.equal(classifyTracebackError(502, 'Bad Gateway').kind, 'other');
});
