// Against a REAL Ray 2.58 cluster (loopback-only network namespace; only Ray's telemetry packages
// are stood in for, ../shared/fixtures/ray): a job whose task calls breakpoint() and whose actor
// raises with RAY_DEBUG_POST_MORTEM=1 — `agentrl ray paused` lists both, with the job, the
// address a debugger attaches to and, for the breakpoint, the user's file:line.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RayClient } from '../../../../src/ray/api/client';
import { repoRoot } from '../../../harness/paths';
import { rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip =
  raySkipReason() ??
  (!fs.existsSync(path.join(rayVenv, 'lib')) || spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
    ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
    : undefined);
const cli = path.join(repoRoot, 'dist', 'agentrl.js');
const jobFile = path.join(repoRoot, 'test', 'fixtures', 'ray', 'paused_job.py');
const pauseLine =
  fs
    .readFileSync(jobFile, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('PAUSE-HERE')) + 1;

interface Paused {
  job: string | null;
  name: string;
  ip: string;
  port: number;
  pid: number | null;
  file: string | null;
  line: number | null;
  post_mortem: boolean | null;
}

let cluster: RayCluster | undefined;
before(async () => {
  if (!skip) cluster = await startRayCluster({ worker: false, profiling: true });
});
after(async () => {
  await cluster?.stop();
});

test(
  'a breakpoint() in a task and a post-mortem in an actor: both listed with their job, where to attach and where the task stopped',
  { skip, timeout: 420_000 },
  async () => {
    const ray = new RayClient({ url: cluster!.url, timeoutMs: 30_000 });
    const sub = await ray.submit({
      entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${jobFile}`,
      runtime_env: { env_vars: { RAY_DEBUG: '1', RAY_DEBUG_POST_MORTEM: '1' } },
    });
    const list = () => {
      const r = spawnSync(process.execPath, [cli, 'ray', 'paused', '--dashboard', cluster!.url, '--job', sub.submission_id, '--json'], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as Paused[];
    };
    const paused = await until(
      'both pause',
      () => {
        const l = list();
        return l.length === 2 && l.every((p) => p.post_mortem !== null) ? l : undefined;
      },
      240_000,
      2000,
    );
    const task = paused.find((p) => p.name === 'compute');
    const actor = paused.find((p) => p.name.includes('score'));
    assert.ok(task && actor, `names: ${paused.map((p) => p.name).join(', ')}`);
    assert.equal(task.job, sub.submission_id);
    assert.equal(task.ip, '127.0.0.1');
    assert.ok(task.port > 0 && task.pid !== null);
    assert.deepEqual(
      [task.file?.endsWith('paused_job.py'), task.line, task.post_mortem],
      [true, pauseLine, false],
      `where the task stopped: ${task.file}:${task.line}`,
    );
    assert.equal(actor.post_mortem, true);
    assert.notEqual(actor.port, task.port);

    // The job stays paused (nobody attaches here: attaching through DAP is the next step); the
    // cluster's teardown ends it.
    assert.equal((await ray.job(sub.submission_id)).status, 'RUNNING');
  },
);
