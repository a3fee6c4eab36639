// Trinity-RFT's own built-in workflows and reward functions, unmodified, under `agentrl
// rollout`: Trinity 0.5.2's source from ../shared/upstream runs in .cache/trinity-venv
// (scripts/setup.sh trinity), Trinity's own example configs from ../shared/corpus with only
// their data paths pointed at local rows (env vars and a folder the config names), against
// the real tiny fixture model on llama.cpp. Then each run replays byte-identically with the
// model server stopped. Skipped, never failed, without ../shared, the venv or llama.cpp.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gsm8kDownload } from '../../harness/gsm8k-download';
import { hasShared, repoRoot, sharedDir } from '../../harness/paths';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../../harness/model-server';
import { startWarmPython, TRINITY_RUN_MODULES, type WarmPython } from '../../harness/warm-python';

const cli = path.join(repoRoot, 'dist', 'agentrl.js');
const trinityVenvPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
/** The runs' interpreter: Trinity imported once (test/harness/warm-python.ts), not per run. */
let venvPython = trinityVenvPython;
let warm: WarmPython | undefined;
const examples = path.join(sharedDir, 'corpus', 'trinity-rft', 'examples');
const datasets = path.join(sharedDir, 'corpus', 'datasets');
const upstreamSrc = path.join(sharedDir, 'upstream', 'trinity-rft-0.5.2');
const skip = !hasShared
  ? 'needs ../shared (Trinity corpus and upstream source)'
  : !fs.existsSync(upstreamSrc)
    ? 'needs ../shared/upstream/trinity-rft-0.5.2'
    : !fs.existsSync(venvPython)
      ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
      : !modelRuntimeInstalled
        ? 'needs llama.cpp (bash scripts/setup.sh model)'
        : !fs.existsSync(cli)
          ? 'dist/agentrl.js not built'
          : false;

interface Summary {
  dir: string;
  episodes: number;
  errors: number;
  llmCalls: number;
  rewardByTask: Record<string, number | null>;
}

describe('Trinity-RFT 0.5.2 built-in workflows under agentrl rollout', { skip }, () => {
  let model: ModelServer;
  let ws: string;
  /** gsm8k as a download of openai/gsm8k (its `main` configuration, which the example configs name). */
  let gsm8kDir: string;
  let env: NodeJS.ProcessEnv;
  const runs: { name: string; args: string[]; summary: Summary; env: NodeJS.ProcessEnv }[] = [];

  before(async () => {
    model = await startModelServer();
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-upstream-'));
    gsm8kDir = gsm8kDownload(path.join(ws, 'gsm8k'));
    // The model's tokenizer for Trinity's token arithmetic: model_path -> a folder with the GGUF.
    const modelDir = path.join(ws, 'model');
    fs.mkdirSync(modelDir);
    fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall', 'tiny-toolcall.gguf'), path.join(modelDir, 'tiny-toolcall.gguf'));
    // Data: the countdown example names a folder relative to the working directory.
    fs.mkdirSync(path.join(ws, 'countdown_dataset'));
    fs.symlinkSync(path.join(datasets, 'countdown'), path.join(ws, 'countdown_dataset', 'oneshot-split'));
    // Rows in the ToolACE layout the tool-call workflow reads (our rows, the fixture model's tool).
    const toolDir = path.join(ws, 'examples', 'grpo_toolcall', 'toolace_data');
    fs.mkdirSync(toolDir, { recursive: true });
    const tools = JSON.stringify([
      {
        name: 'get_weather',
        description: 'Get the current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ]);
    fs.writeFileSync(
      path.join(toolDir, 'train.jsonl'),
      ['Paris', 'Tokyo']
        .map((c) =>
          JSON.stringify({
            tools,
            raw_system: 'You are a helpful assistant.',
            conversations: [{ from: 'human', value: `What is the weather in ${c}?` }],
            answer: JSON.stringify([{ name: 'get_weather', arguments: { city: c } }]),
          }),
        )
        .join('\n') + '\n',
    );
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    env = { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', TRINITY_MODEL_PATH: modelDir };
    warm = await startWarmPython({ python: trinityVenvPython, env, preload: TRINITY_RUN_MODULES });
    venvPython = warm.python;
  });
  after(async () => {
    await Promise.allSettled(started.values()); // a case started ahead whose test was filtered out (--grep)
    await model?.stop();
    await stopLong();
    if (warm) console.log(`warm Python: ${warm.summary()}`);
    await warm?.stop();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  function rollout(args: string[], runEnv: NodeJS.ProcessEnv, timeout = 180_000) {
    return spawnSync(process.execPath, [cli, 'rollout', '--tasks', '2', '--python', venvPython, '--cwd', ws, '--json', ...args], {
      encoding: 'utf8',
      env: runEnv,
      cwd: ws,
      timeout,
    });
  }

  interface Rollout {
    status: number | null;
    stdout: string;
    stderr: string;
  }
  /** `rollout` without blocking: two run at once (below), each run's Python spends seconds
   *  importing Trinity (torch, transformers) on one core while the model server answers the
   *  other's calls. Each run has its own folder under .agentrl/runs and its own output. */
  function rolloutAsync(args: string[], runEnv: NodeJS.ProcessEnv, timeout = 180_000): Promise<Rollout> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [cli, 'rollout', '--tasks', '2', '--python', venvPython, '--cwd', ws, '--json', ...args], {
        env: runEnv,
        cwd: ws,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout,
        killSignal: 'SIGKILL',
      });
      let stdout = '';
      let stderr = '';
      p.stdout.setEncoding('utf8').on('data', (b: string) => (stdout += b));
      p.stderr.setEncoding('utf8').on('data', (b: string) => (stderr += b));
      p.on('error', (e) => (stderr += String(e)));
      p.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }

  // Ten turns of about 300 tokens each outgrow the fixture's 2048-token context: a second
  // fixture server with a longer context and a 16-token cap per reply, for the two frozen-lake
  // tests (started by the first that runs, stopped before the replays and at the end).
  let long: Promise<ModelServer> | undefined;
  const longServer = () => (long ??= startModelServer({ context: 6144, maxTokens: 16 }));
  async function stopLong(): Promise<void> {
    const l = long;
    long = undefined;
    if (l) await (await l).stop();
  }

  const cases: { name: string; config: string; data?: string; args?: string[]; minCalls: number }[] = [
    { name: 'math_workflow (sync), MathRewardFn', config: 'grpo_gsm8k/gsm8k.yaml', data: 'gsm8k', minCalls: 2 },
    { name: 'async_math_workflow', config: 'grpo_gsm8k/gsm8k.yaml', data: 'gsm8k', args: ['--workflow', 'async_math_workflow'], minCalls: 2 },
    {
      name: 'math_boxed_workflow (indexes response token ids)',
      config: 'grpo_gsm8k/gsm8k.yaml',
      data: 'gsm8k',
      args: ['--workflow', 'math_boxed_workflow'],
      minCalls: 2,
    },
    { name: 'countdown: math_workflow + countdown_reward', config: 'ppo_countdown/countdown.yaml', minCalls: 2 },
    {
      name: 'tool_call_workflow (the example names it toolcall_workflow: see the names test)',
      config: 'grpo_toolcall/toolace.yaml',
      args: ['--workflow', 'tool_call_workflow'],
      minCalls: 2,
    },
    { name: 'math_ruler_workflow: an LLM judge through explorer.auxiliary_models', config: 'grpo_gsm8k_ruler/gsm8k_ruler.yaml', data: 'gsm8k', minCalls: 4 },
  ];

  const caseArgs = (c: (typeof cases)[number]) => ({
    runEnv: { ...env, ...(c.data ? { TRINITY_TASKSET_PATH: c.data === 'gsm8k' ? gsm8kDir : path.join(datasets, c.data) } : {}) },
    args: ['--config', path.join(examples, c.config), '--model-base-url', model.url, ...(c.args ?? [])],
  });
  /** Each case's run, started by its own test or by the test before it (one ahead). */
  const started = new Map<number, Promise<Rollout>>();
  function start(i: number): Promise<Rollout> | undefined {
    if (i >= cases.length) return undefined;
    if (!started.has(i)) {
      const { args, runEnv } = caseArgs(cases[i]);
      started.set(i, rolloutAsync(args, runEnv));
    }
    return started.get(i);
  }

  /** Checks one case's run against the model server and keeps its recording for the replay test. */
  function record(c: (typeof cases)[number], r: Rollout = rollout(caseArgs(c).args, caseArgs(c).runEnv)): void {
    const { args, runEnv } = caseArgs(c);
    assert.equal(r.status, 0, `${r.stderr}\n${r.stdout}`);
    const summary = JSON.parse(r.stdout) as Summary;
    assert.equal(summary.episodes, 2, r.stderr);
    assert.equal(summary.errors, 0, r.stderr);
    assert.ok(summary.llmCalls >= c.minCalls, `${summary.llmCalls} LLM calls, expected at least ${c.minCalls}`);
    for (const [task, reward] of Object.entries(summary.rewardByTask)) assert.equal(typeof reward, 'number', `task ${task} has no reward:\n${r.stderr}`);
    runs.push({ name: c.name, args, summary, env: runEnv });
  }

  for (const [i, c] of cases.entries()) {
    test(c.name, async () => {
      const own = start(i)!;
      void start(i + 1); // the next case runs while this one finishes
      record(c, await own);
    });
  }

  test('an upstream workflow file copied unchanged runs by dotted path', () => {
    const dir = path.join(ws, 'copied');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(upstreamSrc, 'trinity', 'common', 'workflows', 'customized_math_workflows.py'), path.join(dir, 'boxed_copy.py'));
    const runEnv = { ...env, TRINITY_TASKSET_PATH: gsm8kDir };
    const args = [
      '--config',
      path.join(examples, 'grpo_gsm8k', 'gsm8k.yaml'),
      '--model-base-url',
      model.url,
      '--workflow',
      'copied.boxed_copy.MathBoxedWorkflow',
    ];
    const r = rollout(args, runEnv);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as Summary;
    assert.equal(summary.errors, 0, r.stderr);
    assert.match(r.stderr, /workflow copied\.boxed_copy\.MathBoxedWorkflow/);
    runs.push({ name: 'copied file', args, summary, env: runEnv });
  });

  test("a stale registry name gets Trinity's verdict and a did-you-mean, not 'trinity is not importable'", () => {
    const r = rollout(['--config', path.join(examples, 'grpo_toolcall', 'toolace.yaml'), '--model-base-url', model.url], env);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /workflow 'toolcall_workflow' is not in Trinity's workflows registry \(ValueError: Invalid module key: toolcall_workflow\); did you mean 'tool_call_workflow'\?/,
    );
    assert.doesNotMatch(r.stderr, /not importable/);
  });

  test("frozen_lake_workflow: a multi-turn environment, token lengths from the model's own tokenizer", async () => {
    // The long-context server (longServer): the tiny stand-in model never writes a valid move,
    // so every episode plays all ten turns; the env scores them.
    const long = await longServer();
    const dataDir = path.join(ws, 'frozen');
    fs.mkdirSync(dataDir);
    const rows = '{"size": 3, "p": 0.8, "seed": 11}\n{"size": 3, "p": 0.8, "seed": 22}\n';
    for (const split of ['train', 'test']) fs.writeFileSync(path.join(dataDir, `${split}.jsonl`), rows);
    const runEnv = { ...env, TRINITY_TASKSET_PATH: dataDir };
    const args = ['--config', path.join(examples, 'grpo_frozen_lake', 'frozen_lake.yaml'), '--model-base-url', long.url];
    const r = rollout(args, runEnv, 400_000);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as Summary;
    assert.equal(summary.episodes, 2, r.stderr);
    assert.equal(summary.errors, 0, r.stderr);
    assert.ok(summary.llmCalls >= 4, `multi-turn: ${summary.llmCalls} LLM calls`);
    for (const [task, reward] of Object.entries(summary.rewardByTask)) assert.equal(typeof reward, 'number', `task ${task}:\n${r.stderr}`);
    runs.push({ name: 'frozen lake', args, summary, env: runEnv });
  });

  test("frozen_lake_workflow with model_path a hub id not on this machine: token lengths from the endpoint's /tokenize", async () => {
    // No TRINITY_MODEL_PATH: the config's own default (a Qwen id), not in an (empty) HF cache.
    // Before, the run stopped with "could not load the tokenizer of 'Qwen/…'".
    const long = await longServer();
    const dataDir = path.join(ws, 'frozen-hosted');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'train.jsonl'), '{"size": 3, "p": 0.8, "seed": 11}\n');
    const runEnv: NodeJS.ProcessEnv = { ...env, TRINITY_TASKSET_PATH: dataDir, HF_HUB_CACHE: path.join(ws, 'empty-hf-cache') };
    delete runEnv.TRINITY_MODEL_PATH;
    const r = rollout(
      ['--config', path.join(examples, 'grpo_frozen_lake', 'frozen_lake.yaml'), '--model-base-url', long.url, '--tasks', '1', '--timeout', '300'],
      runEnv,
      400_000,
    );
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as Summary;
    assert.equal(summary.episodes, 1, r.stderr);
    assert.equal(summary.errors, 0, r.stderr);
    assert.ok(summary.llmCalls >= 2, `multi-turn: ${summary.llmCalls} LLM calls`);
    assert.doesNotMatch(r.stderr, /could not load the tokenizer/);
  });

  test('every run replays byte-identically with the model server stopped', async () => {
    // Run alone (--grep), nothing was recorded yet: record the first case here.
    if (!runs.length) record(cases[0]);
    await model.stop();
    await stopLong();
    // two replays at a time (each is a Python process importing Trinity, then reading a recording)
    const replays: Rollout[] = new Array<Rollout>(runs.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < runs.length; i = next++) {
        const run = runs[i];
        const args = run.args.filter((a, j, all) => a !== '--model-base-url' && all[j - 1] !== '--model-base-url');
        replays[i] = await rolloutAsync([...args, '--replay', run.summary.dir], run.env);
      }
    };
    await Promise.all([worker(), worker()]);
    runs.forEach((run, i) => {
      const r = replays[i];
      assert.equal(r.status, 0, `${run.name}: ${r.stderr}`);
      const again = JSON.parse(r.stdout) as Summary;
      assert.notEqual(again.dir, run.summary.dir);
      const a = fs.readFileSync(path.join(run.summary.dir, 'trajectories.jsonl'));
      const b = fs.readFileSync(path.join(again.dir, 'trajectories.jsonl'));
      assert.ok(a.equals(b), `${run.name}: the replay's trajectories differ from the recorded run's`);
    });
  });
});
