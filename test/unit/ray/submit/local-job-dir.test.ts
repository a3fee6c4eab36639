// Shared storage: a job dir whose parent is on this machine is waited for (the trainer creates
// it seconds after submit) instead of starting a relay job at once.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { jobDirPlace, waitForDir } from '../../../../src/ray/submit/local-job-dir';

test('jobDirPlace: here, maybe soon (parent here), elsewhere (relative, or parent missing)', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-jobdir-'));
  try {
    fs.mkdirSync(path.join(tmp, 'proj', 'run1'), { recursive: true });
    assert.equal(jobDirPlace(path.join(tmp, 'proj', 'run1')), 'here');
    assert.equal(jobDirPlace(path.join(tmp, 'proj', 'run2')), 'maybe-soon');
    assert.equal(jobDirPlace(path.join(tmp, 'other', 'run1')), 'elsewhere');
    assert.equal(jobDirPlace('checkpoints/proj/run1'), 'elsewhere', 'relative to the run working_dir on the node');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('waitForDir: true when the dir appears in time, false after the timeout or when cancelled', async () => {
  let t = 0;
  const sleep = (ms: number) => {
    t += ms;
    return Promise.resolve();
  };
  assert.equal(await waitForDir('/d', { exists: () => t >= 3000, sleep, intervalMs: 500, timeoutMs: 60_000 }), true);
  assert.equal(t, 3000, 'found on the poll after it appeared');
  t = 0;
  assert.equal(await waitForDir('/d', { exists: () => false, sleep, intervalMs: 500, timeoutMs: 2000 }), false);
  assert.equal(t, 2000, 'gave up at the timeout');
  t = 0;
  assert.equal(await waitForDir('/d', { exists: () => false, sleep, intervalMs: 500, cancelled: () => t >= 1000 }), false);
  assert.equal(t, 1000, 'stopped when cancelled');
});
