import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { expandLists, main } from '../../../src/eval/cli';
import { saveEval, type EvalRecord } from '../../../src/eval/run/eval-record';
import type { RolloutService } from '../../../src/feature-api/rollouts';

/** TEST DOUBLE for the rollout service: these paths must never run or re-score anything. */
const untouchable: RolloutService = {
  run: () => Promise.reject(new Error('ran a rollout')),
  recorded: () => {
    throw new Error('read a run');
  },
  rescore: () => Promise.reject(new Error('re-scored')),
  transcript: () => {
    throw new Error('read a transcript');
  },
};

function cli(argv: string[]) {
  let out = '';
  let err = '';
  return main(argv, { rollouts: untouchable, io: { stdout: (s) => (out += s), stderr: (s) => (err += s) } }).then((code) => ({ code, out, err }));
}

describe('agentrl eval arguments', () => {
  test('--models a=URL b=URL reads as the repeated option', () => {
    assert.deepEqual(expandLists(['--models', 'a=1', 'b=2', '--tasks', '3', '--runs', 'x=d']), [
      '--models',
      'a=1',
      '--models',
      'b=2',
      '--tasks',
      '3',
      '--runs',
      'x=d',
    ]);
  });

  test('usage errors exit 2 before anything runs', async () => {
    assert.equal((await cli(['--bogus'])).code, 2);
    assert.match((await cli(['--models', 'a=http://x/v1', 'b=http://y/v1'])).err, /--config is required/);
    assert.equal((await cli(['--config', __filename, '--models', 'a=http://x/v1', 'b=http://y/v1', '--repeat', '0'])).code, 2);
    assert.match((await cli(['--runs', 'a=/nonexistent', 'b=/nonexistent'])).err, /is not a recorded run/);
    assert.match((await cli(['--open', '/nonexistent'])).err, /Cannot read the comparison/);
    assert.equal((await cli(['--help'])).code, 0);
  });

  test("--checkpoints lists a job's checkpoints with the commands that serve them", async () => {
    const job = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalcli-'));
    try {
      fs.mkdirSync(path.join(job, 'global_step_200', 'actor'), { recursive: true });
      const r = await cli(['--checkpoints', job, '--port', '8010']);
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        /^step 200 \(needs trinity convert\): .*global_step_200\n {2}no evaluation logged by this step\n {2}\$ trinity convert --checkpoint-dir .*\n {2}\$ vllm serve .*--port 8010\n {2}then: --models global_step_200=http:\/\/127\.0\.0\.1:8010\/v1\n$/,
      );
      assert.equal((await cli(['--checkpoints', path.join(job, 'nothing')])).code, 2);
    } finally {
      fs.rmSync(job, { recursive: true, force: true });
    }
  });

  test('a saved comparison: the gate exits 1 only for a regression beyond the threshold', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalcli-'));
    try {
      const tasks = Array.from({ length: 30 }, (_, i) => `t${i}`);
      const eps = (reward: (i: number) => number) => tasks.map((taskId, i) => ({ episode: `T${taskId}#R0`, taskId, repeat: 0, reward: reward(i), parts: {} }));
      const record: EvalRecord = {
        version: 1,
        id: 'x',
        createdAt: '',
        config: 'c',
        tasks: 30,
        repeat: 1,
        models: [
          { name: 'base', runDir: 'runs/base', status: 'completed', llmCalls: 30, episodes: eps(() => 1) },
          { name: 'new', runDir: 'runs/new', status: 'completed', llmCalls: 30, episodes: eps((i) => (i % 3 === 0 ? 0 : 1)) },
        ],
      };
      saveEval(dir, record);
      const gated = await cli(['--open', dir, '--fail-if-worse', '0.02']);
      assert.equal(gated.code, 1, gated.err);
      assert.match(gated.out, /new is worse than base by 0\.33 ± 0\.\d\d on 30 tasks × 1/);
      assert.equal((await cli(['--open', dir, '--fail-if-worse', '0.5'])).code, 0);
      assert.equal((await cli(['--open', dir])).code, 0);
      const json = JSON.parse((await cli(['--open', dir, '--json'])).out) as { comparisons: { verdict: { kind: string } }[] };
      assert.equal(json.comparisons[0].verdict.kind, 'worse');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
