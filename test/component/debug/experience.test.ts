// Replaying a training run's experiences (src/debug/experience/, `agentrl rollout --from-job`,
// `agentrl eval --rescore --from-job`) on rows made by Trinity-RFT 0.5.2's own code: its
// WorkflowRunner runs its math_workflow (MathRewardFn) and frozen_lake_workflow over a taskset
// file and its SQL storage / FileStorage / QueueStorage (the queue buffer's backup lines) store
// the experiences (the frozen-lake row as Trinity
// 0.5.2's multi-turn workflows store it: tokens and action mask from its own
// tokenize_and_mask_messages_default with the fixture model's tokenizer, no messages)
// (test/fixtures/debug/trinity_replay_rows.py; the one stand-in there is the vLLM model behind
// Trinity's ModelWrapper). The replays run Trinity's workflows again in .cache/trinity-venv,
// every LLM call answered from the row. Skipped, never failed, without ../shared or the venv.
import { before, after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../../harness/paths';
import { noReplayRows, trinityEnv, trinityVenvPython, writeReplayRows, type ReplayRow } from '../../harness/trinity-replay-rows';
import { modelRuntimeInstalled, startModelServer } from '../../harness/model-server';
import { startRelay } from '../../harness/relay';
import { startWarmPython, TRINITY_RUN_MODULES, type WarmPython } from '../../harness/warm-python';

const cli = path.join(repoRoot, 'dist', 'agentrl.js');
/** The runs' interpreter: Trinity imported once (test/harness/warm-python.ts), not per run. */
let python = trinityVenvPython;
const skip = noReplayRows || (!fs.existsSync(cli) && 'dist/agentrl.js not built');

const SYSTEM = 'Think, then answer inside <answer> </answer>.';
const config = (extra: { reward?: string; system?: string; path?: string } = {}) => `project: replay
name: math
model:
  model_path: stand-in
  max_model_len: 4096
algorithm:
  algorithm_type: grpo
  repeat_times: 2
buffer:
  total_epochs: 1
  batch_size: 2
  explorer_input:
    taskset:
      name: math
      storage_type: file
      path: ${extra.path ?? 'math.jsonl'}
      split: train
      format:
        prompt_key: question
        response_key: answer
        system_prompt: ${JSON.stringify(extra.system ?? SYSTEM)}
      rollout_args:
        temperature: 1.0
    default_workflow_type: math_workflow
    default_reward_fn_type: ${JSON.stringify(extra.reward ?? 'math_reward')}
`;

const lakeConfig = (modelPath: string) => `project: replay
name: lake
model:
  model_path: ${JSON.stringify(modelPath)}
  max_model_len: 8192
algorithm:
  algorithm_type: grpo
  repeat_times: 1
buffer:
  total_epochs: 1
  batch_size: 1
  explorer_input:
    taskset:
      name: lake
      storage_type: file
      path: lake.jsonl
      split: train
      workflow_args:
        env_max_steps: 8
        agent_max_steps: 6
        is_slippery: false
      rollout_args:
        temperature: 1.0
        max_tokens: 4096
    default_workflow_type: frozen_lake_workflow
`;

/** A replay's --json that found the row's task and gave its recorded reward again. */
function assertReproduced(j: Record<string, unknown>, row: { task_index?: unknown; model_version?: unknown; reward?: unknown }): void {
  assert.equal(j.task_index, row.task_index);
  assert.equal(j.model_version, row.model_version);
  assert.equal(j.recorded_reward, row.reward);
  assert.equal(j.reward, row.reward);
}

describe("replaying rows Trinity-RFT's own code wrote", { skip }, () => {
  let ws: string;
  let env: NodeJS.ProcessEnv;
  let rows: ReplayRow[];
  let warm: WarmPython | undefined;

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-replay-'));
    env = trinityEnv();
    rows = writeReplayRows(ws, env);
    warm = await startWarmPython({ python: trinityVenvPython, env, preload: TRINITY_RUN_MODULES });
    python = warm.python;
    fs.writeFileSync(path.join(ws, 'math.yaml'), config());
    fs.writeFileSync(path.join(ws, 'math-broken.yaml'), config({ reward: 'broken_reward.py->Broken' }));
    fs.writeFileSync(path.join(ws, 'math-prompt.yaml'), config({ system: 'Answer with a number only.' }));
    fs.writeFileSync(path.join(ws, 'math-looping.yaml'), config({ reward: 'looping_reward.py->Loops' }));
    fs.writeFileSync(
      path.join(ws, 'looping_reward.py'),
      [
        'from trinity.common.rewards.reward_fn import RewardFn',
        '',
        '',
        'class Loops(RewardFn):',
        '    def __init__(self, **kwargs):',
        '        pass',
        '',
        '    def __call__(self, response, truth=None, **kwargs):',
        '        while True:',
        '            pass',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(ws, 'math-short.yaml'), config({ path: 'math-short.jsonl' }));
    fs.writeFileSync(path.join(ws, 'lake.yaml'), lakeConfig(path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall')));
    fs.writeFileSync(path.join(ws, 'lake-elsewhere.yaml'), lakeConfig('agentrl-test/not-on-this-machine'));
    fs.writeFileSync(path.join(ws, 'math-short.jsonl'), '{"question": "What is 2 + 3?", "answer": "5"}\n');
    fs.writeFileSync(
      path.join(ws, 'broken_reward.py'),
      [
        'from trinity.common.rewards.reward_fn import RewardFn',
        '',
        '',
        'class Broken(RewardFn):',
        '    def __init__(self, **kwargs):',
        '        pass',
        '',
        '    def __call__(self, response, truth=None, **kwargs):',
        '        return {"accuracy": 0.0, "format_score": 0.1}',
        '',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(ws, 'odd_workflows.py'),
      [
        'from trinity.common.workflows.workflow import Workflow',
        '',
        '',
        'class Raises(Workflow):',
        '    def run(self):',
        '        raise RuntimeError("the environment is down")',
        '',
        '',
        'class Loops(Workflow):',
        '    def run(self):',
        '        while True:',
        '            try:',
        '                self.model.chat([{"role": "user", "content": "once more"}])',
        '            except Exception:',
        '                pass',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    if (warm) console.log(`warm Python: ${warm.summary()}`);
    await warm?.stop();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  function agentrl(args: string[], timeout = 400_000): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const p = spawn(process.execPath, [cli, ...args, '--python', python, '--cwd', ws], {
        env,
        cwd: ws,
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout,
        killSignal: 'SIGKILL',
      });
      let stdout = '';
      let stderr = '';
      p.stdout.setEncoding('utf8').on('data', (b: string) => (stdout += b));
      p.stderr.setEncoding('utf8').on('data', (b: string) => (stderr += b));
      p.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }
  const replay = (cfg: string, job: string, id: number, extra: string[] = []) =>
    agentrl(['rollout', '--config', cfg, '--from-job', path.join(ws, job), '--id', String(id), '--json', '--no-record', ...extra]);
  const replayable = () => rows.filter((r) => r.job === 'job-math' && (r.keeps === 'messages' || r.keeps === 'prompt_text'));

  test('every recorded reward and part is reproduced exactly (rows keeping messages and rows keeping only prompt/response text)', async () => {
    const r = await agentrl(['eval', '--config', 'math.yaml', '--rescore', '--from-job', 'job-math', '--steps', '1-2', '--json']);
    const j = JSON.parse(r.stdout) as { rows: { id: string; recorded: number; now: number | null; error: string | null }[]; changed: number; flips: number };
    for (const want of replayable()) {
      const got = j.rows.find((x) => x.id === String(want.id));
      assert.ok(got, `row ${want.id} not re-scored:\n${r.stderr}`);
      assert.equal(got.error, null, `row ${want.id}: ${got.error}`);
      assert.equal(got.now, want.reward);
      assert.equal(got.recorded, want.reward);
    }
    assert.ok(replayable().length >= 8);
    assert.equal(j.changed, 0);
    assert.equal(j.flips, 0);
    // The row of tokens alone (its mask all ones, as Trinity's Experience makes it) needs the
    // run's tokenizer, which the stand-in's model_path does not name; it is listed with why, the
    // others still re-scored, so the exit is 1.
    assert.match(
      j.rows.find((x) => x.id === String(rows.find((y) => y.keeps === 'none' && y.job === 'job-math')!.id))!.error ?? '',
      /keeps its conversation only as tokens and an action mask .*the tokenizer of model.model_path stand-in cannot be loaded/,
    );
    assert.equal(r.status, 1);
  });

  test('one row through agentrl rollout: exit 0, its task found at task_index, the parts compared one by one; the file buffer the same', async () => {
    const row = replayable().find((x) => x.keeps === 'messages' && x.reward === 0.1)!;
    const fileRow = rows.find((x) => x.job === 'job-file')!;
    const [r, f] = await Promise.all([replay('math.yaml', 'job-math', row.id), replay('math.yaml', 'job-file', fileRow.id)]);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    assertReproduced(j, row);
    assert.deepEqual(j.reward_parts, { accuracy: [0, 0], format_score: [0.1, 0.1] });
    assert.equal(j.calls, 1);
    assert.equal(j.diverged_at, null);
    assert.deepEqual(j.task, {
      found: true,
      rows: 3,
      why: null,
      stand_in: null,
      config: 'workspace',
      config_why: 'math.yaml (the job directory has no config.json to compare with)',
    });
    assert.equal(f.status, 0, f.stderr);
    assert.equal((JSON.parse(f.stdout) as { reward: number }).reward, fileRow.reward);
  });

  test('--from-job as a relay URL: the row comes through a running relay, the workflow runs here (exit 0, the rewards as from the dir); a dead relay: exit 2 at once, saying so', async () => {
    const row = replayable().find((x) => x.keeps === 'messages' && x.reward === 0.1)!;
    const relay = await startRelay(['--job-dir', path.join(ws, 'job-math')]);
    let r: Awaited<ReturnType<typeof agentrl>>;
    try {
      r = await agentrl(['rollout', '--config', 'math.yaml', '--from-job', relay.url, '--id', String(row.id), '--json', '--no-record']);
    } finally {
      await relay.stop();
    }
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(j.id, String(row.id));
    assertReproduced(j, row);
    assert.deepEqual(j.reward_parts, { accuracy: [0, 0], format_score: [0.1, 0.1] });
    assert.equal(j.diverged_at, null);
    // The relay is gone: nothing listens at its URL. Bounded well below the reader's 15 s wait.
    const dead = await agentrl(['rollout', '--config', 'math.yaml', '--from-job', relay.url, '--id', String(row.id), '--json', '--no-record'], 10_000);
    assert.equal(dead.status, 2, dead.stderr);
    const said = `agentrl rollout: Cannot read experience ${row.id} of ${relay.url}: cannot reach the relay at ${relay.url} (connect ECONNREFUSED`;
    assert.ok(dead.stderr.includes(said), dead.stderr);
    assert.equal(dead.stdout, '');
  });

  test("a row of the queue buffer's backup (JSON lines Trinity's QueueStorage wrote) replays by its id, its reward reproduced", async () => {
    const backup = rows.filter((x) => x.job === 'job-queue');
    assert.equal(backup.length, 8, 'the queue passed on both steps');
    // A row deep in the file (its id is its line's offset + 1) that keeps only prompt/response text.
    const row = backup.filter((x) => x.keeps === 'prompt_text').at(-1)!;
    assert.ok(row.id > 1);
    const r = await replay('math.yaml', 'job-queue', row.id);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as Record<string, unknown>;
    assertReproduced(j, row);
    assert.equal(j.calls, 1);
    assert.equal(j.diverged_at, null);
  });

  test('an edited reward function: exit 1 with the new value; re-scoring the step shows the rows that changed and the flips', async () => {
    const right = replayable().find((x) => x.keeps === 'messages' && x.reward === 1.1)!;
    const [r, s] = await Promise.all([
      replay('math-broken.yaml', 'job-math', right.id),
      agentrl(['eval', '--config', 'math-broken.yaml', '--rescore', '--from-job', 'job-math', '--steps', '1', '--json']),
    ]);
    assert.equal(r.status, 1, r.stderr);
    const j = JSON.parse(r.stdout) as { reward: number; recorded_reward: number; reward_parts: Record<string, [number, number]>; same: boolean };
    assert.equal(j.recorded_reward, 1.1);
    assert.equal(j.reward, 0.1);
    assert.deepEqual(j.reward_parts.accuracy, [1, 0]);
    assert.equal(j.same, false);
    assert.equal(s.status, 1, s.stderr);
    const k = JSON.parse(s.stdout) as { rows: { recorded: number; now: number }[]; changed: number; flips: number };
    // Independently: step 1 holds two tasks, each one right (1.1) and one wrong (0.1) answer; now all 0.1.
    assert.equal(k.rows.length, 4);
    assert.equal(k.changed, k.rows.filter((x) => x.recorded !== x.now).length);
    assert.equal(k.changed, 2);
    assert.equal(k.flips, 4); // + → 0 for the right answers, - → 0 for the wrong ones
  });

  test('re-scoring rows with a looping reward honours --reward-timeout (each row fails, named) and --rescore-timeout (the whole re-score)', async () => {
    const [item, run] = await Promise.all([
      agentrl(['eval', '--config', 'math-looping.yaml', '--rescore', '--from-job', 'job-math', '--steps', '1', '--json', '--reward-timeout', '2']),
      agentrl([
        'eval',
        '--config',
        'math-looping.yaml',
        '--rescore',
        '--from-job',
        'job-math',
        '--steps',
        '1',
        '--json',
        '--reward-timeout',
        '300',
        '--rescore-timeout',
        '3',
      ]),
    ]);
    type Rows = { rows: { now: number | null; error: string | null }[]; errors: number };
    assert.equal(item.status, 1, item.stderr);
    const a = JSON.parse(item.stdout) as Rows;
    assert.equal(a.rows.length, 4);
    for (const r of a.rows) {
      assert.equal(r.now, null);
      assert.match(r.error ?? '', /^RewardTimeout: the replay of this row \(its workflow and reward\) took longer than 2 s \(the limit is --reward-timeout\)/);
    }
    assert.equal(run.status, 1, run.stderr);
    const b = JSON.parse(run.stdout) as Rows;
    assert.equal(b.rows.length, 4);
    for (const r of b.rows) assert.match(r.error ?? '', /time limit of 3 s for the run \(the limit is --rescore-timeout\)/);
  });

  test('an edited prompt template diverges at call 1 with the diff of the request', async () => {
    const row = replayable().find((x) => x.keeps === 'messages')!;
    const r = await replay('math-prompt.yaml', 'job-math', row.id);
    assert.equal(r.status, 1, r.stderr);
    const j = JSON.parse(r.stdout) as { diverged_at: { call: number; diff: string } };
    assert.equal(j.diverged_at.call, 1);
    assert.match(j.diverged_at.diff, /^- .*Think, then answer inside/m);
    assert.match(j.diverged_at.diff, /^\+ .*Answer with a number only\./m);
  });

  test("a multi-turn row of Trinity's frozen_lake_workflow (tokens and action mask, no messages) replays to the end, its reward reproduced", async () => {
    const lake = rows.find((x) => x.job === 'job-lake')!;
    assert.equal(lake.keeps, 'none', 'Trinity 0.5.2 keeps no messages for a multi-turn row');
    assert.ok((lake.turns ?? 0) >= 3, `a multi-turn row: ${lake.turns} turns`);
    const r = await replay('lake.yaml', 'job-lake', lake.id);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as {
      reward: number;
      recorded_reward: number;
      calls: number;
      diverged_at: unknown;
      reward_parts: Record<string, [number, number]>;
    };
    assert.equal(j.diverged_at, null);
    assert.equal(j.calls, lake.turns);
    assert.equal(j.recorded_reward, lake.reward);
    assert.equal(j.reward, lake.reward);
    assert.deepEqual(j.reward_parts.env_steps, [lake.metrics!.env_steps, lake.metrics!.env_steps]);
  });

  test("a multi-turn row whose run's tokenizer is not here: exit 2 naming what is missing", async () => {
    const lake = rows.find((x) => x.job === 'job-lake')!;
    const r = await replay('lake-elsewhere.yaml', 'job-lake', lake.id);
    assert.equal(r.status, 2, r.stderr);
    assert.match(
      r.stderr,
      /keeps its conversation only as tokens and an action mask .*needs the run's tokenizer: the tokenizer of model.model_path agentrl-test\/not-on-this-machine cannot be loaded/,
    );
  });

  test("bad input: a row of tokens alone whose run's tokenizer is not named, a crafted row: exit 2 saying why", async () => {
    const bare = rows.find((x) => x.job === 'job-math' && x.keeps === 'none')!;
    const crafted = rows.find((x) => x.keeps === 'crafted')!;
    const [a, b] = await Promise.all([replay('math.yaml', 'job-math', bare.id), replay('math.yaml', 'job-math', crafted.id)]);
    assert.equal(a.status, 2, a.stderr);
    assert.match(
      a.stderr,
      /keeps its conversation only as tokens and an action mask .*the tokenizer of model.model_path stand-in cannot be loaded \(stand-in is not a folder on this machine\)/,
    );
    assert.equal(b.status, 2, b.stderr);
    assert.match(b.stderr, /Cannot read experience \d+ of .*over the \d+-byte limit/);
  });

  test(
    'diverged at call 1 with --live-after-divergence: the fixture model server (llama.cpp) answers from that call on, the reward is computed',
    { skip: !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)' },
    async () => {
      const row = replayable().find((x) => x.keeps === 'messages')!;
      const model = await startModelServer();
      try {
        const r = await replay('math-prompt.yaml', 'job-math', row.id, ['--live-after-divergence', model.url]);
        assert.equal(r.status, 1, r.stderr);
        const j = JSON.parse(r.stdout) as {
          diverged_at: { call: number };
          live_from: number | null;
          reward: number | null;
          error: string | null;
          calls: number;
        };
        assert.equal(j.diverged_at.call, 1);
        assert.equal(j.live_from, 1);
        assert.equal(j.error, null, r.stderr);
        assert.equal(typeof j.reward, 'number', r.stderr);
        assert.match(r.stderr, /going on against the live model from LLM call #1/);
      } finally {
        await model.stop();
      }
      // Without it, the diverged call fails: nothing answers it.
      const without = JSON.parse((await replay('math-prompt.yaml', 'job-math', row.id)).stdout) as { live_from: number | null; reward: number | null };
      assert.equal(without.live_from, null);
      assert.equal(without.reward, null);
    },
  );

  test('a taskset of another length: the task is said missing and the recorded first user message stands in', async () => {
    const row = replayable().find((x) => x.task_index === 2)!;
    const r = await replay('math-short.yaml', 'job-math', row.id);
    const j = JSON.parse(r.stdout) as { task: { found: boolean; why: string; rows: number } };
    assert.equal(j.task.found, false);
    assert.equal(j.task.rows, 1);
    assert.equal(j.task.why, 'task_index 2 is past the end of the taskset (1 rows)');
    assert.match(r.stderr, /its task could not be found/);
  });

  test('a multi-turn row without task_index (its reader did not number the task): said so, and its first user message, read out of its tokens, stands in', async () => {
    const row = rows.find((x) => x.job === 'job-lake-unnumbered')!;
    assert.equal(row.keeps, 'none');
    assert.equal(row.task_index, null, "Trinity's runner stored task_index {}");
    // Trinity's frozen_lake_workflow builds its lake from the task row's size and seed; from a
    // text alone it takes size 1, whose map it never finishes generating: the replay's time limit ends it.
    const r = await replay('lake.yaml', 'job-lake-unnumbered', row.id, ['--max-seconds', '10']);
    assert.equal(r.status, 1, r.stderr);
    const j = JSON.parse(r.stdout) as { task_index: number | null; error: string; task: { found: boolean; why: string; stand_in: string | null } };
    assert.equal(j.error, 'the replay ran longer than 10 s; stopped');
    assert.equal(j.task_index, null);
    assert.equal(j.task.found, false);
    assert.match(j.task.why, /the experience has no info\.task_index/);
    assert.equal(j.task.stand_in, row.first_user);
    assert.match(r.stderr, /its task could not be found \(the experience has no info\.task_index.*\): the recorded first user message stands in for it/);
  });

  test('a workflow that raises, and one that loops calling the model, end with a message (the loop is stopped)', async () => {
    const row = replayable()[0];
    const [a, b] = await Promise.all([
      replay('math.yaml', 'job-math', row.id, ['--workflow', 'odd_workflows.py->Raises']),
      replay('math.yaml', 'job-math', row.id, ['--workflow', 'odd_workflows.py->Loops']),
    ]);
    assert.equal(a.status, 1, a.stderr);
    assert.match((JSON.parse(a.stdout) as { error: string }).error, /RuntimeError: the environment is down/);
    assert.equal(b.status, 1, b.stderr);
    const j = JSON.parse(b.stdout) as { error: string; diverged_at: { call: number } };
    assert.equal(j.diverged_at.call, 1);
    assert.match(j.error, /kept calling the model after the replay diverged/);
  });
});
