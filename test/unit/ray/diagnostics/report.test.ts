// The diagnostics report from real Ray 2.58 captures (test/fixtures/ray/stacks, the deadlocked
// test/fixtures/ray/deadlock_job.py): versions, resources, actors with death causes, both waiting
// frames and the deadlock, log lines, the config — and no secret left anywhere in it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { RayActor, RayJob, RayTask } from '../../../../src/ray/api/api-types';
import { trinityVersion } from '../../../../src/ray/diagnostics/collect';
import { deathCause, renderDiagnostics, renderStacks, stackFixHint } from '../../../../src/ray/diagnostics/report';
import { stacksReport } from '../../../../src/ray/diagnostics/stacks';
import { repoRoot } from '../../../harness/paths';

const dir = path.join(repoRoot, 'test', 'fixtures', 'ray', 'stacks');
const capture = (name: string) => {
  const text = fs.readFileSync(path.join(dir, `traceback-${name}.txt`), 'utf8');
  const m = text.match(/\nHTTP (\d+)\n?$/)!;
  return { status: Number(m[1]), body: text.slice(0, m.index) };
};
const rows = <T>(file: string): T[] => (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { data: { result: { result: T[] } } }).data.result.result;
const actors = rows<RayActor>('actors.json').filter((a) => a.ray_namespace === 'agentrl-sample/ray-deadlock');
const tasks = rows<RayTask>('tasks.json');
const actor = (n: string) => actors.find((a) => a.name === n)!;
const KEY = 'sk-proj-0123456789abcdefghij';

const job: RayJob = {
  job_id: '02000000',
  submission_id: 'raysubmit_deadlock',
  status: 'RUNNING',
  entrypoint: 'python deadlock_job.py --namespace agentrl-sample/ray-deadlock',
  driver_node_id: 'a'.repeat(56),
  start_time: 1795771505665,
};
const stacks = stacksReport(
  [
    { actor: actor('explorer'), ...capture('explorer') },
    { actor: actor('synchronizer'), ...capture('synchronizer') },
  ],
  tasks,
);
const dead: RayActor = {
  actor_id: 'f'.repeat(32),
  name: 'explorer_rollout_model_0',
  class_name: 'vLLMRolloutModel',
  state: 'DEAD',
  death_cause: { actor_died_error_context: { error_message: 'The actor died because its node died.', reason: 'NODE_DIED' } },
};

test('the report holds versions, resources, actors, both waiting frames, the deadlock, logs and the masked config', () => {
  const md = renderDiagnostics({
    takenAt: '2026-11-27T09:30:00.000Z',
    job,
    rayVersion: '2.58.0',
    trinityVersion: '0.5.2',
    clusterStatus: ' 0.0/2.0 CPU\n 0.1/1.0 gpu_node',
    nodes: [
      { node_id: 'a'.repeat(56), node_ip: '127.0.0.1', is_head_node: true, state: 'ALIVE', resources_total: { CPU: 1, head_node: 1, 'node:127.0.0.1': 1 } },
    ],
    actors: [...actors, dead],
    stacks,
    logs: [{ title: 'driver (job log)', lines: ['Step 0: explorer and synchronizer started', `using ${KEY}`] }],
    config: { path: 'ray-demo/ray-deadlock.yaml', text: `project: agentrl-sample\nname: ray-deadlock\nmodel:\n  api_key: ${KEY}\n` },
    stall: { stalledForMs: 7000, thresholdMs: 6000, actorsNotAlive: [], deadNodes: [], explorerWaitsOnSynchronizer: false, lastLogLines: [] },
  });
  assert.ok(!md.includes(KEY), 'the key is masked everywhere, the log line included');
  assert.match(md, /api_key: "\*\*\*"/);
  assert.match(md, /- Ray: 2\.58\.0/);
  assert.match(md, /- Trinity-RFT: 0\.5\.2/);
  assert.match(md, /- Python \(workers\): v3\./);
  assert.match(md, /No metrics, log lines or rollouts for 0\.1 min/);
  assert.match(md, /0\.1\/1\.0 gpu_node/);
  assert.match(md, /\| explorer_rollout_model_0 \| vLLMRolloutModel \| DEAD \| {2}\| {2}\| The actor died because its node died\.; NODE_DIED \|/);
  assert.match(md, /waits in `ray\.get` at `explore_step \(deadlock_job\.py:32\)`/);
  assert.match(md, /waits in `ray\.get` at `wait_for_explorer_state \(deadlock_job\.py:22\)`/);
  assert.match(
    md,
    /\*\*Deadlock:\*\* (explorer \(Explorer\) → synchronizer \(Synchronizer\) → explorer|synchronizer \(Synchronizer\) → explorer \(Explorer\) → synchronizer)/,
  );
  assert.match(md, /explorer \(Explorer\) waits on synchronizer \(Synchronizer\) in `Synchronizer\.wait_for_explorer_state`/);
  assert.match(md, /### driver \(job log\)\n\n```text\nStep 0: explorer and synchronizer started/);
});

test('a refused stack says why and how to fix it', () => {
  const s = stacksReport(
    [
      { actor: actor('explorer'), ...capture('profiling-disabled') },
      { actor: actor('synchronizer'), ...capture('py-spy-missing') },
    ],
    [],
  );
  const md = renderStacks(s, actors);
  assert.match(md, /RAY_DASHBOARD_ENABLE_PROFILING=1 ray start --head/);
  assert.match(md, /pip install py-spy/);
  assert.match(stackFixHint({ kind: 'not-permitted', detail: '' }), /CAP_SYS_PTRACE.*--cap-add SYS_PTRACE|--cap-add SYS_PTRACE/);
});

test('death causes and the Trinity version are read where Ray and the run put them', () => {
  assert.equal(deathCause(null), '');
  assert.equal(deathCause(dead.death_cause), 'The actor died because its node died.; NODE_DIED');
  assert.equal(trinityVersion({ ...job, runtime_env: { pip: ['numpy', 'trinity-rft==0.5.2'] } }, ''), '0.5.2');
  assert.equal(trinityVersion(job, 'INFO Trinity-RFT v0.6.0 starting'), '0.6.0');
  assert.equal(trinityVersion(job, 'nothing here'), undefined);
});
