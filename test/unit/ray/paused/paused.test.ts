// Paused workers from the State API's rows: joined with their task, actor and job; the user's
// frame found under Ray's and debugpy's own; a Ray without the debugger fields lists none.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RayWorker } from '../../../../src/ray/api/api-types';
import { type PausedPort, findPaused, stoppedAt } from '../../../../src/ray/paused/paused';

const DUMP = `Process 4242: ray::compute
Python v3.11.7 (/venv/bin/python3.11)

Thread 4242 (idle): "MainThread"
    wait (threading.py:327)
    wait_for_client (debugpy/server/api.py:290)
    set_trace (ray/util/debugpy.py:79)
    compute (paused_job.py:12)
    actor_method_executor (ray/_private/function_manager.py:689)
    main_loop (ray/_private/worker.py:946)
    <module> (ray/_private/workers/default_worker.py:330)
`;

test('the frame a breakpoint() stopped in, under set_trace; a post-mortem says so', () => {
  assert.deepEqual(stoppedAt(DUMP), { file: 'paused_job.py', line: 12, post_mortem: false });
  const pm = DUMP.replace('    compute (paused_job.py:12)\n', '    _post_mortem (ray/util/debugpy.py:140)\n');
  assert.deepEqual(stoppedAt(pm), { file: null, line: null, post_mortem: true });
  assert.deepEqual(stoppedAt('Process 1: python\n'), { file: null, line: null, post_mortem: false });
});

function port(workers: RayWorker[]): PausedPort {
  return {
    workers: () => Promise.resolve(workers),
    tasksOfWorker: (id) =>
      Promise.resolve([
        {
          task_id: 't',
          name: id === 'w1' ? 'compute' : 'Scorer.score',
          state: 'RUNNING',
          job_id: '02000000',
          actor_id: id === 'w2' ? 'a1' : null,
          start_time_ms: 5,
        },
      ]),
    actors: () => Promise.resolve([{ actor_id: 'a1', name: 'scorer', class_name: 'Scorer', state: 'ALIVE', job_id: '02000000' }]),
    jobs: () => Promise.resolve([{ job_id: '02000000', submission_id: 'raysubmit_x', status: 'RUNNING', entrypoint: 'python job.py' }]),
    stack: () => Promise.resolve({ error: 'profiling-disabled' }),
  };
}

test('paused workers with their task or actor method, job (by submission id) and address; filtered by job', async () => {
  const workers: RayWorker[] = [
    { worker_id: 'w1', ip: '10.0.0.5', pid: 11, node_id: 'n1', debugger_port: 5001, num_paused_threads: 1, is_alive: true },
    { worker_id: 'w2', ip: '10.0.0.6', pid: 12, node_id: 'n2', debugger_port: 5002, num_paused_threads: 1, is_alive: true },
    { worker_id: 'w3', ip: '10.0.0.6', pid: 13, node_id: 'n2', debugger_port: 0, num_paused_threads: 0, is_alive: true },
  ];
  const got = await findPaused(port(workers));
  assert.deepEqual(
    got.map((p) => [p.job, p.name, p.ip, p.port, p.pid, p.stack_error]),
    [
      ['raysubmit_x', 'compute', '10.0.0.5', 5001, 11, 'profiling-disabled'],
      ['raysubmit_x', 'scorer: Scorer.score', '10.0.0.6', 5002, 12, 'profiling-disabled'],
    ],
  );
  assert.equal((await findPaused(port(workers), '02000000')).length, 2);
  assert.deepEqual(await findPaused(port(workers), 'raysubmit_other'), []);
});

test('a Ray without num_paused_threads / debugger_port lists nothing (and asks nothing more)', async () => {
  let asked = 0;
  const p = port([{ worker_id: 'w1', ip: '10.0.0.5', pid: 11, node_id: 'n1', is_alive: true }]);
  p.actors = () => {
    asked++;
    return Promise.resolve([]);
  };
  assert.deepEqual(await findPaused(p), []);
  assert.equal(asked, 0);
});
