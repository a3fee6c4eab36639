// The rollout debug adapter over real DAP (DebugClient from @vscode/debugadapter-testsupport)
// against the real llama.cpp model server serving the tiny tool-calling fixture model, and
// a real Python runner running the sample tool-calling workflow.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { RolloutSummary } from '../../../../src/debug/trajectory/trajectory';
import type { CheckResult } from '../../../../src/feature-api/config-checker';
import { parseJson, readJson } from '../../../harness/json';
import {
  byName,
  children,
  collectOutput,
  latestRun,
  launch,
  modelAndWorkspace,
  readJsonl,
  scopeVars,
  sdkPython,
  skipWithoutModel,
  startAdapter,
  topFrame,
} from '../helpers';

describe('rollout debug adapter (real model, real runner)', { skip: skipWithoutModel }, () => {
  const env = modelAndWorkspace();
  const base = () => ({ config: path.join(env.ws, 'toolcall.yaml'), cwd: env.ws, workspaceRoot: env.ws, python: sdkPython, model: { baseUrl: env.model.url } });

  test('stops on llm, shows the messages, steps to the tool call and the next LLM call, finishes with a reward', () => stepThroughOneEpisode(env.ws, base));

  test('an edited message reaches the model and changes its answer (and the reward)', async () => {
    const { dc, close } = await startAdapter();
    try {
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(), tasks: 1 }, { functionBreakpoints: ['llm'] });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      const f = await topFrame(dc, s.body.threadId!);
      const msgs = await children(dc, byName(await scopeVars(dc, f.id, 'Request'), 'messages'));
      const m0 = await children(dc, msgs[0]);
      const set = await dc.setVariableRequest({ variablesReference: msgs[0].variablesReference, name: 'content', value: 'What is the weather in Tokyo?' });
      assert.equal(set.body.value, '"What is the weather in Tokyo?"');
      assert.equal(byName(m0, 'content').value, '"What is the weather in Paris?"');
      await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      const run = latestRun(env.ws);
      const [traj] = readJsonl<{
        turns: {
          type: string;
          edited?: boolean;
          request: { messages: { content: string }[] };
          response?: { choices: { message: { content: string | null } }[] };
        }[];
        reward: number;
      }>(path.join(run, 'trajectories.jsonl'));
      const llm = traj.turns.filter((t) => t.type === 'llm');
      assert.equal(llm[0].edited, true);
      assert.equal(llm[0].request.messages[0].content, 'What is the weather in Paris?', 'the trajectory keeps what the workflow sent');
      const [rec] = readJsonl<{ sent: { messages: { content: string }[] } }>(path.join(run, 'recording.jsonl'));
      assert.equal(rec.sent.messages[0].content, 'What is the weather in Tokyo?', 'the recording keeps what went upstream');
      assert.equal(llm[1].response!.choices[0].message.content, 'It is rainy and 9 degrees C in Tokyo.');
      assert.equal(traj.reward, 0);
    } finally {
      await close();
    }
  });

  test('a recorded run replays byte for byte with the model server stopped', async () => {
    let { dc, close } = await startAdapter();
    let recorded: string;
    try {
      const ended = dc.waitForEvent('terminated', 60000);
      await launch(dc, { ...base(), tasks: 3 });
      await ended;
      recorded = latestRun(env.ws);
    } finally {
      await close();
    }
    ({ dc, close } = await startAdapter());
    try {
      const ended = dc.waitForEvent('terminated', 60000);
      // No model at this address: replay must not need one.
      await launch(dc, { ...base(), tasks: 3, model: { baseUrl: 'http://127.0.0.1:9/v1' }, replay: recorded });
      await ended;
      const replayed = latestRun(env.ws);
      assert.notEqual(replayed, recorded);
      const a = fs.readFileSync(path.join(recorded, 'trajectories.jsonl'));
      const b = fs.readFileSync(path.join(replayed, 'trajectories.jsonl'));
      assert.ok(a.length > 1000);
      assert.ok(a.equals(b), 'replayed trajectories.jsonl differs from the recorded one');
      const summary = readJson<RolloutSummary>(path.join(replayed, 'summary.json'));
      assert.equal(summary.replayOf, recorded);
      assert.deepEqual(summary.rewardByTask, { paris: 1, sum: 1, kyoto: 1 });
    } finally {
      await close();
    }
  });

  test('a plain (task, client) workflow streaming with logprobs: chunks recorded, logprob summary, token ids, reward stop, exact replay', async () => {
    fs.writeFileSync(
      path.join(env.ws, 'plainflow.py'),
      [
        'def greet(task, client):',
        '    stream = client.chat.completions.create(model=client.model_path, messages=[{"role": "user", "content": "Hello"}],',
        '                                            temperature=0, stream=True, logprobs=True, extra_body={"return_token_ids": True})',
        '    return {"response": "".join(c.choices[0].delta.content or "" for c in stream if c.choices)}',
        '',
      ].join('\n'),
    );
    let { dc, close } = await startAdapter();
    let recorded: string;
    try {
      const stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(), tasks: 1, workflow: 'plainflow.greet' }, { functionBreakpoints: ['reward<0.5', 'tool:add'] });
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'breakpoint');
      const stack = (await dc.stackTraceRequest({ threadId: s.body.threadId! })).body.stackFrames;
      assert.deepEqual(
        stack.map((f) => f.name),
        ['Tparis#R0 reward 0', 'llm #1 → "Hello! How can I help you today?"'],
      );
      const resp = await scopeVars(dc, stack[1].id, 'Response');
      assert.equal(byName(resp, 'content').value, '"Hello! How can I help you today?"');
      assert.match(byName(resp, 'logprobs').value, /^\d+ tokens · mean -\d+\.\d{3} · min -\d+\.\d{3} at /);
      assert.ok((byName(resp, 'token_ids').indexedVariables ?? 0) > 3);
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
      recorded = latestRun(env.ws);
      const [rec] = readJsonl<{ stream: boolean; chunks: unknown[] }>(path.join(recorded, 'recording.jsonl'));
      assert.equal(rec.stream, true);
      assert.ok(rec.chunks.length > 3, 'stream chunks are recorded');
    } finally {
      await close();
    }
    ({ dc, close } = await startAdapter());
    try {
      const ended = dc.waitForEvent('terminated', 30000);
      await launch(dc, { ...base(), tasks: 1, workflow: 'plainflow.greet', replay: recorded });
      await ended;
      assert.ok(fs.readFileSync(path.join(recorded, 'trajectories.jsonl')).equals(fs.readFileSync(path.join(latestRun(env.ws), 'trajectories.jsonl'))));
    } finally {
      await close();
    }
  });

  test('tool:<name> and turn>N breakpoints, stepOut to the reward, pause', async () => {
    const { dc, close } = await startAdapter();
    try {
      let stopped = dc.waitForEvent('stopped', 30000);
      await launch(dc, { ...base(), tasks: 2 }, { functionBreakpoints: ['tool:add', 'turn>1', 'nonsense'] });
      let s = (await stopped) as DebugProtocol.StoppedEvent;
      // paris: get_weather does not match tool:add; its 2nd LLM call matches turn>1
      assert.match((await topFrame(dc, s.body.threadId!)).name, /^llm #2 ▸ request pending/);
      stopped = dc.waitForEvent('stopped', 30000);
      await dc.stepOutRequest({ threadId: s.body.threadId! });
      s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'step');
      assert.equal((await topFrame(dc, s.body.threadId!)).name, 'Tparis#R0 reward 1');
      stopped = dc.waitForEvent('stopped', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal((await topFrame(dc, s.body.threadId!)).name, 'tool add({"a":17,"b":25})');
      const threads = (await dc.threadsRequest()).body.threads.map((t) => t.name);
      assert.deepEqual(threads, ['Tparis#R0 ✓ reward 1', 'Tsum#R0']);
      await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
      stopped = dc.waitForEvent('stopped', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await dc.pauseRequest({ threadId: s.body.threadId! });
      s = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(s.body.reason, 'pause');
      const ended = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await ended;
    } finally {
      await close();
    }
  });

  test('the progress notification of an episode ends when it stops and comes back when it goes on', async () => {
    const { dc, close } = await startAdapter();
    const seen: { event: string; id?: string; title?: string; message?: string; thread?: number }[] = [];
    for (const name of ['progressStart', 'progressUpdate', 'progressEnd', 'stopped']) {
      dc.on(name, (e: DebugProtocol.Event) => {
        const b = (e.body ?? {}) as { progressId?: string; title?: string; message?: string; threadId?: number };
        seen.push({ event: name, id: b.progressId, title: b.title, message: b.message, thread: b.threadId });
      });
    }
    try {
      // As VS Code does: the client reports progress.
      const configured = dc.waitForEvent('initialized', 10000).then(async () => {
        await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'llm' }] });
        await dc.configurationDoneRequest();
      });
      await dc.initializeRequest({ adapterID: 'agentrl', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsProgressReporting: true });
      const stopped = dc.waitForEvent('stopped', 30000);
      await Promise.all([configured, dc.launchRequest({ ...base(), tasks: 1 } as DebugProtocol.LaunchRequestArguments)]);
      const s = (await stopped) as DebugProtocol.StoppedEvent;
      const atStop = seen.findIndex((e) => e.event === 'stopped');
      const started = seen.slice(0, atStop).filter((e) => e.event === 'progressStart');
      assert.equal(started.length, 1);
      assert.equal(started[0].title, 'Rollout Tparis#R0');
      // Stopped before LLM call #1: its notification is not left saying "LLM call #1".
      const ended = seen.slice(0, atStop).filter((e) => e.event === 'progressEnd' && e.id === started[0].id);
      assert.equal(ended.length, 1, `the progress was not ended at the stop: ${JSON.stringify(seen)}`);
      assert.match(ended[0].message ?? '', /^stopped: Tparis#R0 LLM call #1/);
      await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
      const terminated = dc.waitForEvent('terminated', 30000);
      await dc.continueRequest({ threadId: s.body.threadId! });
      await terminated;
      const after = seen.slice(atStop + 1);
      const again = after.filter((e) => e.event === 'progressStart');
      assert.ok(again.length >= 1, 'the episode shows its progress again once it goes on');
      for (const p of again)
        assert.ok(
          after.some((e) => e.event === 'progressEnd' && e.id === p.id),
          `progress ${p.id} never ended`,
        );
      assert.ok(
        after.some((e) => e.event === 'progressEnd' && /^reward /.test(e.message ?? '')),
        `the episode's end shows its reward: ${JSON.stringify(after)}`,
      );
    } finally {
      await close();
    }
  });
});

/** One episode stepped through: llm stop, its request, stepIn to the tool call, next to the
 *  following call (with the tool result), then on to the reward. */
async function stepThroughOneEpisode(ws: string, base: () => Record<string, unknown>): Promise<void> {
  const { dc, close } = await startAdapter();
  try {
    const out = collectOutput(dc);
    const stopped = dc.waitForEvent('stopped', 30000);
    await launch(dc, { ...base(), tasks: 1 }, { functionBreakpoints: ['llm'] });
    const s1 = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(s1.body.reason, 'breakpoint');
    const threads = (await dc.threadsRequest()).body.threads;
    assert.deepEqual(
      threads.map((t) => t.name),
      ['Tparis#R0'],
    );
    const f1 = await topFrame(dc, s1.body.threadId!);
    assert.match(f1.name, /^llm #1 ▸ request pending/);
    assert.equal(path.basename(f1.source!.path!), 'workflow.py');
    const line = fs.readFileSync(path.join(ws, 'workflow.py'), 'utf8').split('\n')[f1.line - 1];
    assert.match(line, /chat\.completions\.create/, 'the frame opens the line that made the call');
    const req = await scopeVars(dc, f1.id, 'Request');
    const msgs = await children(dc, byName(req, 'messages'));
    assert.equal(msgs.length, 1);
    assert.equal(msgs[0].value, 'user: "What is the weather in Paris?"');
    const ev = await dc.evaluateRequest({ expression: 'messages[-1].content', frameId: f1.id, context: 'repl' });
    assert.equal(ev.body.result, '"What is the weather in Paris?"');
    const tools = await children(dc, byName(req, 'tools'));
    assert.deepEqual(
      tools.map((t) => t.value),
      ['tool get_weather', 'tool add'],
    );

    // stepIn: to the tool call the model asked for
    let next = dc.waitForEvent('stopped', 30000);
    await dc.stepInRequest({ threadId: s1.body.threadId! });
    const s2 = (await next) as DebugProtocol.StoppedEvent;
    assert.equal(s2.body.reason, 'step');
    const f2 = await topFrame(dc, s2.body.threadId!);
    assert.equal(f2.name, 'tool get_weather({"city":"Paris"})');
    const call = await scopeVars(dc, f2.id, 'Tool call');
    assert.equal(byName(call, 'name').value, '"get_weather"');

    // next: to the following LLM call, which carries the tool result
    next = dc.waitForEvent('stopped', 30000);
    await dc.nextRequest({ threadId: s2.body.threadId! });
    const s3 = (await next) as DebugProtocol.StoppedEvent;
    const stack = (await dc.stackTraceRequest({ threadId: s3.body.threadId! })).body.stackFrames;
    assert.deepEqual(
      stack.map((f) => f.name.replace(/\s.*$/, '')),
      ['llm', 'tool', 'llm'],
    );
    assert.match(stack[0].name, /^llm #2 ▸ request pending/);
    const msgs3 = await children(dc, byName(await scopeVars(dc, stack[0].id, 'Request'), 'messages'));
    assert.equal(msgs3.length, 3);
    assert.match(msgs3[2].value, /^tool call_\w+: "\{\\"city\\": \\"Paris\\"/);
    const result = await dc.evaluateRequest({ expression: 'messages[2].content', frameId: stack[0].id, context: 'repl' });
    assert.equal(parseJson<{ city: string }>(parseJson<string>(result.body.result)).city, 'Paris');
    // the finished call shows its response, usage and logprob-free summary
    const resp = await scopeVars(dc, stack[2].id, 'Response');
    assert.equal(byName(resp, 'finish_reason').value, '"tool_calls"');
    assert.ok(Number(byName(await children(dc, byName(resp, 'usage')), 'prompt_tokens').value) > 100);

    // continue to the end: reward per task
    await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
    const ended = dc.waitForEvent('terminated', 30000);
    await dc.continueRequest({ threadId: s3.body.threadId! });
    await ended;
    const summary = readJson<RolloutSummary>(path.join(latestRun(ws), 'summary.json'));
    assert.deepEqual(summary.rewardByTask, { paris: 1 });
    assert.equal(summary.status, 'completed');
    assert.match(out.text(), /Rollout completed: 1 episode\(s\), mean reward 1\.000/);
    const printed = out.events.find((e) => e.body.output.startsWith('tool get_weather'));
    assert.ok(printed?.body.source?.path?.endsWith('workflow.py'), 'workflow stdout links to its source line');
  } finally {
    await close();
  }
}

describe('a launch that cannot start is answered, never left waiting (no model needed)', { timeout: 60_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-launch-'));
  const config = path.join(dir, 'toolcall.yaml');
  fs.writeFileSync(config, 'buffer: {}\n');

  test('a launch.json path that is not a string is refused by name', async () => {
    const { dc, close } = await startAdapter();
    try {
      await assert.rejects(
        launch(dc, { config, cwd: 5, python: ['python3'] }),
        /Invalid agentrl launch configuration:\n {2}"cwd" must be a path\n {2}"python" must be a path/,
      );
    } finally {
      await close();
    }
  });

  test('an error nobody foresaw (a config checker that answers nothing usable) refuses the launch with its message', async () => {
    // A broken checker: its result has no diagnostics.
    const { dc, close } = await startAdapter({ checker: { check: () => Promise.resolve({} as CheckResult) } });
    try {
      await assert.rejects(
        launch(dc, { config, cwd: dir, model: { baseUrl: 'http://127.0.0.1:9/v1' } }),
        /^Error: Agent RL: Cannot read properties of undefined \(reading 'filter'\)$/,
      );
    } finally {
      await close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
