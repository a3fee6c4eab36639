// The demo's stand-in trainer (demo/demo_trainer.py, stdlib Python) writes a job dir our relay
// reads like a real Trinity one: event files of both roles with Trinity's metric names, one
// point per step, Step lines, and (with the real fixture model) experiences with rewards, the
// engine's logprobs, and a config copy that names the model whose tokenizer the views use; over
// the sample's taskset, rows whose task_index Debug This Rollout replays.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../harness/paths';
import { cli, startRelay, tmpDir } from '../relay/helpers';
import { modelPathOf, TrainingRunTokenizers } from '../../../src/metrics/tokens/run-tokenizer';
import { modelRuntimeInstalled, startModelServer } from '../../harness/model-server';
import { until } from '../../harness/wait';
import { TOOLS } from '../../harness/tiny-tokenizer';
import { runDemo } from '../../harness/demo-run';
import { configCandidates, configIdentity, jobConfigCopy } from '../../../src/metrics/replay/run-config';
import type { TasksJson } from '../../../src/tasks/task-report';

const skipWithoutModel = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';

const trainer = path.join(repoRoot, 'demo', 'demo_trainer.py');

test('demo trainer: a Trinity job dir the relay streams (no model: simulated rewards and taskset)', { timeout: 60_000 }, async () => {
  const job = path.join(tmpDir('demo-job-'), 'demo-run');
  const r = spawnSync('python3', [trainer, '--job-dir', job, '--steps', '12', '--step-seconds', '0', '--model-url', ''], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /demo: simulated trainer/);
  const lines = fs
    .readFileSync(path.join(job, 'log', 'explorer.log'), 'utf8')
    .trim()
    .split('\n');
  // Its steps done, the run ends as Trinity's explorer does: "> Explorer (…) finished."
  assert.deepEqual(lines.slice(-2), ['> Explorer (explorer) finished.', '--------------------']);
  const explorerLog = lines.filter((l) => / Step \d+: /.test(l));
  assert.equal(explorerLog.length, 13);
  assert.match(explorerLog[12], /^INFO \d\d-\d\d \d\d:\d\d:\d\d \[explorer\.py:\d+\] Step 12: \{'rollout\/accuracy\/mean': /);
  const relay = await startRelay(['--job-dir', job]);
  try {
    const out = cli(['tail', relay.url, '--json', '--until-idle', '1']);
    assert.equal(out.code, 0, out.stderr);
    const pts = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { run: string; role: string; tag: string; step: number; value: number });
    const steps = (role: string, tag: string) => pts.filter((p) => p.role === role && p.tag === tag).map((p) => p.step);
    assert.deepEqual(steps('explorer', 'rollout/accuracy/mean'), [...Array(13).keys()]);
    assert.deepEqual(
      steps('trainer', 'actor/pg_loss'),
      [...Array(12).keys()].map((i) => i + 1),
      'the trainer follows one step behind',
    );
    assert.deepEqual(steps('explorer', 'eval/toolcall-eval/accuracy/mean_4'), [0, 10], 'eval every 10 steps, tag cleaned as TensorBoard does');
    assert.ok(pts.every((p) => p.run === 'demo-run'));
    for (const p of pts.filter((x) => x.tag === 'rollout/accuracy/mean')) assert.ok([0, 0.25, 0.5, 0.75, 1].includes(p.value), `mean of 4 rewards: ${p.value}`);
  } finally {
    await relay.stop();
  }
});

test('demo trainer: its simulated taskset shows every class of the Tasks view and mode collapse, with rollouts to read', { timeout: 120_000 }, () => {
  const job = path.join(tmpDir('demo-tasks-'), 'demo-run');
  const r = spawnSync('python3', [trainer, '--job-dir', job, '--steps', '40', '--step-seconds', '0', '--model-url', ''], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const out = cli(['tasks', '--job-dir', job, '--json']);
  assert.equal(out.code, 0, out.stderr);
  const j = JSON.parse(out.stdout) as TasksJson;
  assert.equal(j.identity, 'task_index');
  assert.deepEqual(j.counts, { learned: 2, never: 2, always: 2, forgotten: 2, flaky: 2 });
  assert.deepEqual(
    j.tasks.map((t) => [t.task, t.class]),
    [
      ['1/0', 'learned'],
      ['1/1', 'learned'],
      ['1/2', 'never'],
      ['1/3', 'never'],
      ['1/4', 'always'],
      ['1/5', 'always'],
      ['1/6', 'forgotten'],
      ['1/7', 'forgotten'],
      ['1/8', 'flaky'],
      ['1/9', 'flaky'],
    ],
  );
  const collapse = j.findings.find((f) => f.kind === 'mode_collapse');
  assert.ok(collapse, `mode collapse among ${j.findings.map((f) => f.kind).join(', ') || 'no findings'}`);
  assert.ok(collapse.examples.length >= 3);
  assert.deepEqual(
    j.findings.map((f) => f.kind),
    ['mode_collapse'],
    'the designed courses show nothing else',
  );
});

test(
  'demo trainer: its time/* tags make a pipeline whose bottleneck moves (explorer, then stragglers after the curriculum change)',
  { timeout: 60_000 },
  () => {
    const job = path.join(tmpDir('demo-pipeline-'), 'demo-run');
    const r = spawnSync('python3', [trainer, '--job-dir', job, '--steps', '40', '--step-seconds', '0', '--model-url', ''], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const out = cli(['pipeline', '--job-dir', job, '--json']);
    assert.equal(out.code, 0, out.stderr);
    const j = JSON.parse(out.stdout) as { bottleneck: string; since: number; changes: unknown[]; missing: string[]; other: string[] };
    assert.deepEqual([j.bottleneck, j.since, j.changes], ['stragglers', 20, [{ step: 20, from: 'explorer', to: 'stragglers' }]]);
    assert.deepEqual(j.missing, []);
    assert.deepEqual(j.other, [], 'every timing the demo logs is one Trinity logs');
  },
);

// Read with the standard library only: each real rollout's response logprobs and action mask
// (TRXP → safetensors), as JSON lines (the simulated taskset's rows, demo-sim-…, have none).
const READ_ROWS = String.raw`
import json, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for (blob,) in db.execute("SELECT experience_bytes FROM experience_buffer WHERE msg_id NOT LIKE 'demo-sim-%' ORDER BY id"):
    meta_len, tensor_len = struct.unpack("<QQ", blob[5:21])
    st = blob[21 + meta_len:]
    (head_len,) = struct.unpack("<Q", st[:8])
    head = json.loads(st[8:8 + head_len])
    data = st[8 + head_len:]
    def tensor(name):
        h = head.get("0:" + name)
        if not h:
            return None
        a, b = h["data_offsets"]
        code = {"F32": "f", "I32": "i", "I64": "q"}[h["dtype"]]
        return list(struct.unpack("<%d%s" % ((b - a) // struct.calcsize(code), code), data[a:b]))
    print(json.dumps({"logprobs": tensor("logprobs"), "mask": tensor("action_mask")}))
`;

test(
  "demo trainer with the fixture model: its config names the model folder, and the rows carry the engine's logprobs",
  { skip: skipWithoutModel, timeout: 180_000 },
  async () => {
    const job = path.join(tmpDir('demo-job-'), 'demo-run');
    const modelDir = path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall');
    const model = await startModelServer();
    // The engine's logprobs are the model's own (raw, as vLLM reports them): the same at the demo's
    // temperature 0.7 as at 0, not those of a distribution cut to its top token (all 0).
    const ask = async (temperature: number) => {
      const r = await fetch(`${model.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ role: 'user', content: 'What is 3 plus 4?' }],
          tools: TOOLS,
          temperature,
          seed: 3,
          logprobs: true,
          return_token_ids: true,
        }),
      });
      const c = ((await r.json()) as { choices: { token_ids: number[]; logprobs: { content: { logprob: number }[] } }[] }).choices[0];
      return { ids: c.token_ids, lps: c.logprobs.content.map((x) => x.logprob) };
    };
    try {
      const greedy = await ask(0);
      const sampled = await ask(0.7);
      assert.ok(
        greedy.lps.some((x) => x < -1e-3),
        `a confident model is still not certain of every token: ${greedy.lps.join(',')}`,
      );
      for (let i = 0; i < Math.min(greedy.ids.length, sampled.ids.length) && greedy.ids[i] === sampled.ids[i]; i++) {
        assert.ok(Math.abs(greedy.lps[i] - sampled.lps[i]) < 1e-3, `token ${i}: ${sampled.lps[i]} at temperature 0.7, ${greedy.lps[i]} at 0`);
      }
    } catch (e) {
      await model.stop();
      throw e;
    }
    const demo = spawn(
      'python3',
      [
        trainer,
        '--job-dir',
        job,
        '--steps',
        '600',
        '--step-seconds',
        '0.2',
        '--model-url',
        model.url,
        '--model-path',
        modelDir,
        '--group-size',
        '2',
        '--tasks-per-batch',
        '1',
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((r) => demo.once('exit', r));
    const db = path.join(job, 'buffer', 'experience_buffer.db');
    const rows = () => {
      const r = spawnSync('python3', ['-c', READ_ROWS, db], { encoding: 'utf8' });
      return r.status === 0
        ? r.stdout
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { logprobs: number[] | null; mask: number[] | null })
        : [];
    };
    let got: ReturnType<typeof rows>;
    try {
      got = await until(
        'a group of rows in the buffer',
        () => {
          const r = rows();
          return r.length >= 2 && r;
        },
        150_000,
        500,
      );
    } finally {
      demo.kill('SIGTERM');
      await exited;
      await model.stop();
    }
    // The run's config copy, as Trinity keeps one: the metrics view finds the tokenizer by it.
    assert.deepEqual(modelPathOf(job), { modelPath: modelDir });
    const tk = new TrainingRunTokenizers().get(job);
    assert.ok('tokenizer' in tk, `the tokenizer is found: ${JSON.stringify(tk)}`);
    // The sampled tokens' logprobs are the engine's: finite, ≤ 0, and not all 0 (a confident
    // model's are near 0, but a run's rows have some below).
    const trained = got.flatMap((r) => (r.logprobs ?? []).filter((_, i) => r.mask?.[i] === 1));
    assert.ok(trained.length > 10, `trained tokens: ${trained.length}`);
    assert.ok(
      trained.every((x) => Number.isFinite(x) && x <= 0),
      'logprobs are log-probabilities',
    );
    const below = trained.filter((x) => x < -1e-4).length;
    assert.ok(below > 0, `some sampled tokens were not certain (${below} of ${trained.length} below -1e-4)`);
  },
);

test(
  "demo trainer over the sample's taskset: each row's info.task_index is the taskset row its conversation asks, and its config copy names the sample's config",
  { skip: skipWithoutModel, timeout: 300_000 },
  async () => {
    const dir = tmpDir('demo-taskset-');
    const workspace = path.join(dir, 'workspace');
    fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
    const job = path.join(workspace, '.agentrl', 'demo', 'demo-run');
    const model = await startModelServer();
    let rows;
    try {
      rows = await runDemo({ jobDir: job, workspace, modelUrl: model.url, enough: (r) => r.length >= 4 });
    } finally {
      await model.stop();
    }
    const taskset = fs
      .readFileSync(path.join(workspace, 'toolcall', 'data', 'train.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; question: string; answer: string });
    for (const r of rows) {
      assert.ok(r.taskIndex !== null && r.taskIndex >= 0 && r.taskIndex < taskset.length, `row ${r.id}: task_index ${r.taskIndex}`);
      const task = taskset[r.taskIndex];
      assert.equal(r.taskId, task.id);
      assert.deepEqual(r.messages[0], { role: 'user', content: task.question });
      // The sample's reward: exactly the expected sentence.
      const last = r.messages.at(-1)!;
      assert.equal(r.reward, last.role === 'assistant' && (last.content ?? '').trim() === task.answer ? 1 : 0);
    }
    const copy = jobConfigCopy(job);
    assert.deepEqual([copy?.project, copy?.name], ['agentrl-sample', 'toolcall']);
    const sample = path.join(workspace, 'toolcall', 'toolcall.yaml');
    assert.deepEqual(configCandidates(job, copy, [configIdentity(sample, fs.readFileSync(sample, 'utf8'))!]), [{ file: sample, why: 'same-run' }]);
  },
);
