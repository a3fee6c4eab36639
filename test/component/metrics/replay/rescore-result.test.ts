// Re-score as the drill-down runs it (`agentrl eval --rescore --from-job DIR --steps A-B
// --json`, its output read by parseRescore): the demo run's rows (real rollouts of the fixture
// model over the sample's taskset; the demo trainer is the stand-in for the GPU trainer) scored
// again with a deliberately broken reward — the sample's, inverted. The changed rewards and the
// advantage flips are counted here independently from the rows the demo wrote.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseRescore } from '../../../../src/metrics/replay/rescore-result';
import { demoRows, runDemo, type DemoRow } from '../../../harness/demo-run';
import { modelRuntimeInstalled, startModelServer } from '../../../harness/model-server';
import { repoRoot } from '../../../harness/paths';
import { tmpDir } from '../../relay/helpers';

const skip = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';

test('re-scoring the demo run with an inverted reward: every reward changes, the non-uniform groups flip', { skip, timeout: 900_000 }, async () => {
  const workspace = path.join(tmpDir('rescore-demo-'), 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  const job = path.join(workspace, '.agentrl', 'demo', 'demo-run');
  const model = await startModelServer();
  let rows: DemoRow[];
  try {
    // One task per batch: a group is the rows of one task at one model version.
    rows = await runDemo({
      jobDir: job,
      workspace,
      modelUrl: model.url,
      args: ['--tasks-per-batch', '1', '--group-size', '4'],
      enough: (r) => r.length >= 8,
      timeoutMs: 420_000,
    });
  } finally {
    await model.stop();
  }
  rows = demoRows(job); // with those written while it stopped
  const versions = [...new Set(rows.map((r) => r.modelVersion))].sort((a, b) => a - b);
  const [a, b] = [versions[0], versions[versions.length - 1]];
  const inRange = rows.filter((r) => r.modelVersion >= a && r.modelVersion <= b);
  // The broken reward: the sample's exact-answer check, inverted.
  const rewardFile = path.join(workspace, 'toolcall', 'reward.py');
  const code = fs.readFileSync(rewardFile, 'utf8');
  assert.match(code, /1\.0 if response\.strip\(\) == str\(truth\)\.strip\(\) else 0\.0/);
  fs.writeFileSync(
    rewardFile,
    code.replace('1.0 if response.strip() == str(truth)', '0.0 if response.strip() == str(truth)').replace('else 0.0}', 'else 1.0}'),
  );
  const groups = new Map<string, DemoRow[]>();
  for (const r of inRange) groups.set(`${r.modelVersion}:${r.taskIndex}`, [...(groups.get(`${r.modelVersion}:${r.taskIndex}`) ?? []), r]);
  // GRPO (Trinity's): a group whose members differ gives each a nonzero advantage, which the
  // inverted reward turns over; a uniform group gives 0 before and after; a group of one gives
  // its reward itself (r / (1 + 1e-6)), so it goes from 0 to + or from + to 0: a flip too.
  const flips = [...groups.values()].filter((g) => g.length === 1 || new Set(g.map((r) => r.reward)).size > 1).reduce((n, g) => n + g.length, 0);

  // As the drill-down runs it (src/metrics/replay-flows.ts): from the config's folder, the user's environment.
  const run = spawnSync(
    process.execPath,
    [
      path.join(repoRoot, 'dist', 'agentrl.js'),
      'eval',
      '--config',
      path.join(workspace, 'toolcall', 'toolcall.yaml'),
      '--rescore',
      '--from-job',
      job,
      '--steps',
      `${a}-${b}`,
      '--json',
    ],
    { cwd: path.join(workspace, 'toolcall'), encoding: 'utf8', timeout: 300_000 },
  );
  const out = { code: run.status, stdout: run.stdout, stderr: run.stderr };
  assert.equal(out.code, 1, `some rewards changed: exit 1\n${out.stderr}`);
  const r = parseRescore(out.stdout);
  assert.ok(!('reason' in r), 'reason' in r ? r.reason : '');
  assert.deepEqual(r.steps, [a, b]);
  assert.deepEqual(
    r.rows.map((x) => x.id).sort((x, y) => x - y),
    inRange.map((x) => x.id),
  );
  for (const row of r.rows) {
    const demo = inRange.find((x) => x.id === row.id)!;
    assert.equal(row.recorded, demo.reward, `row ${row.id}: recorded`);
    assert.equal(row.now, 1 - demo.reward, `row ${row.id}: now`);
    assert.equal(row.task_index, demo.taskIndex);
  }
  assert.equal(r.changed, inRange.length);
  assert.equal(r.flips, flips);
});
