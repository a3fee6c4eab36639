// Run names of discovered sources: event files at a logdir's top level are named after the
// folder (they once made a run called ".").
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { discover } from '../../../../src/relay/sources/discovery';

test('logdir: top-level event files are named after the folder, sub-folders after their path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-disc-'));
  try {
    const logdir = path.join(dir, 'grpo-demo');
    fs.mkdirSync(path.join(logdir, 'seed1'), { recursive: true });
    fs.writeFileSync(path.join(logdir, 'events.out.tfevents.1.host'), '');
    fs.writeFileSync(path.join(logdir, 'seed1', 'events.out.tfevents.2.host'), '');
    const runs = discover({ mode: 'logdir', dir: logdir })
      .specs.map((s) => s.run)
      .sort();
    assert.deepEqual(runs, ['grpo-demo', 'seed1']);
    assert.ok(!runs.includes('.'));
    // An explicit run name wins.
    const named = discover({ mode: 'logdir', dir: logdir, run: 'mine' }).specs.find((s) => s.rel.startsWith('events'));
    assert.equal(named?.run, 'mine');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
