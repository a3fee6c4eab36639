// A Ray that cannot list paused workers: older than 2.9 by its version, or rows without the field.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { pausedSupport } from '../../../../src/ray/paused/support';

test('Ray 2.58 with the field (null on a worker that never paused) lists paused workers', () => {
  assert.deepEqual(pausedSupport('2.58.0', [{ worker_id: 'a', num_paused_threads: null }]), { ok: true });
  assert.deepEqual(pausedSupport('2.9.0', []), { ok: true });
  assert.deepEqual(pausedSupport('3.0.0rc1', []), { ok: true });
});

test('Ray 2.8, or worker rows without num_paused_threads: not supported, and since which Ray', () => {
  assert.deepEqual(pausedSupport('2.8.1', []), { ok: false, rayVersion: '2.8.1', since: '2.9.0' });
  assert.deepEqual(pausedSupport('2.40.0', [{ worker_id: 'a' }, { worker_id: 'b' }]), { ok: false, rayVersion: '2.40.0', since: '2.9.0' });
});
