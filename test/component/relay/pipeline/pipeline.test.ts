// `agentrl pipeline`, run as users run it (dist/agentrl.js), on job dirs whose timeline follows
// Trinity-RFT's own loops (test/harness/pipeline-run.ts): the JSON a CI reads, the text a terminal
// shows (English and Chinese), a window of steps, a relay's URL instead of a job dir, exit codes.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { cliBundle, startRelay } from '../../../harness/relay';
import { repeat, simulate, writeJob } from '../../../harness/pipeline-run';
import { tmpDir } from '../helpers';

const run = (args: string[]) =>
  spawnSync(process.execPath, [cliBundle, 'pipeline', ...args], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });

/** The same, without blocking the event loop (a relay in this process's tests must answer). */
function runAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cliBundle, 'pipeline', ...args], { env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    p.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

const EXPLORER_BOUND = { runs: [10, 10.5, 9.8, 10.2], train: 3, sync: 0.5 };
const STRAGGLERS = { runs: [2, 2.2, 1.9, 12], train: 3, sync: 0.5 };
const CONFIG =
  'cluster:\n  node_num: 1\n  gpu_per_node: 8\nexplorer:\n  rollout_model:\n    engine_num: 2\n    tensor_parallel_size: 2\n  over_rollout:\n    ratio: 0.0\n';

test('agentrl pipeline --job-dir: the JSON shape, a window of steps, text in English and Chinese, exit codes', { timeout: 120_000 }, () => {
  const job = writeJob(tmpDir('cli-pipeline-'), simulate([...repeat(30, EXPLORER_BOUND), ...repeat(30, STRAGGLERS)]), { config: CONFIG });
  const all = run(['--job-dir', job, '--json']);
  assert.equal(all.status, 0, all.stderr);
  const j = JSON.parse(all.stdout) as Record<string, unknown>;
  assert.deepEqual(j.steps, [1, 60]);
  assert.equal(j.bottleneck, 'stragglers');
  assert.equal(j.since, 31);
  assert.deepEqual(j.changes, [{ step: 31, from: 'explorer', to: 'stragglers' }]);
  assert.deepEqual(j.advice, [
    { key: 'explorer.over_rollout.ratio', now: 0, suggest: 0.25 },
    { key: 'synchronizer.sync_style', now: 'fixed', suggest: 'explorer_driven' },
    { key: 'explorer.dynamic_timeout.enable', now: false, suggest: true },
  ]);
  assert.deepEqual(j.missing, []);
  const shares = j.shares as { trainer: Record<string, number | null>; explorer: Record<string, number | null> };
  assert.deepEqual(Object.keys(shares.trainer), ['wait_experience', 'compute', 'sync_weight', 'checkpoint']);
  assert.deepEqual(Object.keys(shares.explorer), ['generate', 'wait_stragglers', 'wait_sync', 'eval']);
  assert.equal(shares.trainer.checkpoint, null);
  assert.ok(shares.trainer.wait_experience! > 0.6);

  const first = JSON.parse(run(['--job-dir', job, '--json', '--to', '30']).stdout) as Record<string, unknown>;
  assert.deepEqual([first.steps, first.bottleneck], [[1, 30], 'explorer']);
  assert.deepEqual((first.advice as { key: string; now: unknown; suggest: unknown }[])[0], { key: 'explorer.rollout_model.engine_num', now: 2, suggest: 3 });

  const text = run(['--job-dir', job]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^Steps 1–60\nSince step 31 the slowest task of a step takes \d+\.\d× the mean/);
  assert.match(text.stdout, /At step 31 the bottleneck moved from the explorer to stragglers\./);
  assert.match(text.stdout, /Try explorer\.over_rollout\.ratio: 0 → 0\.25/);
  assert.match(text.stdout, /No Ray timeline \(monitor\/timeline\.json\): monitor\.enable_ray_timeline: true makes Trinity write one\./);
  assert.equal(j.timeline, null);
  fs.writeFileSync(path.join(job, 'monitor', 'timeline.json'), '[]');
  assert.deepEqual((JSON.parse(run(['--job-dir', job, '--json']).stdout) as { timeline: unknown }).timeline, { path: 'monitor/timeline.json', bytes: 2 });
  const zh = run(['--job-dir', job, '--lang', 'zh-cn']);
  assert.equal(zh.status, 0, zh.stderr);
  assert.match(zh.stdout, /自第 31 步起，每步最慢的任务耗时为平均的/);
  assert.match(zh.stdout, /在第 31 步，瓶颈从探索器转移到了长尾任务。/);

  assert.equal(run(['--job-dir', job, '--from', '9', '--to', '3']).status, 2);
  assert.equal(run(['--job-dir', job, '--from', 'x']).status, 2);
  assert.equal(run([]).status, 2);
  assert.equal(run(['--job-dir', `${job}/nope`]).status, 1);
});

test('agentrl pipeline --job-dir: a run without trainer timings says which metric is missing and what turns it on', { timeout: 60_000 }, () => {
  const job = writeJob(tmpDir('cli-pipeline-'), simulate(repeat(10, EXPLORER_BOUND)), { roles: ['explorer'], monitor: 'log' });
  const r = run(['--job-dir', job]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Not enough data to name a bottleneck: time\/read_experience, time\/train_step is missing\./);
  assert.match(r.stdout, /Missing time\/read_experience \(trainer\): turn it on with monitor\.monitor_type: tensorboard/);
  assert.match(r.stdout, /No trainer timings in this window/);
  assert.match(r.stdout, /explorer: generating \d+ %/);
});

test('agentrl pipeline <url>: the same report from a running relay', { timeout: 120_000 }, async () => {
  const job = writeJob(path.join(tmpDir('cli-pipeline-'), 'run'), simulate(repeat(20, STRAGGLERS)));
  // A second stage of the job (its own run, its own steps): read only when asked for.
  writeJob(path.join(job, 'stage2'), simulate(repeat(10, { runs: [2, 2.1, 1.9, 2], train: 10, sync: 0.5 })));
  const relay = await startRelay(['--job-dir', job]);
  try {
    const r = await runAsync([relay.url, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual([j.steps, j.bottleneck, j.since], [[1, 20], 'stragglers', 1]);
    assert.deepEqual(j.advice, []);
    assert.match(String(j.config_problem), /relay URL/);
    const local = JSON.parse(run(['--job-dir', job, '--json']).stdout) as Record<string, unknown>;
    assert.deepEqual(j.shares, local.shares, 'through the relay or from the files: the same shares');
    assert.match(r.stderr, /reading run run \(the relay has run, run\/stage2; --run picks another\)/);
    const stage = await runAsync([relay.url, '--json', '--run', 'run/stage2']);
    assert.equal(stage.status, 0, stage.stderr);
    const s2 = JSON.parse(stage.stdout) as Record<string, unknown>;
    assert.deepEqual([s2.steps, s2.bottleneck], [[1, 10], 'trainer']);
  } finally {
    await relay.stop();
  }
});
