// The attach configuration of a paused Ray task: a debugpy attach (connect, justMyCode off so
// Ray's frames lead to the paused one) with the job's working_dir on the node mapped to the
// workspace folder when the task runs from Ray's unpacked package.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { attachConfiguration, DEBUGPY_TYPE, OWN_TYPE, pausedTitle, remoteRootOf } from '../../../../src/ray/paused/attach-config';
import type { PausedTask } from '../../../../src/ray/paused/paused';

const pkg = '/tmp/ray/session_2026/runtime_resources/working_dir_files/_ray_pkg_0a1b2c';
const task: PausedTask = {
  job: 'raysubmit_1',
  name: 'compute',
  node: 'n1',
  ip: '10.0.0.7',
  port: 41473,
  pid: 99,
  worker_id: 'w1',
  file: `${pkg}/agents/math.py`,
  line: 12,
  post_mortem: false,
  since: 0,
};

test('the working_dir Ray unpacked on the node, read from where the task stopped', () => {
  assert.equal(remoteRootOf(task.file), pkg);
  assert.equal(remoteRootOf('/home/me/proj/train.py'), undefined);
  assert.equal(remoteRootOf(null), undefined);
});

test('a debugpy attach for the Python Debugger extension, and the same arguments for our own client', () => {
  const c = attachConfiguration(task, { host: '127.0.0.1', port: 5000 }, { type: DEBUGPY_TYPE, name: 'Ray: compute', localRoot: '/home/me/proj' });
  assert.deepEqual(
    { type: c.type, request: c.request, connect: c.connect, justMyCode: c.justMyCode, pathMappings: c.pathMappings },
    {
      type: 'debugpy',
      request: 'attach',
      connect: { host: '127.0.0.1', port: 5000 },
      justMyCode: false,
      pathMappings: [{ localRoot: '/home/me/proj', remoteRoot: pkg }],
    },
  );
  assert.equal(c.rayTask.worker, 'w1');
  const own = attachConfiguration(
    { ...task, file: '/home/me/proj/train.py' },
    { host: '10.0.0.7', port: 41473 },
    { type: OWN_TYPE, name: 'x', localRoot: '/home/me/proj' },
  );
  assert.equal(own.type, 'agentrl-ray');
  assert.equal(own.pathMappings, undefined, 'a job that ran from the workspace itself needs no mapping');
});

test('the title names the task and where it stopped', () => {
  assert.equal(pausedTitle(task), 'compute · math.py:12');
  assert.equal(pausedTitle({ ...task, file: null, line: null }), 'compute');
});
