import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { RunWriter } from '../../../../src/debug/runtime/run-writer';
import { RUNS_DIR } from '../../../../src/debug/trajectory/trajectory';

test('runs started in the same millisecond each get a folder of their own, never one another\'s', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: new Date(2026, 10, 27, 16, 20, 5, 7).getTime() });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-run-writer-'));
  try {
    // a folder another run (another process) took at this very millisecond
    fs.mkdirSync(path.join(root, RUNS_DIR, '20261127-162005-007'), { recursive: true });
    fs.writeFileSync(path.join(root, RUNS_DIR, '20261127-162005-007', 'launch.json'), '{"other":true}\n');
    const a = new RunWriter(root, { run: 'a' });
    const b = new RunWriter(root, { run: 'b' });
    assert.deepEqual([a.id, b.id], ['20261127-162005-007-2', '20261127-162005-007-3']);
    assert.equal(fs.readFileSync(path.join(root, RUNS_DIR, '20261127-162005-007', 'launch.json'), 'utf8'), '{"other":true}\n', 'the other run\'s folder is left alone');
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(a.dir, 'launch.json'), 'utf8')), { run: 'a' });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(b.dir, 'launch.json'), 'utf8')), { run: 'b' });
    a.close();
    b.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
