// The rollout service's re-score: recorded episodes scored again with the workspace's current
// reward function by the real Python runner package, while nothing that could call a model
// runs: the recording gateway and the rollout runtime are watched and must never start.
import { afterEach, beforeEach, describe, test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as gatewayServer from '../../../src/debug/gateway/server';
import { RolloutRuntime } from '../../../src/debug/runtime/rollout-runtime';
import { DebugRolloutService, finalResponse } from '../../../src/debug/rollout-service';
import type { EpisodeTrajectory } from '../../../src/debug/trajectory/trajectory';
import { ConfigCheckerTestDouble, runnerDir } from './helpers';

function episode(id: string, taskId: string, answer: string, reply: string, reward: number): EpisodeTrajectory {
  return {
    episode: id,
    taskIndex: 0,
    taskId,
    repeat: 0,
    task: { id: taskId, question: `q ${taskId}`, answer },
    turns: [
      {
        type: 'llm',
        index: 0,
        request: { messages: [{ role: 'user', content: `q ${taskId}` }] },
        response: {
          choices: [{ message: { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: { name: 'get_weather', arguments: '{}' } }] } }],
        },
      },
      { type: 'llm', index: 1, request: { messages: [] }, response: { choices: [{ message: { role: 'assistant', content: reply } }] } },
    ],
    reward,
    metrics: { accuracy: reward },
    metadata: {},
    experiences: [],
  };
}

describe('DebugRolloutService.rescore', () => {
  let ws: string;
  let runDir: string;
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-rescore-'));
    fs.cpSync(path.join(__dirname, '..', '..', '..', '..', 'sample-workspace', 'toolcall'), ws, { recursive: true });
    runDir = path.join(ws, '.agentrl', 'runs', 'r1');
    fs.mkdirSync(runDir, { recursive: true });
    const eps = [
      episode('Tparis#R0', 'paris', 'sunny', 'sunny', 1),
      episode('Tsum#R0', 'sum', '42', 'The answer is 41.', 0),
      { ...episode('Tx#R0', 'x', 'a', 'a', 0), error: { phase: 'workflow', type: 'ValueError', message: 'boom' } },
    ];
    fs.writeFileSync(path.join(runDir, 'trajectories.jsonl'), eps.map((e) => JSON.stringify(e)).join('\n') + '\n');
  });
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));

  /** Fails the test if a gateway or a rollout run is started. */
  function watchModelPaths(t: TestContext): { gateway: { mock: { callCount(): number } }; runtime: { mock: { callCount(): number } } } {
    const gateway = t.mock.method(gatewayServer, 'startGateway', () => Promise.reject(new Error('the re-score started a gateway')));
    const runtime = t.mock.method(RolloutRuntime.prototype, 'start', () => Promise.reject(new Error('the re-score started a rollout')));
    return { gateway, runtime };
  }

  test('the final reply of the rollout model is what the reward scores', () => {
    const ep = episode('e', 't', 'x', 'final words', 1);
    assert.equal(finalResponse(ep), 'final words');
    assert.equal(finalResponse({ ...ep, turns: [] }), '');
  });

  test('re-scores with the current reward, no model: a changed reward changes the scores', async (t) => {
    const watched = watchModelPaths(t);
    const service = new DebugRolloutService(new ConfigCheckerTestDouble(), runnerDir);
    const before = await service.rescore({ config: 'toolcall.yaml', cwd: ws, runDir });
    assert.ok(before.ok, !before.ok ? before.message : '');
    assert.deepEqual(
      before.episodes.map((e) => [e.taskId, e.reward, e.parts]),
      [
        ['paris', 1, { accuracy: 1 }],
        ['sum', 0, { accuracy: 0 }],
        ['x', null, { accuracy: 0 }],
      ],
    );
    assert.equal(before.episodes[2].error?.type, 'ValueError', 'a failed episode stays failed, unscored');

    fs.writeFileSync(
      path.join(ws, 'reward.py'),
      'class ExactAnswerReward:\n    def __init__(self, **kwargs):\n        pass\n\n    def __call__(self, response, truth, **kwargs):\n        return {"accuracy": 0.5 if "4" in response else 0.0, "length": len(response) / 100}\n',
    );
    const after = await service.rescore({ config: 'toolcall.yaml', cwd: ws, runDir });
    assert.ok(after.ok, !after.ok ? after.message : '');
    assert.deepEqual(
      after.episodes.map((e) => [e.taskId, e.reward]),
      [
        ['paris', 0.05],
        ['sum', 0.5 + 0.17],
        ['x', null],
      ],
    );
    assert.deepEqual(after.episodes[1].parts, { accuracy: 0.5, length: 0.17 });
    assert.equal(watched.gateway.mock.callCount(), 0, 'no gateway was started');
    assert.equal(watched.runtime.mock.callCount(), 0, 'no rollout was started');
  });

  test("a reward that raises is that episode's judge error; a reward that cannot load is one clear message", async (t) => {
    watchModelPaths(t);
    const service = new DebugRolloutService(new ConfigCheckerTestDouble(), runnerDir);
    fs.writeFileSync(
      path.join(ws, 'reward.py'),
      'class ExactAnswerReward:\n    def __call__(self, response, truth, **kwargs):\n        if "41" in response:\n            raise ValueError("bad row")\n        return 1.0\n',
    );
    const r = await service.rescore({ config: 'toolcall.yaml', cwd: ws, runDir });
    assert.ok(r.ok);
    assert.deepEqual(
      r.episodes.map((e) => [e.reward, e.error?.phase]),
      [
        [1, undefined],
        [null, 'judge'],
        [null, 'workflow'],
      ],
    );
    assert.match(r.episodes[1].error!.message, /ValueError: bad row/);
    const missing = await service.rescore({ config: 'toolcall.yaml', cwd: ws, runDir, reward: 'nowhere.Nothing' });
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.message : '', /cannot load the reward function 'nowhere\.Nothing'/);
  });

  test('a reward that prints, and one that returns NaN on one episode: that episode says NaN, the others are scored', async (t) => {
    watchModelPaths(t);
    const service = new DebugRolloutService(new ConfigCheckerTestDouble(), runnerDir);
    fs.writeFileSync(
      path.join(ws, 'reward.py'),
      'class ExactAnswerReward:\n    def __call__(self, response, truth, **kwargs):\n        print("scoring", response)\n        return float("nan") if "41" in response else 1.0\n',
    );
    const r = await service.rescore({ config: 'toolcall.yaml', cwd: ws, runDir });
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.episodes.map((e) => [e.reward, e.error?.phase]),
      [
        [1, undefined],
        [null, 'judge'],
        [null, 'workflow'],
      ],
    );
    assert.match(r.episodes[1].error!.message, /the reward is NaN/);
  });
});
