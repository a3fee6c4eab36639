// One experience of a training run read from its job directory (src/relay/experience-reader.ts:
// an in-process relay on loopback) reads that row and nothing else: not the event files' points,
// not the buffer's listing — what made Debug This Rollout slower than a launch on a job dir with
// TensorBoard logs. The buffer is written by Trinity-RFT 0.5.2's own SQL storage
// (test/fixtures/debug/trinity_replay_rows.py), the event file by our TFRecord framing.
import { before, after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import * as path from 'node:path';
import { createExperienceReader } from '../../../src/relay/experience-reader';
import { hasShared, repoRoot, sharedDir } from '../../harness/paths';
import { appendSteps } from './appender';
import { tmpDir } from './helpers';

const python = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const skip = !hasShared
  ? 'needs ../shared (Trinity upstream source)'
  : !fs.existsSync(python)
    ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
    : false;

describe('reading one experience of a job directory', { skip }, () => {
  let ws: string;
  let job: string;
  let events: string;
  before(() => {
    ws = tmpDir('experience-reader-');
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    const env = {
      ...process.env,
      PYTHONPATH: pythonpath,
      HF_HUB_OFFLINE: '1',
      TRANSFORMERS_OFFLINE: '1',
      HF_DATASETS_OFFLINE: '1',
      RAY_USAGE_STATS_ENABLED: '0',
    };
    const r = spawnSync(python, [path.join(repoRoot, 'test', 'fixtures', 'debug', 'trinity_replay_rows.py'), ws], { encoding: 'utf8', env, timeout: 300_000 });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    job = path.join(ws, 'job-math');
    const tb = path.join(job, 'monitor', 'tensorboard', 'explorer');
    fs.mkdirSync(tb, { recursive: true });
    events = path.join(tb, 'events.out.tfevents.1700000000.node');
    appendSteps(events, 0, 2000);
  });
  after(() => fs.rmSync(ws, { recursive: true, force: true }));

  test('by id: the row, and no event file opened; the listing of a step range (a re-score) still streams', async (t) => {
    const opened: string[] = [];
    const openSync = fs.openSync.bind(fs);
    t.mock.method(fs, 'openSync', (...args: Parameters<typeof fs.openSync>) => {
      opened.push(String(args[0]));
      return openSync(...args);
    });
    const reader = createExperienceReader();
    const x = await reader.read(job, '1');
    assert.equal(x.id, '1');
    assert.ok(Array.isArray(x.detail.messages), 'the row keeps its messages');
    assert.deepEqual(
      opened.filter((f) => f === events),
      [],
      'reading one row opens no event file',
    );
    // The control: a client that streams (the listing of model versions) does open it.
    await reader.rows(job, [1, 1]);
    assert.ok(opened.includes(events), 'the spy sees the relay open the event file');
  });
});
