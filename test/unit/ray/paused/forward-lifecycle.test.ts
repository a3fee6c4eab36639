// When the editor stops a forwarder: its worker gone or resumed before anyone attached; never
// while a session goes through, never on a dashboard that did not answer; an ended job is left be.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RayWorker } from '../../../../src/ray/api/api-types';
import { forwarderVerdict, watchForwarder } from '../../../../src/ray/paused/forward-lifecycle';

const paused: RayWorker = { worker_id: 'w1', is_alive: true, num_paused_threads: 1, debugger_port: 41435 };
const READY = 'agentrl forward: ready for 127.0.0.1:41435\n';

test('kept while its worker is paused, or running with a session through it', () => {
  assert.deepEqual(forwarderVerdict('w1', { workers: [paused], log: READY, status: 'RUNNING' }), { action: 'keep' });
  const resumed = { ...paused, num_paused_threads: null };
  assert.deepEqual(forwarderVerdict('w1', { workers: [resumed], log: `${READY}agentrl forward: session started\n`, status: 'RUNNING' }), { action: 'keep' });
  assert.deepEqual(forwarderVerdict('w1', { workers: undefined, log: undefined, status: undefined }), { action: 'keep' }, 'no answer: look again');
});

test('stopped when its worker is gone, or resumed before anyone attached', () => {
  assert.deepEqual(forwarderVerdict('w1', { workers: [], log: READY, status: 'RUNNING' }), { action: 'stop', why: 'worker-gone' });
  assert.deepEqual(forwarderVerdict('w1', { workers: [{ ...paused, is_alive: false }], log: READY, status: 'RUNNING' }), {
    action: 'stop',
    why: 'worker-gone',
  });
  assert.deepEqual(forwarderVerdict('w1', { workers: [{ ...paused, num_paused_threads: 0 }], log: READY, status: 'RUNNING' }), {
    action: 'stop',
    why: 'worker-resumed',
  });
});

test('a forwarder that ended by itself is not stopped again; its log says why', () => {
  assert.deepEqual(forwarderVerdict('w1', { workers: [paused], log: `${READY}agentrl forward: target refused: 127.0.0.1:1: refused\n`, status: 'FAILED' }), {
    action: 'ended',
    end: { kind: 'refused', detail: '127.0.0.1:1: refused' },
  });
  assert.deepEqual(forwarderVerdict('w1', { workers: [], log: undefined, status: 'SUCCEEDED' }), { action: 'ended', end: undefined });
});

// debugpy lets go of num_paused_threads as soon as a client attaches; the forwarder says
// "session started" before that client's first byte reaches debugpy. A look that reads the log
// before the worker row can see the worker resumed and no session yet: the forwarder would be
// stopped under the session going through it.
test('a session that goes through while the forwarder is looked at: kept (the worker row read first, its log after)', async () => {
  let attached = false;
  const client = {
    // the dashboard answers the worker table late: by then the session went through
    workers: async (): Promise<RayWorker[]> => {
      await new Promise((r) => setImmediate(r));
      attached = true;
      return [{ ...paused, num_paused_threads: 0 }];
    },
    // the log as it is when asked
    logs: (): Promise<string> => Promise.resolve(attached ? `${READY}agentrl forward: session started\n` : READY),
    job: () => Promise.resolve({ status: 'RUNNING' } as never),
  };
  let tick: (() => void) | undefined;
  const ended: unknown[] = [];
  const w = watchForwarder(client, 'fwd', 'w1', (v) => void ended.push(v), {
    setInterval: (f) => (tick = f),
    clearInterval: () => undefined,
  });
  tick!();
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  w.dispose();
  assert.deepEqual(ended, [], 'the forwarder is kept while its session goes through');
});
