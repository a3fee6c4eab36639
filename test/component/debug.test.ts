// Bad input and failures end in a clear stop or message, keep what was recorded, and leave
// no process behind: workflow / judge / import errors, the model server killed mid-call or
// stalled, the runner crashing, config errors, and 50 start/stop cycles.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { descendants } from '../../src/debug/runtime/process-tree';
import type { RolloutSummary } from '../../src/debug/trajectory/trajectory';
import { readJson } from '../harness/json';
import { startModelServer } from '../harness/model-server';
import { collectOutput, latestRun, launch, modelAndWorkspace, readJsonl, skipWithoutModel, startAdapter, topFrame } from './debug/helpers';
import { sleep } from '../harness/wait';

const FAILING = `
import os
from workflow import ToolCallWorkflow


class RaisingWorkflow(ToolCallWorkflow):
    def run(self):
        result = super().run()
        if self.task.raw_task["id"] == "paris":
            raise ValueError("the agent got lost in %s" % self.task.raw_task["question"])
        return result


class CrashingWorkflow(ToolCallWorkflow):
    def run(self):
        self.client.chat.completions.create(model=self.client.model_path, messages=[{"role": "user", "content": "Hello"}])
        os._exit(7)


class BrokenReward:
    def __init__(self, **kwargs):
        pass

    def __call__(self, response, truth, **kwargs):
        return {"accuracy": 1.0 / 0}
`;

/** Runner processes (and debugpy adapters) that are children of this test process. */
function leftoverRunners(): number[] {
  return descendants(process.pid).filter((pid) => {
    try {
      return /agentrl_runner|debugpy/.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

describe('rollout debugger failure cases', { skip: skipWithoutModel }, () => {
  const env = modelAndWorkspace((ws) => {
    fs.writeFileSync(path.join(ws, 'failing.py'), FAILING);
    const cfg = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8');
    fs.writeFileSync(path.join(ws, 'broken-judge.yaml'), cfg.replace('reward.ExactAnswerReward', 'failing.BrokenReward'));
    fs.writeFileSync(path.join(ws, 'bad.yaml'), cfg.replace('  batch_size: 3', '  batch_size: 3  # test-double: error'));
  });
  const base = (url = env.model.url) => ({
    config: path.join(env.ws, 'toolcall.yaml'),
    cwd: env.ws,
    workspaceRoot: env.ws,
    python: 'python3',
    model: { baseUrl: url },
  });

  test('a workflow that raises stops with its exception, then the run goes on', { timeout: 90_000 }, async () => {
    const { dc, close } = await startAdapter();
    try {
      const out = collectOutput(dc);
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(), tasks: 2, workflow: 'failing.RaisingWorkflow' });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'exception');
      const info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
      assert.equal(info.body.exceptionId, 'ValueError');
      assert.match(info.body.description!, /The workflow raised: ValueError: the agent got lost in What is the weather in Paris\?/);
      assert.match(info.body.details!.stackTrace!, /failing\.py/);
      const f = await topFrame(dc, s.body.threadId!);
      assert.match(f.name, /^⚠ ValueError/);
      assert.equal(path.basename(f.source!.path!), 'failing.py');
      assert.ok(
        out.events.some((e) => e.body.source?.path?.endsWith('failing.py') && /File ".*failing\.py", line \d+, in run/.test(e.body.output)),
        'clickable traceback frame',
      );
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      const run = latestRun(env.ws);
      const trajs = readJsonl<{ episode: string; error?: { phase: string; type: string }; turns: unknown[]; reward: number | null }>(
        path.join(run, 'trajectories.jsonl'),
      );
      assert.deepEqual(
        trajs.map((t) => t.episode),
        ['Tparis#R0', 'Tsum#R0'],
      );
      assert.deepEqual(trajs[0].error, { phase: 'workflow', type: 'ValueError', message: 'the agent got lost in What is the weather in Paris?' });
      assert.equal(trajs[0].turns.length, 3, 'the recorded turns of the failed episode are kept');
      assert.equal(trajs[1].reward, 1);
      const summary = readJson<RolloutSummary>(path.join(run, 'summary.json'));
      assert.equal(summary.errors, 1);
    } finally {
      await close();
    }
  });

  test('a judge that raises stops as a judge error; the LLM turns stay recorded', { timeout: 90_000 }, async () => {
    const { dc, close } = await startAdapter();
    try {
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(), config: path.join(env.ws, 'broken-judge.yaml'), tasks: 1 });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'exception');
      const info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
      assert.equal(info.body.exceptionId, 'ZeroDivisionError');
      assert.match(info.body.description!, /judge \/ reward function raised/);
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      const [traj] = readJsonl<{ error: { phase: string }; turns: { type: string }[] }>(path.join(latestRun(env.ws), 'trajectories.jsonl'));
      assert.equal(traj.error.phase, 'judge');
      assert.equal(traj.turns.filter((t) => t.type === 'llm').length, 2);
    } finally {
      await close();
    }
  });

  test('an import error stops on the runner thread with a clickable traceback', { timeout: 90_000 }, async () => {
    const { dc, close } = await startAdapter();
    try {
      const out = collectOutput(dc);
      const stopped = dc.waitForEvent('stopped', 30000);
      fs.writeFileSync(path.join(env.ws, 'broken_import.py'), 'import json\nimport no_such_package_xyz\n');
      await launch(dc, { ...base(), workflow: 'broken_import.Workflow' });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'exception');
      const info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
      assert.equal(info.body.exceptionId, 'ModuleNotFoundError');
      assert.ok(out.events.some((e) => e.body.source?.path?.endsWith('broken_import.py') && e.body.line === 2));
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      const summary = readJson<RolloutSummary>(path.join(latestRun(env.ws), 'summary.json'));
      assert.equal(summary.status, 'failed');
      assert.match(summary.message ?? '', /ModuleNotFoundError: No module named 'no_such_package_xyz'/);
    } finally {
      await close();
    }
  });

  test('the model server killed mid-call: upstream error stop, recorded part kept', { timeout: 90_000 }, async () => {
    const doomed = await startModelServer();
    const { dc, close } = await startAdapter();
    try {
      process.kill(doomed.pid, 'SIGSTOP'); // the call will hang in flight…
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(doomed.url), tasks: 1 });
      await sleep(1500);
      process.kill(doomed.pid, 'SIGKILL'); // …until the server dies under it
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'exception');
      const info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
      assert.equal(info.body.exceptionId, 'upstream.connection');
      assert.match(info.body.description!, /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1/);
      await dc.setExceptionBreakpointsRequest({ filters: [] });
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      const run = latestRun(env.ws);
      const [rec] = readJsonl<{ error: { kind: string; status: number } }>(path.join(run, 'recording.jsonl'));
      assert.deepEqual([rec.error.kind, rec.error.status], ['connection', 502]);
      const [traj] = readJsonl<{ error: { phase: string; type: string } }>(path.join(run, 'trajectories.jsonl'));
      assert.equal(traj.error.phase, 'workflow', 'the workflow saw the 502 and raised');
    } finally {
      await close();
      await doomed.stop();
    }
  });

  test('an upstream stall times out (model.timeout) with a clear stop; the run can be stopped', { timeout: 90_000 }, async () => {
    // The behaviour is the same for the 60 s default; 1 s keeps the test short.
    const stalled = await startModelServer();
    const { dc, close } = await startAdapter();
    try {
      process.kill(stalled.pid, 'SIGSTOP');
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(stalled.url), tasks: 1, model: { baseUrl: stalled.url, timeout: 1 } });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      const info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
      assert.equal(info.body.exceptionId, 'upstream.timeout');
      assert.match(info.body.description!, /did not answer within 1 s \(model\.timeout\)/);
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.terminateRequest({});
      await ended;
      const [rec] = readJsonl<{ error: { kind: string; status: number } }>(path.join(latestRun(env.ws), 'recording.jsonl'));
      assert.deepEqual([rec.error.kind, rec.error.status], ['timeout', 504]);
      const summary = readJson<RolloutSummary>(path.join(latestRun(env.ws), 'summary.json'));
      assert.equal(summary.status, 'terminated');
    } finally {
      await close();
      await stalled.stop();
    }
  });

  test('upstream 5xx and malformed JSON each stop with a clear upstream error', { timeout: 90_000 }, () => upstreamErrorStops(env.ws, base));

  test('a runner that crashes ends the session with a message; the recording is kept', { timeout: 90_000 }, async () => {
    const { dc, close } = await startAdapter();
    try {
      const out = collectOutput(dc);
      const ended = dc.waitForEvent('terminated', 30000);
      await launch(dc, { ...base(), tasks: 1, workflow: 'failing.CrashingWorkflow' });
      await ended;
      assert.match(out.text(), /The Python runner exited unexpectedly \(exit code 7\); the recorded part of the run is kept/);
      const run = latestRun(env.ws);
      assert.equal(readJsonl(path.join(run, 'recording.jsonl')).length, 1);
      const [traj] = readJsonl<{ error: { phase: string } }>(path.join(run, 'trajectories.jsonl'));
      assert.equal(traj.error.phase, 'runner');
      assert.equal(readJson<RolloutSummary>(path.join(run, 'summary.json')).status, 'failed');
    } finally {
      await close();
    }
  });

  test('a config with errors is refused, pointing at them', { timeout: 90_000 }, async () => {
    const { dc, close } = await startAdapter();
    try {
      await assert.rejects(
        launch(dc, { ...base(), config: path.join(env.ws, 'bad.yaml') }),
        /bad\.yaml has 1 config error\(s\); fix them before debugging:\n {2}bad\.yaml:\d+:1: marked as an error/,
      );
    } finally {
      await close();
    }
  });

  // a hang guard, not a target: 18 s on an idle 2-core machine, minutes beside another file at load 30
  test('50 start/stop cycles leave no process behind', { timeout: 400_000 }, async () => {
    assert.deepEqual(leftoverRunners(), []);
    for (let i = 0; i < 50; i++) {
      const { dc, close } = await startAdapter();
      try {
        const stopped = dc.waitForEvent('stopped', 30000);
        await launch(dc, { ...base(), tasks: 1, record: false }, { functionBreakpoints: ['llm'] });
        await stopped; // the runner is alive, its first LLM call held by the gateway
        assert.equal(leftoverRunners().length, 1, `cycle ${i}: one runner while stopped`);
      } finally {
        await close(); // disconnect: ends the run and the runner's process tree
      }
      assert.deepEqual(leftoverRunners(), [], `cycle ${i}: runner left behind`);
    }
  });
});

/** An endpoint answering 503, then broken JSON: each call stops with a clear upstream error. */
async function upstreamErrorStops(ws: string, base: (url: string) => Record<string, unknown>): Promise<void> {
  // MOCK upstream (boundary): the real model server cannot be made to answer 503 or broken JSON.
  let n = 0;
  const mock = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/models')) return res.end(JSON.stringify({ object: 'list', data: [{ id: 'tiny-toolcall' }] }));
      if (n++ === 0) {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: 'overloaded, retry later' } }));
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-1", "choices": [{"message": ');
    });
  });
  await new Promise<void>((r) => mock.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(mock.address() as { port: number }).port}/v1`;
  const { dc, close } = await startAdapter();
  try {
    let stopped = dc.waitForEvent('stopped', 30000);
    await launch(dc, { ...base(url), tasks: 2 }, { exceptionFilters: ['upstream'] });
    let s = (await stopped) as DebugProtocol.StoppedEvent;
    let info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
    assert.equal(info.body.exceptionId, 'upstream.upstream');
    assert.match(info.body.description!, /answered 503: overloaded, retry later/);
    stopped = dc.waitForEvent('stopped', 30000);
    await dc.continueRequest({ threadId: s.body.threadId! });
    s = (await stopped) as DebugProtocol.StoppedEvent;
    info = await dc.exceptionInfoRequest({ threadId: s.body.threadId! });
    assert.equal(info.body.exceptionId, 'upstream.malformed');
    assert.match(info.body.description!, /malformed|without choices/);
    const ended = dc.waitForEvent('terminated', 30000);
    await dc.continueRequest({ threadId: s.body.threadId! });
    await ended;
    const recs = readJsonl<{ error: { kind: string; status: number } }>(path.join(latestRun(ws), 'recording.jsonl'));
    assert.deepEqual(
      recs.map((r) => [r.error.kind, r.error.status]),
      [
        ['upstream', 503],
        ['malformed', 502],
      ],
    );
    assert.equal(readJson<RolloutSummary>(path.join(latestRun(ws), 'summary.json')).errors, 2);
  } finally {
    await close();
    mock.close();
  }
}
