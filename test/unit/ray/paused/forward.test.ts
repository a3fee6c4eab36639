// Which path reaches a paused worker, up to the first network step: where a forwarder that
// listens on its node's loopback may be found from here, and the fall back to the SSH tunnel
// when neither the node nor a forwarder answers — with the forwarder job stopped, never left.
// The dashboard is a STAND-IN here (a few canned answers); the real one is in
// test/component/ray/paused/forward.netns.test.ts.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RayJob, SubmitJobRequest } from '../../../../src/ray/api/api-types';
import { forwarderCandidates, reachWorker, type ForwardClient } from '../../../../src/ray/paused/forward';

test('a forwarder on the node’s loopback: at our loopback (a tunnel), and at the dashboard’s host when that is not loopback', () => {
  const listening = [
    { host: '127.0.0.1', port: 5679 },
    { host: '10.0.0.7', port: 5679 },
  ];
  assert.deepEqual(forwarderCandidates(listening, 'http://127.0.0.1:8265'), [
    { host: '127.0.0.1', port: 5679 },
    { host: '10.0.0.7', port: 5679 },
  ]);
  assert.deepEqual(forwarderCandidates(listening, 'http://head.example:8265'), [
    { host: '127.0.0.1', port: 5679 },
    { host: 'head.example', port: 5679 },
    { host: '10.0.0.7', port: 5679 },
  ]);
});

test('nothing answers: the SSH tunnel, why the others were not taken, and the forwarder job that never got ready stopped and forgotten', async () => {
  const calls: string[] = [];
  const submitted: SubmitJobRequest[] = [];
  const client: ForwardClient = {
    url: 'http://127.0.0.1:8265',
    nodeManagerPort: () => Promise.resolve(undefined),
    submit: (r) => {
      submitted.push(r);
      return Promise.resolve({ submission_id: 'fwd_1' });
    },
    logs: () => Promise.resolve('agentrl forward: failed: this node has no python >= 3.6\n'),
    job: (id) => Promise.resolve({ submission_id: id, job_id: null, status: 'FAILED', entrypoint: '' } as RayJob),
    stop: (id) => {
      calls.push(`stop ${id}`);
      return Promise.resolve(true);
    },
    delete: (id) => {
      calls.push(`delete ${id}`);
      return Promise.resolve(true);
    },
  };
  const r = await reachWorker(client, { ip: '10.0.0.7', port: 41435, pid: 4242, node: 'n1', job: 'raysubmit_1' });
  assert.equal(r.via, 'ssh');
  assert.equal(r.ssh, 'ssh -N -L 41435:10.0.0.7:41435 -- 10.0.0.7');
  assert.deepEqual([r.host, r.port], ['127.0.0.1', 41435]);
  assert.deepEqual(
    r.notes.map((n) => `${n.step}:${n.outcome}`),
    ['direct:unknown-node', 'forwarder:failed'],
  );
  assert.equal(submitted.length, 1);
  assert.deepEqual(submitted[0].entrypoint_resources, { 'node:10.0.0.7': 0.001 });
  assert.deepEqual(calls, ['stop fwd_1', 'delete fwd_1'], 'the failed forwarder job is stopped and its record removed');
  await r.dispose();
});

test('a submit that fails on our side (the answer timed out) may have started the forwarder: the id chosen before the submit is stopped all the same', async () => {
  const calls: string[] = [];
  const submitted: SubmitJobRequest[] = [];
  const client: ForwardClient = {
    url: 'http://127.0.0.1:8265',
    nodeManagerPort: () => Promise.resolve(undefined),
    // the dashboard took the job, its answer did not come back in time
    submit: (r) => {
      submitted.push(r);
      return Promise.reject(new Error('cannot reach the Ray dashboard at http://127.0.0.1:8265 (timed out after 10000 ms)'));
    },
    logs: () => Promise.resolve(''),
    job: (id) => Promise.resolve({ submission_id: id, job_id: null, status: 'STOPPED', entrypoint: '' } as RayJob),
    stop: (id) => {
      calls.push(`stop ${id}`);
      return Promise.resolve(true);
    },
    delete: (id) => {
      calls.push(`delete ${id}`);
      return Promise.resolve(true);
    },
  };
  const r = await reachWorker(client, { ip: '10.0.0.7', port: 41435, pid: 4242, node: 'n1', job: 'raysubmit_1' });
  assert.equal(r.via, 'ssh');
  assert.equal(submitted.length, 1);
  const id = submitted[0].submission_id;
  assert.match(id ?? '', /^agentrl-forward-[\w-]+$/, 'the forwarder job has an id of ours');
  assert.deepEqual(calls, [`stop ${id}`, `delete ${id}`], 'that job is stopped and forgotten: no orphan');
});
