// The Ray view's watch for paused tasks: within the request budget (the worker table at most
// once per interval, only while a job runs), each paused worker looked up once and told once,
// dropped when it goes on; a Ray without the field is noticed.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RayJob, RayWorker } from '../../../../src/ray/api/api-types';
import { PausedWatch, pausedOfJob } from '../../../../src/ray/paused/watch';

const running: RayJob[] = [{ job_id: '01000000', submission_id: 'raysubmit_1', status: 'RUNNING', entrypoint: 'python x.py' }];
const paused = (id: string, port: number): RayWorker => ({
  worker_id: id,
  ip: '127.0.0.1',
  pid: 7,
  node_id: 'n',
  debugger_port: port,
  num_paused_threads: 1,
  is_alive: true,
});

function fixture(workers: RayWorker[][], tasksKnownFrom = 1) {
  const calls = { workers: 0, tasks: 0, actors: 0 };
  let clock = 0;
  const watch = new PausedWatch(
    {
      workers: () => {
        calls.workers++;
        return Promise.resolve(workers[Math.min(calls.workers - 1, workers.length - 1)]);
      },
      tasksOfWorker: (id) => {
        calls.tasks++;
        // the State API knows the task from the `tasksKnownFrom`th lookup on (its events lag the worker's pause)
        if (calls.tasks < tasksKnownFrom) return Promise.resolve([]);
        return Promise.resolve([{ task_id: `t-${id}`, name: 'compute', state: 'RUNNING', job_id: '01000000' }]);
      },
      actors: () => {
        calls.actors++;
        return Promise.resolve([]);
      },
    },
    { everyMs: 10_000, now: () => clock },
  );
  return { watch, calls, tick: (ms: number) => (clock += ms) };
}

test('the worker table at most once per interval, and only while a job runs', async () => {
  const f = fixture([[paused('w1', 4000)]]);
  assert.deepEqual(await f.watch.check([{ ...running[0], status: 'SUCCEEDED' }]), []);
  assert.equal(f.calls.workers, 0, 'no job runs: no request');
  const fresh = await f.watch.check(running);
  assert.deepEqual(
    fresh.map((t) => [t.name, t.job, t.port]),
    [['compute', 'raysubmit_1', 4000]],
  );
  assert.deepEqual(await f.watch.check(running), [], 'not due yet');
  assert.equal(f.calls.workers, 1);
  f.tick(10_000);
  assert.deepEqual(await f.watch.check(running), [], 'still paused: not told again');
  assert.deepEqual([f.calls.workers, f.calls.tasks, f.calls.actors], [2, 1, 1], 'a paused worker is looked up once');
  assert.equal(pausedOfJob(f.watch.paused, running[0]).length, 1);
});

test('a paused worker whose task the State API does not know yet is looked up again at the next read: then under its job, told once', async () => {
  const f = fixture([[paused('w1', 4000)]], 2);
  const first = await f.watch.check(running);
  assert.deepEqual(
    first.map((t) => [t.job, t.name]),
    [[null, 'worker w1']],
    'seen paused before its task is known',
  );
  f.tick(10_000);
  assert.deepEqual(await f.watch.check(running), [], 'not told twice');
  assert.deepEqual(
    f.watch.paused.map((t) => [t.job, t.name, t.seen_at]),
    [['raysubmit_1', 'compute', 0]],
    'its task and job once the State API has them; first seen when it was',
  );
  assert.equal(pausedOfJob(f.watch.paused, running[0]).length, 1, 'under its job');
  f.tick(10_000);
  await f.watch.check(running);
  assert.equal(f.calls.tasks, 2, 'a complete row is not looked up again');
});

test('a worker that went on is dropped; paused again at a new port, it is told again', async () => {
  const f = fixture([[paused('w1', 4000)], [{ ...paused('w1', 4000), num_paused_threads: 0 }], [paused('w1', 4001)]]);
  await f.watch.check(running);
  f.tick(10_000);
  await f.watch.check(running);
  assert.equal(f.watch.paused.length, 0);
  f.watch.soon();
  assert.equal((await f.watch.check(running)).length, 1);
});

test('whether a task is still paused, gone or went on', async () => {
  const f = fixture([[paused('w1', 4000)], [{ ...paused('w1', 4000), num_paused_threads: 0 }], []]);
  assert.equal(await f.watch.stillPaused({ worker_id: 'w1', port: 4000 }), 'paused');
  assert.equal(await f.watch.stillPaused({ worker_id: 'w1', port: 4000 }), 'resumed');
  assert.equal(await f.watch.stillPaused({ worker_id: 'w1', port: 4000 }), 'gone');
});

test('a Ray without num_paused_threads is noticed', async () => {
  const f = fixture([[{ worker_id: 'w1', ip: '127.0.0.1', is_alive: true }]]);
  await f.watch.check(running);
  assert.equal(f.watch.unsupported, true);
});
