// The forwarder job's request (pinned to the worker's node like the relay job, no CPU, tagged as
// ours) and what its log says: where it listens once ready, why it ended, whether a session went through.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { META } from '../../../../src/ray/api/api-types';
import { FORWARDER_PY, forwarderAttached, forwarderEnd, forwarderReady, forwarderRequest, sshCommand } from '../../../../src/ray/paused/forwarder';

test('the forwarder job: pinned by a sliver of node:<ip>, no CPU, its target and pid on the command line, the script inline', () => {
  const req = forwarderRequest({
    targetHost: '10.0.0.7',
    targetPort: 41435,
    resource: 'node:10.0.0.7',
    bind: ['127.0.0.1', '10.0.0.7', '127.0.0.1'],
    pid: 4242,
    tag: 'T1',
    forJob: 'raysubmit_1',
  });
  assert.deepEqual(req.entrypoint_resources, { 'node:10.0.0.7': 0.001 });
  assert.equal(req.entrypoint_num_cpus, 0);
  assert.equal(req.metadata?.[META.role], 'forwarder');
  assert.equal(req.metadata?.[META.forRun], 'raysubmit_1');
  assert.match(
    req.entrypoint,
    /--target-host 10\.0\.0\.7 --target-port 41435 --bind 127\.0\.0\.1,10\.0\.0\.7 --port 0 --tag T1 --attach-within 120 --pid 4242/,
  );
  assert.ok(req.entrypoint.includes('def serve(conn):'), 'the script travels in the entrypoint (no package to upload)');
  assert.ok(!FORWARDER_PY.includes("'"), 'the script has no single quote, so the shell quoting stays one word');
  assert.equal(req.runtime_env, undefined, 'no working_dir: nothing of the workspace is uploaded for it');
});

test('ready: the addresses it listens on; an address it could not take is skipped; none at all throws', () => {
  const log = [
    'agentrl forward: cannot listen on 10.9.9.9:0: [Errno 99] Cannot assign requested address',
    'agentrl forward: listening on 127.0.0.1:5679',
    'agentrl forward: listening on 10.0.0.7:5679',
  ].join('\n');
  assert.equal(forwarderReady(log), undefined, 'not ready before it says so');
  assert.deepEqual(forwarderReady(`${log}\nagentrl forward: ready for 10.0.0.7:41435\n`), {
    listening: [
      { host: '127.0.0.1', port: 5679 },
      { host: '10.0.0.7', port: 5679 },
    ],
  });
  assert.throws(() => forwarderReady('agentrl forward: failed: no address to listen on\n'), /could not start: no address/);
});

test('why it ended, from the last word of its log; whether a session went through', () => {
  assert.equal(forwarderEnd('agentrl forward: ready for a:1\n'), undefined);
  assert.deepEqual(forwarderEnd('agentrl forward: session started\nagentrl forward: session ended\n'), { kind: 'session-ended' });
  assert.deepEqual(forwarderEnd('agentrl forward: target refused: 10.0.0.7:1: [Errno 111] Connection refused'), {
    kind: 'refused',
    detail: '10.0.0.7:1: [Errno 111] Connection refused',
  });
  assert.equal(forwarderEnd('agentrl forward: worker gone: pid 4242')?.kind, 'worker-gone');
  assert.equal(forwarderEnd('agentrl forward: nobody attached within 120 s')?.kind, 'nobody-attached');
  assert.equal(forwarderAttached('agentrl forward: session started\n'), true);
  assert.equal(forwarderAttached('agentrl forward: ready for a:1\n'), false);
});

test('the SSH tunnel goes straight to the worker’s debugpy, the address after --', () => {
  assert.equal(sshCommand('10.0.0.7', 41435), 'ssh -N -L 41435:10.0.0.7:41435 -- 10.0.0.7');
});
