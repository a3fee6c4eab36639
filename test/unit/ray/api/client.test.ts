// The Ray client's pure parsing: the dashboard URL a user types and `ray status` output. Its
// requests against a fake dashboard over real HTTP are in test/component/ray/api/client.test.ts.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeDashboardUrl, parseClusterStatus } from '../../../../src/ray/api/client';

test('normalizeDashboardUrl and parseClusterStatus', () => {
  assert.equal(normalizeDashboardUrl(' 127.0.0.1:8265/ '), 'http://127.0.0.1:8265');
  assert.throws(() => normalizeDashboardUrl('ftp://x'));
  const u = parseClusterStatus('Usage:\n 1.0/2.0 CPU\n 0.0/1.0 gpu_node\n 0B/15.82GiB memory\n');
  assert.deepEqual(u.CPU, [1, 2]);
  assert.deepEqual(u.gpu_node, [0, 1]);
  assert.equal(Math.round(u.memory[1] / 2 ** 30), 16);
});
