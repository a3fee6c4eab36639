// The demo's stand-in trainer (demo/demo_trainer.py, stdlib Python) writes a job dir our relay
// reads like a real Trinity one: event files of both roles with Trinity's metric names, one
// point per step, Step lines, and (with the real fixture model) experiences with rewards.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../harness/paths';
import { cli, startRelay, tmpDir } from '../relay/helpers';

const trainer = path.join(repoRoot, 'demo', 'demo_trainer.py');

test('demo trainer: a Trinity job dir the relay streams (no model: simulated rewards, empty buffer)', { timeout: 60_000 }, async () => {
  const job = path.join(tmpDir('demo-job-'), 'demo-run');
  const r = spawnSync('python3', [trainer, '--job-dir', job, '--steps', '12', '--step-seconds', '0', '--model-url', ''], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /demo: simulated trainer/);
  const explorerLog = fs.readFileSync(path.join(job, 'log', 'explorer.log'), 'utf8').trim().split('\n');
  assert.equal(explorerLog.length, 13);
  assert.match(explorerLog[12], /^INFO \d\d-\d\d \d\d:\d\d:\d\d \[explorer\.py:\d+\] Step 12: \{'rollout\/accuracy\/mean': /);
  const relay = await startRelay(['--job-dir', job]);
  try {
    const out = cli(['tail', relay.url, '--json', '--until-idle', '1']);
    assert.equal(out.code, 0, out.stderr);
    const pts = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { run: string; role: string; tag: string; step: number; value: number });
    const steps = (role: string, tag: string) => pts.filter((p) => p.role === role && p.tag === tag).map((p) => p.step);
    assert.deepEqual(steps('explorer', 'rollout/accuracy/mean'), [...Array(13).keys()]);
    assert.deepEqual(steps('trainer', 'actor/pg_loss'), [...Array(12).keys()].map((i) => i + 1), 'the trainer follows one step behind');
    assert.deepEqual(steps('explorer', 'eval/toolcall-eval/accuracy/mean_4'), [0, 10], 'eval every 10 steps, tag cleaned as TensorBoard does');
    assert.ok(pts.every((p) => p.run === 'demo-run'));
    for (const p of pts.filter((x) => x.tag === 'rollout/accuracy/mean')) assert.ok([0, 0.25, 0.5, 0.75, 1].includes(p.value), `mean of 4 rewards: ${p.value}`);
  } finally {
    await relay.stop();
  }
});

test('demo trainer: its time/* tags make a pipeline whose bottleneck moves (explorer, then stragglers after the curriculum change)', { timeout: 60_000 }, () => {
  const job = path.join(tmpDir('demo-pipeline-'), 'demo-run');
  const r = spawnSync('python3', [trainer, '--job-dir', job, '--steps', '40', '--step-seconds', '0', '--model-url', ''], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = cli(['pipeline', '--job-dir', job, '--json']);
  assert.equal(out.code, 0, out.stderr);
  const j = JSON.parse(out.stdout) as { bottleneck: string; since: number; changes: unknown[]; missing: string[]; other: string[] };
  assert.deepEqual([j.bottleneck, j.since, j.changes], ['stragglers', 20, [{ step: 20, from: 'explorer', to: 'stragglers' }]]);
  assert.deepEqual(j.missing, []);
  assert.deepEqual(j.other, [], 'every timing the demo logs is one Trinity logs');
});
