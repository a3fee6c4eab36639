// Relay jobs end with their run: which relays a poll stops (run ended a grace period ago, or
// gone), which it leaves alone (live run, not ours, no forRun), and that the monitor stops them
// through the client exactly once per relay.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobStatus, RayJob } from '../../../../src/ray/api/api-types';
import { ClusterMonitor } from '../../../../src/ray/cluster/monitor';
import { relaysOf, RelayReaper, type RelayStop } from '../../../../src/ray/cluster/relay-reaper';
import { relayJobRequest } from '../../../../src/ray/submit/relay-job';

const run = (id: string, status: JobStatus): RayJob => ({
  job_id: null,
  submission_id: id,
  status,
  entrypoint: 'python -m trinity.cli.launcher run',
  metadata: { agentrl: '1', 'agentrl.kind': 'trinity' },
});
/** A relay as watchMetrics submits it (the real request's metadata). */
const relay = (id: string, forRun: string, status: JobStatus = 'RUNNING'): RayJob => ({
  job_id: null,
  submission_id: id,
  status,
  entrypoint: 'node .agentrl/agentrl.js relay',
  metadata: relayJobRequest({ packageUri: 'gcs://_ray_pkg_x.zip', jobDir: '/ckpt/p/r', forRun }).metadata,
});

test('a relay is stopped once its run has been terminal for the grace period, not before', () => {
  for (const end of ['SUCCEEDED', 'FAILED', 'STOPPED'] as const) {
    const r = new RelayReaper(30_000);
    assert.deepEqual(r.decide([run('run1', 'RUNNING'), relay('rel1', 'run1')], 0), [], 'a running run keeps its relay');
    assert.deepEqual(r.decide([run('run1', end), relay('rel1', 'run1')], 1_000), [], `${end}: first seen terminal, grace starts`);
    assert.deepEqual(r.decide([run('run1', end), relay('rel1', 'run1')], 30_999), [], `${end}: still within the grace period`);
    assert.deepEqual(r.decide([run('run1', end), relay('rel1', 'run1')], 31_000), [{ relay: 'rel1', run: 'run1', reason: 'run-ended' }], `${end}: grace over`);
    assert.deepEqual(r.decide([run('run1', end), relay('rel1', 'run1')], 40_000), [], `${end}: asked once, not on every poll`);
  }
});

test('a relay started after its run ended (a finished run opened again) gets its own grace period', () => {
  const r = new RelayReaper(30_000);
  assert.deepEqual(r.decide([run('run1', 'SUCCEEDED'), relay('rel1', 'run1')], 0), []);
  assert.deepEqual(r.decide([run('run1', 'SUCCEEDED'), relay('rel1', 'run1', 'STOPPED')], 30_000), [], 'the first relay ended (idle)');
  assert.deepEqual(
    r.decide([run('run1', 'SUCCEEDED'), relay('rel1', 'run1', 'STOPPED'), relay('rel2', 'run1')], 100_000),
    [],
    'a new relay for the ended run: its grace starts now',
  );
  assert.deepEqual(r.decide([run('run1', 'SUCCEEDED'), relay('rel1', 'run1', 'STOPPED'), relay('rel2', 'run1')], 129_999), []);
  assert.deepEqual(r.decide([run('run1', 'SUCCEEDED'), relay('rel1', 'run1', 'STOPPED'), relay('rel2', 'run1')], 130_000), [
    { relay: 'rel2', run: 'run1', reason: 'run-ended' },
  ]);
});

test('a pending relay counts too; a relay already stopped or failed is left alone', () => {
  const r = new RelayReaper(0);
  const got = r.decide([run('run1', 'SUCCEEDED'), relay('a', 'run1', 'PENDING'), relay('b', 'run1', 'STOPPED'), relay('c', 'run1', 'FAILED')], 0);
  assert.deepEqual(
    got.map((s) => s.relay),
    ['a'],
  );
});

test('a relay whose run is gone from the list (deleted) is stopped at once', () => {
  const r = new RelayReaper(30_000);
  assert.deepEqual(r.decide([relay('rel1', 'deleted-run'), run('other', 'RUNNING')], 5), [{ relay: 'rel1', run: 'deleted-run', reason: 'run-gone' }]);
});

test('non-relay jobs, relays of other tools and relays without forRun are never stopped', () => {
  const r = new RelayReaper(0);
  const foreign: RayJob = { ...relay('theirs', 'run1'), metadata: { role: 'relay', 'agentrl.role': 'relay', 'agentrl.for': 'run1' } };
  const noFor: RayJob = { ...relay('nofor', 'run1'), metadata: { agentrl: '1', 'agentrl.role': 'relay' } };
  const worker: RayJob = { ...run('worker', 'RUNNING'), metadata: { agentrl: '1', 'agentrl.for': 'run1' } };
  const plain: RayJob = { job_id: '02000000', submission_id: null, status: 'RUNNING', entrypoint: 'python x.py' };
  // Each list holds one relay of ours too: the only one stopped.
  assert.deepEqual(
    r.decide([run('run1', 'FAILED'), foreign, noFor, worker, plain, relay('ours', 'run1')], 100).map((s) => s.relay),
    ['ours'],
  );
  assert.deepEqual(
    r.decide([foreign, noFor, worker, plain, relay('ours2', 'gone')], 200).map((s) => s.relay),
    ['ours2'],
    'not even when the run is gone',
  );
});

test('the grace restarts if a run id is listed live again, and a failed stop is retried', () => {
  const r = new RelayReaper(10);
  r.decide([run('run1', 'STOPPED'), relay('rel1', 'run1')], 0);
  r.decide([run('run1', 'RUNNING'), relay('rel1', 'run1')], 5);
  assert.deepEqual(r.decide([run('run1', 'STOPPED'), relay('rel1', 'run1')], 12), [], 'first seen terminal again at 12');
  assert.equal(r.decide([run('run1', 'STOPPED'), relay('rel1', 'run1')], 22).length, 1);
  r.retry('rel1');
  assert.equal(r.decide([run('run1', 'STOPPED'), relay('rel1', 'run1')], 23).length, 1, 'asked again after a failure');
});

test('relaysOf: the live relays of one run (the user stopped it: no grace)', () => {
  const jobs = [run('run1', 'RUNNING'), relay('a', 'run1'), relay('b', 'run2'), relay('c', 'run1', 'STOPPED'), relay('d', 'run1', 'PENDING')];
  assert.deepEqual(relaysOf(jobs, 'run1'), ['a', 'd']);
  assert.deepEqual(relaysOf(jobs, 'a'), [], 'a relay has no relay');
});

test('the monitor stops orphaned relays through the client on its poll, once each, and reports it', async () => {
  let now = 0;
  let jobs: RayJob[] = [run('run1', 'RUNNING'), relay('rel1', 'run1'), relay('rel2', 'gone')];
  const stopped: string[] = [];
  const reported: RelayStop[] = [];
  const m = new ClusterMonitor({
    url: 'http://127.0.0.1:1',
    relayGraceMs: 30_000,
    now: () => now,
    actors: false,
    onRelayStopped: (s, e) => {
      assert.equal(e, undefined);
      reported.push(s);
    },
  });
  // The client stubbed in place: the unit tier opens no socket.
  Object.assign(m.client, {
    version: () => Promise.resolve({ version: '1', ray_version: '2.58.0' }),
    nodes: () => Promise.resolve([]),
    jobs: () => Promise.resolve(jobs),
    clusterUsage: () => Promise.resolve({}),
    logs: () => Promise.resolve(''),
    stop: (id: string) => {
      stopped.push(id);
      return Promise.resolve(true);
    },
  });
  await m.refresh();
  assert.deepEqual(stopped, ['rel2'], 'the relay of a run that is gone');
  jobs = [run('run1', 'SUCCEEDED'), relay('rel1', 'run1'), relay('rel2', 'gone')];
  now = 1_000;
  await m.refresh();
  now = 20_000;
  await m.refresh();
  assert.deepEqual(stopped, ['rel2'], 'within the grace period');
  now = 31_000;
  await m.refresh();
  now = 34_000;
  await m.refresh();
  assert.deepEqual(stopped, ['rel2', 'rel1']);
  assert.deepEqual(
    reported.map((s) => `${s.relay}:${s.reason}`),
    ['rel2:run-gone', 'rel1:run-ended'],
  );
});
