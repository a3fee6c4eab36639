// `agentrl eval` end to end against two real, different models: the tiny llama.cpp fixture
// model served twice, once as is ("base") and once as a DELIBERATELY WEAKENED copy whose
// replies are capped at 3 tokens, so it never finishes a tool call or an answer. Run with a
// workspace workflow (sample-workspace/toolcall, its own reward) and with Trinity-RFT 0.5.2's
// own math workflow and reward (../shared/upstream, in .cache/trinity-venv). Each model's run
// is recorded like a debug run and replays with the model servers stopped. Skipped, never
// failed, without llama.cpp, dist/ or (for Trinity) ../shared and the venv.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { gsm8kDownload } from '../../harness/gsm8k-download';
import { hasShared, repoRoot, sharedDir } from '../../harness/paths';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../../harness/model-server';

const cli = path.join(repoRoot, 'dist', 'agentrl.js');
const venvPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const upstreamSrc = path.join(sharedDir, 'upstream', 'trinity-rft-0.5.2');
const skip = !modelRuntimeInstalled ? 'needs llama.cpp (bash scripts/setup.sh model)' : !fs.existsSync(cli) ? 'dist/agentrl.js not built' : false;
const trinitySkip =
  skip ||
  (!hasShared
    ? 'needs ../shared (Trinity corpus and upstream source)'
    : !fs.existsSync(upstreamSrc)
      ? 'needs ../shared/upstream/trinity-rft-0.5.2'
      : !fs.existsSync(venvPython)
        ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
        : false);

interface JsonOut {
  dir: string;
  models: { name: string; runDir: string; status: string; episodes: number; failed: number; llmCalls: number }[];
  comparisons: {
    base: string;
    other: string;
    verdict: { kind: string; text: string };
    gateFailed?: boolean;
    comparison: {
      paired: number;
      meanDiff: number | null;
      tasks: { task: string; diff: number | null }[];
      failures: { a: { episodes: number }; b: { episodes: number } };
    };
  }[];
}

function agentrl(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd, env, timeout: 600_000 });
}

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('agentrl eval against two real models (the fixture model and a deliberately weakened copy)', { skip }, () => {
  let base: ModelServer;
  let weakened: ModelServer;
  let ws: string;
  let first: JsonOut;

  before(async () => {
    [base, weakened] = await Promise.all([startModelServer(), startModelServer({ maxTokens: 3 })]);
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-eval-'));
    fs.cpSync(path.join(repoRoot, 'sample-workspace', 'toolcall'), ws, { recursive: true });
  });
  after(async () => {
    await Promise.all([base?.stop(), weakened?.stop()]);
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  test('a dead endpoint is a clear error (exit 2) before any task runs', async () => {
    const r = agentrl(
      ['eval', '--config', 'toolcall.yaml', '--models', `base=${base.url}`, `new=http://127.0.0.1:${await deadPort()}/v1`, '--tasks', '2', '--repeat', '1'],
      ws,
    );
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /model new: the endpoint http:\/\/127\.0\.0\.1:\d+\/v1 does not answer \(ECONNREFUSED\).*no task was run/);
    assert.equal(fs.existsSync(path.join(ws, '.agentrl')), false, 'nothing ran, nothing was saved');
  });

  test('usage errors exit 2', () => {
    assert.equal(agentrl(['eval', '--config', 'toolcall.yaml', '--models', `base=${base.url}`], ws).status, 2);
    assert.equal(agentrl(['eval', '--config', 'toolcall.yaml', '--models', 'base=nope', `new=${base.url}`], ws).status, 2);
    assert.equal(agentrl(['eval', '--config', 'missing.yaml', '--models', `a=${base.url}`, `b=${base.url}`], ws).status, 2);
  });

  test('the workspace workflow with its reward: the weakened model is worse, the gate exits 1, the run is saved', () => {
    const r = agentrl(
      [
        'eval',
        '--config',
        'toolcall.yaml',
        '--models',
        `base=${base.url}`,
        `weakened=${weakened.url}`,
        '--tasks',
        '3',
        '--repeat',
        '1',
        '--json',
        '--fail-if-worse',
        '0.02',
      ],
      ws,
    );
    assert.equal(r.status, 1, r.stderr);
    first = JSON.parse(r.stdout) as JsonOut;
    const [c] = first.comparisons;
    assert.equal(c.other, 'weakened');
    assert.equal(c.verdict.kind, 'worse', c.verdict.text);
    assert.equal(c.comparison.paired, 3);
    assert.equal(c.comparison.meanDiff, -1, 'the base model answers every task; the weakened copy none');
    assert.equal(c.gateFailed, true);
    assert.match(
      r.stderr,
      /weakened fails the gate against base \(--fail-if-worse 0\.02\): worse beyond 0\.02; weakened is worse than base by 1\.00 ± 0\.00 on 3 tasks × 1/,
    );
    for (const m of first.models) {
      assert.equal(m.episodes, 3);
      assert.ok(m.llmCalls >= 3, `${m.name}: ${m.llmCalls} calls recorded`);
      assert.ok(fs.existsSync(path.join(first.dir, m.runDir, 'recording.jsonl')));
    }
    assert.ok(fs.existsSync(path.join(first.dir, 'eval.json')));
    // The text report of the saved run reopens without a model.
    const open = agentrl(['eval', '--open', first.dir], ws);
    assert.equal(open.status, 0, open.stderr);
    assert.match(open.stdout, /^task +base mean +pass +weakened mean +pass +diff$/m);
    assert.match(open.stdout, /^paris +1\.00 +1\.00 +0\.00 +0\.00 +−1\.00$/m);
  });

  test('without a gate, or with a threshold beyond the difference, the exit is 0', () => {
    const r = agentrl(['eval', '--open', first.dir, '--fail-if-worse', '2'], ws);
    assert.equal(r.status, 0, r.stderr);
  });

  test("each model's recorded run replays exactly with no model", () => {
    for (const m of first.models) {
      const runDir = path.join(first.dir, m.runDir);
      const r = agentrl(['rollout', '--config', 'toolcall.yaml', '--tasks', '3', '--replay', runDir, '--json'], ws);
      assert.equal(r.status, 0, r.stderr);
      const replayDir = (JSON.parse(r.stdout) as { dir: string }).dir;
      assert.ok(
        fs.readFileSync(path.join(replayDir, 'trajectories.jsonl')).equals(fs.readFileSync(path.join(runDir, 'trajectories.jsonl'))),
        `${m.name}: the replay differs`,
      );
    }
  });

  test('a model that fails its calls gets them counted per model, not a crash', async () => {
    // A third endpoint whose context holds fewer tokens than any prompt: every call is a 400.
    const tiny = await startModelServer({ context: 16 });
    try {
      const r = agentrl(
        [
          'eval',
          '--config',
          'toolcall.yaml',
          '--models',
          `base=${weakened.url}`,
          `tiny=${tiny.url}`,
          '--tasks',
          '2',
          '--repeat',
          '1',
          '--json',
          '--fail-if-worse',
          '0.02',
        ],
        ws,
      );
      // A gate fails closed: the failed calls count against the model, and the CLI says so.
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /tiny fails the gate against base \(--fail-if-worse 0\.02\): 2 of its episodes failed \(the baseline's: 0\)/);
      const out = JSON.parse(r.stdout) as JsonOut;
      const tinyRun = out.models.find((m) => m.name === 'tiny')!;
      assert.equal(tinyRun.failed, 2, 'both episodes failed');
      const [c] = out.comparisons;
      assert.equal(c.comparison.failures.b.episodes, 2);
      assert.equal(c.comparison.paired, 0);
      assert.equal(c.verdict.kind, 'insufficient');
    } finally {
      await tiny.stop();
    }
  });

  test('offline: re-scoring the recorded runs with a changed reward function changes the comparison', () => {
    const runs = first.models.map((m) => `${m.name}=${path.join(first.dir, m.runDir)}`);
    const asRecorded = agentrl(['eval', '--runs', ...runs, '--json'], ws);
    assert.equal(asRecorded.status, 0, asRecorded.stderr);
    assert.equal((JSON.parse(asRecorded.stdout) as JsonOut).comparisons[0].comparison.meanDiff, -1);
    // Unchanged reward: the re-score agrees with the recorded scores.
    const same = agentrl(['eval', '--config', 'toolcall.yaml', '--runs', ...runs, '--rescore', '--json'], ws);
    assert.equal(same.status, 0, same.stderr);
    assert.equal((JSON.parse(same.stdout) as JsonOut).comparisons[0].comparison.meanDiff, -1);
    // A reward that pays for an unfinished tool call (what the weakened copy says) turns it round.
    fs.writeFileSync(
      path.join(ws, 'reward.py'),
      'class ExactAnswerReward:\n    def __init__(self, **kwargs):\n        pass\n\n    def __call__(self, response, truth, **kwargs):\n        return {"accuracy": 1.0 if "<tool_call>" in response else 0.0}\n',
    );
    const changed = agentrl(['eval', '--config', 'toolcall.yaml', '--runs', ...runs, '--rescore', '--json', '--fail-if-worse', '0.02'], ws);
    assert.equal(changed.status, 0, changed.stderr);
    const c = (JSON.parse(changed.stdout) as JsonOut).comparisons[0];
    assert.equal(c.comparison.meanDiff, 1);
    assert.equal(c.verdict.kind, 'better', c.verdict.text);
  });
});

describe("agentrl eval with Trinity-RFT 0.5.2's own math workflow and reward", { skip: trinitySkip }, () => {
  test('math_workflow + MathRewardFn on gsm8k rows against the fixture model and its weakened copy', async () => {
    const [base, weakened] = await Promise.all([startModelServer(), startModelServer({ maxTokens: 3 })]);
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-eval-trinity-'));
    try {
      const modelDir = path.join(ws, 'model');
      fs.mkdirSync(modelDir);
      fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall', 'tiny-toolcall.gguf'), path.join(modelDir, 'tiny-toolcall.gguf'));
      const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
      const env = {
        ...process.env,
        PYTHONPATH: pythonpath,
        HF_HUB_OFFLINE: '1',
        TRANSFORMERS_OFFLINE: '1',
        HF_DATASETS_OFFLINE: '1',
        TRINITY_MODEL_PATH: modelDir,
        TRINITY_TASKSET_PATH: gsm8kDownload(path.join(ws, 'gsm8k')),
      };
      const config = path.join(sharedDir, 'corpus', 'trinity-rft', 'examples', 'grpo_gsm8k', 'gsm8k.yaml');
      const r = agentrl(
        [
          'eval',
          '--config',
          config,
          '--models',
          `base=${base.url}`,
          `weakened=${weakened.url}`,
          '--tasks',
          '2',
          '--repeat',
          '1',
          '--python',
          venvPython,
          '--cwd',
          ws,
          '--json',
        ],
        ws,
        env,
      );
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as JsonOut;
      for (const m of out.models) {
        assert.equal(m.episodes, 2, r.stderr);
        assert.equal(m.failed, 0, `${m.name}: Trinity's reward scored every episode\n${r.stderr}`);
        assert.ok(m.llmCalls >= 2);
      }
      const [c] = out.comparisons;
      assert.equal(c.comparison.paired, 2);
      assert.equal(c.comparison.tasks.length, 2);
      assert.ok(['better', 'worse', 'noise'].includes(c.verdict.kind), c.verdict.text);
    } finally {
      await Promise.all([base.stop(), weakened.stop()]);
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
