// A debug session that replays a training run's experience (launch.json `"rollout": {"fromJob",
// "id"}`, src/debug/dap/launch-row.ts) over a real DAP socket, on rows Trinity-RFT 0.5.2's own
// WorkflowRunner and SQL storage wrote (test/fixtures/debug/trinity_replay_rows.py), read back
// through the relay's reader: a reward breakpoint stops with the recorded experience beside the
// episode, the end compares recorded and recomputed rewards, a changed prompt stops at the call
// with its diff. The config engine is its test double (helpers.ts). Skipped without ../shared or
// the Trinity venv.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { createExperienceReader } from '../../../../src/relay/experience-reader';
import type { RowReplayResult } from '../../../../src/debug/experience/outcome';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { byName, collectOutput, launch, scopeVars, startAdapter, topFrame, type Adapter } from '../helpers';

const python = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const skip = !hasShared
  ? 'needs ../shared (Trinity upstream source)'
  : !fs.existsSync(python)
    ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
    : false;

const config = (system: string) => `project: replay
name: math
model:
  model_path: stand-in
  max_model_len: 4096
buffer:
  explorer_input:
    taskset:
      name: math
      path: math.jsonl
      split: train
      format:
        prompt_key: question
        response_key: answer
        system_prompt: ${JSON.stringify(system)}
    default_workflow_type: math_workflow
    default_reward_fn_type: math_reward
`;

describe('debugging a training rollout (launch.json "rollout")', { skip }, () => {
  let ws: string;
  let env: NodeJS.ProcessEnv;
  let adapter: Adapter;

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-replay-dap-'));
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    env = { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' };
    const r = spawnSync(python, [path.join(repoRoot, 'test', 'fixtures', 'debug', 'trinity_replay_rows.py'), ws], { encoding: 'utf8', env, timeout: 300_000 });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    fs.writeFileSync(path.join(ws, 'math.yaml'), config('Think, then answer inside <answer> </answer>.'));
    fs.writeFileSync(path.join(ws, 'math-prompt.yaml'), config('Answer with a number only.'));
    adapter = await startAdapter({ experiences: createExperienceReader(), env });
  });
  after(async () => {
    await adapter?.close();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  const base = (cfg: string) => ({
    config: path.join(ws, cfg),
    cwd: ws,
    workspaceRoot: ws,
    python,
    record: false,
    rollout: { fromJob: path.join(ws, 'job-math'), id: 1 },
  });

  test('a reward breakpoint shows the recorded experience beside the episode; the end compares the rewards', async () => {
    const { dc } = adapter;
    const out = collectOutput(dc);
    const stopped = dc.waitForEvent('stopped', 120_000);
    await launch(dc, base('math.yaml'), { functionBreakpoints: ['reward'] });
    const s = (await stopped) as DebugProtocol.StoppedEvent;
    const frame = await topFrame(dc, s.body.threadId!);
    const recorded = await scopeVars(dc, frame.id, 'Recorded experience');
    assert.equal(byName(recorded, 'reward').value, '1.1');
    assert.equal(byName(recorded, 'model_version').value, '1');
    assert.equal(byName(recorded, 'task_index').value, '0');
    assert.equal(byName(await scopeVars(dc, frame.id, 'Episode'), 'reward').value, '1.1');
    const result = dc.waitForEvent('agentrl.rowReplay', 60_000);
    const ended = dc.waitForEvent('terminated', 60_000);
    await dc.continueRequest({ threadId: s.body.threadId! });
    const r = (await result).body as RowReplayResult;
    await ended;
    assert.equal(r.same, true);
    assert.equal(r.reward, 1.1);
    assert.deepEqual(r.reward_parts.accuracy, [1, 1]);
    assert.match(out.text(), /Experience 1: recorded reward 1\.1 · now 1\.1/);
  });
});

describe('a training rollout whose prompt changed since (launch.json "rollout")', { skip }, () => {
  let ws: string;
  let adapter: Adapter;
  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-replay-dap-'));
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    const env = { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' };
    const r = spawnSync(python, [path.join(repoRoot, 'test', 'fixtures', 'debug', 'trinity_replay_rows.py'), ws], { encoding: 'utf8', env, timeout: 300_000 });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    fs.writeFileSync(path.join(ws, 'math-prompt.yaml'), config('Answer with a number only.'));
    adapter = await startAdapter({ experiences: createExperienceReader(), env });
  });
  after(async () => {
    await adapter?.close();
    if (ws) fs.rmSync(ws, { recursive: true, force: true });
  });

  test('stops at the call that diverged, with the diff, and says so at the end', async () => {
    const { dc } = adapter;
    const out = collectOutput(dc);
    const stopped = dc.waitForEvent('stopped', 120_000);
    await launch(dc, {
      config: path.join(ws, 'math-prompt.yaml'),
      cwd: ws,
      workspaceRoot: ws,
      python,
      record: false,
      rollout: { fromJob: path.join(ws, 'job-math'), id: 1 },
    });
    const s = (await stopped) as DebugProtocol.StoppedEvent;
    assert.match(`${s.body.description ?? ''} ${s.body.text ?? ''} ${out.text()}`, /diverged/i);
    assert.match(out.text(), /Answer with a number only\./);
    const result = dc.waitForEvent('agentrl.rowReplay', 60_000);
    await dc.continueRequest({ threadId: s.body.threadId! });
    const r = (await result).body as RowReplayResult;
    assert.equal(r.diverged_at?.call, 1);
    assert.match(out.text(), /The replay diverged at LLM call 1/);
  });
});
