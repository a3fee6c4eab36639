// The rollout debugger in the real VS Code extension host (inline debug adapter), against
// the real llama.cpp model server on loopback serving the tiny tool-calling model, with
// the sample tool-calling workflow (sample-workspace/toolcall).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { activated } from './extension.test';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../harness/model-server';
import { repoRoot, venvPython } from '../harness/paths';
import type { ForkInfo, RecordedCall, RolloutSummary } from '../../src/debug/trajectory/trajectory';
import { parseJson, readJson } from '../harness/json';

const python = fs.existsSync(venvPython) ? venvPython : 'python3';

/** Watches the DAP traffic of agentrl sessions (what the Debug view shows). */
class DapWatch implements vscode.DebugAdapterTracker {
  static readonly all: DapWatch[] = [];
  readonly events: DebugProtocol.Event[] = [];
  private waiters: { pred: (e: DebugProtocol.Event) => boolean; resolve: (e: DebugProtocol.Event) => void }[] = [];
  onDidSendMessage(m: DebugProtocol.ProtocolMessage): void {
    if (m.type !== 'event') return;
    const e = m as DebugProtocol.Event;
    this.events.push(e);
    this.waiters = this.waiters.filter((w) => (w.pred(e) ? (w.resolve(e), false) : true));
  }
  /** The first `event` at position `from` or later in `events`, already seen or still to come:
   *  a stop that arrives while the test is still answering the previous one is not lost. */
  after(from: number, event: string, timeoutMs = 60000): Promise<{ e: DebugProtocol.Event; at: number }> {
    const i = this.events.findIndex((e, k) => k >= from && e.event === event);
    if (i >= 0) return Promise.resolve({ e: this.events[i], at: i });
    return this.next(event, timeoutMs).then((e) => ({ e, at: this.events.lastIndexOf(e) }));
  }
  next(event: string, timeoutMs = 60000): Promise<DebugProtocol.Event> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no ${event} event within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        pred: (e) => e.event === event,
        resolve: (e) => {
          clearTimeout(t);
          resolve(e);
        },
      });
    });
  }
}

const ws = () => vscode.workspace.workspaceFolders![0];
const runsDir = () => path.join(ws().uri.fsPath, '.agentrl', 'runs');
const latestRun = () => path.join(runsDir(), fs.readdirSync(runsDir()).sort().pop()!);

async function start(config: Record<string, unknown>): Promise<{ session: vscode.DebugSession; dap: DapWatch; ended: Promise<void> }> {
  const started = new Promise<vscode.DebugSession>((r) => {
    const d = vscode.debug.onDidStartDebugSession((s) => {
      if (s.type === 'agentrl') {
        d.dispose();
        r(s);
      }
    });
  });
  const before = DapWatch.all.length;
  const ok = await vscode.debug.startDebugging(ws(), {
    type: 'agentrl',
    request: 'launch',
    name: 'toolcall rollouts',
    config: '${workspaceFolder}/toolcall/toolcall.yaml',
    cwd: '${workspaceFolder}/toolcall',
    python,
    pythonDebugger: false,
    ...config,
  });
  assert.ok(ok, 'startDebugging failed');
  const session = await started;
  const dap = DapWatch.all[before];
  const ended = new Promise<void>((r) => {
    const d = vscode.debug.onDidTerminateDebugSession((s) => {
      if (s.id === session.id) {
        d.dispose();
        r();
      }
    });
  });
  return { session, dap, ended };
}

async function frames(session: vscode.DebugSession, threadId: number): Promise<DebugProtocol.StackFrame[]> {
  return ((await session.customRequest('stackTrace', { threadId })) as DebugProtocol.StackTraceResponse['body']).stackFrames;
}
async function vars(session: vscode.DebugSession, ref: number): Promise<DebugProtocol.Variable[]> {
  return ((await session.customRequest('variables', { variablesReference: ref })) as DebugProtocol.VariablesResponse['body']).variables;
}
async function scope(session: vscode.DebugSession, frameId: number, name: string): Promise<DebugProtocol.Variable[]> {
  const scopes = ((await session.customRequest('scopes', { frameId })) as DebugProtocol.ScopesResponse['body']).scopes;
  return vars(session, scopes.find((s) => s.name === name)!.variablesReference);
}
const named = (vs: DebugProtocol.Variable[], n: string) => vs.find((v) => v.name === n)!;
const treeLabel = (item: vscode.TreeItem): string => (typeof item.label === 'object' ? item.label.label : (item.label ?? ''));

suite('rollout debugger (real VS Code, real model server)', function () {
  this.timeout(180_000);
  let model: ModelServer | undefined;

  suiteSetup(async function () {
    if (!modelRuntimeInstalled) this.skip();
    await activated();
    vscode.debug.registerDebugAdapterTrackerFactory('agentrl', {
      createDebugAdapterTracker: () => {
        const w = new DapWatch();
        DapWatch.all.push(w);
        return w;
      },
    });
    model = await startModelServer();
  });
  suiteTeardown(async () => {
    await model?.stop();
  });

  test('F5 stops on llm, shows messages, steps to the tool call and the next LLM call; a reward per task', async () => {
    const { session, dap, ended } = await start({ tasks: 2, model: { baseUrl: model!.url }, breakOn: ['llm'] });
    const s1 = (await dap.next('stopped')) as DebugProtocol.StoppedEvent;
    assert.strictEqual(s1.body.reason, 'breakpoint');
    const f1 = await frames(session, s1.body.threadId!);
    assert.match(f1[0].name, /^llm #1 ▸ request pending/);
    assert.ok(f1[0].source?.path?.endsWith(path.join('toolcall', 'workflow.py')));
    const msgs = await vars(session, named(await scope(session, f1[0].id, 'Request'), 'messages').variablesReference);
    assert.strictEqual(msgs[0].value, 'user: "What is the weather in Paris?"');

    let stop = dap.next('stopped');
    await session.customRequest('stepIn', { threadId: s1.body.threadId });
    const s2 = (await stop) as DebugProtocol.StoppedEvent;
    assert.strictEqual((await frames(session, s2.body.threadId!))[0].name, 'tool get_weather({"city":"Paris"})');

    stop = dap.next('stopped');
    await session.customRequest('next', { threadId: s2.body.threadId });
    const s3 = (await stop) as DebugProtocol.StoppedEvent;
    const f3 = await frames(session, s3.body.threadId!);
    assert.match(f3[0].name, /^llm #2 ▸ request pending/);
    const ev = (await session.customRequest('evaluate', {
      expression: 'messages[-1].role',
      frameId: f3[0].id,
      context: 'repl',
    })) as DebugProtocol.EvaluateResponse['body'];
    assert.strictEqual(ev.result, '"tool"');

    await session.customRequest('setFunctionBreakpoints', { breakpoints: [] });
    // breakOn keeps `llm`; continue through the remaining stops
    let stops = 0;
    let from = dap.events.length;
    const drain = (async () => {
      for (;;) {
        const got = await Promise.race([dap.after(from, 'stopped', 120000), ended.then(() => undefined)]);
        if (!got) return;
        from = got.at + 1;
        const e = got.e as DebugProtocol.StoppedEvent;
        stops++;
        await session.customRequest('continue', { threadId: e.body.threadId });
      }
    })();
    await session.customRequest('continue', { threadId: s3.body.threadId });
    await ended;
    await drain;
    assert.strictEqual(stops, 2, 'task 2 stops on its two LLM calls');
    const summary = readJson<RolloutSummary>(path.join(latestRun(), 'summary.json'));
    assert.deepStrictEqual(summary.rewardByTask, { paris: 1, sum: 1 });
    const out = dap.events
      .filter((e) => e.event === 'output')
      .map((e) => (e as DebugProtocol.OutputEvent).body.output)
      .join('');
    assert.match(out, /Rollout completed: 2 episode\(s\), mean reward 1\.000/);
    const progress = dap.events
      .filter((e) => e.event.startsWith('progress'))
      .map((e) => `${e.event} ${(e.body as { title?: string; message?: string }).title ?? (e.body as { message?: string }).message ?? ''}`);
    assert.ok(
      progress.includes('progressStart Rollout Tparis#R0') && progress.includes('progressEnd reward 1'),
      `progress per episode: ${progress.join('; ')}`,
    );
  });

  test('an edited message reaches the model and changes its answer', async () => {
    const { session, dap, ended } = await start({ tasks: 1, model: { baseUrl: model!.url }, breakOn: ['llm'] });
    const s = (await dap.next('stopped')) as DebugProtocol.StoppedEvent;
    const f = await frames(session, s.body.threadId!);
    const msgs = await vars(session, named(await scope(session, f[0].id, 'Request'), 'messages').variablesReference);
    await session.customRequest('setVariable', { variablesReference: msgs[0].variablesReference, name: 'content', value: 'What is the weather in Tokyo?' });
    let from = dap.events.length;
    const drain = (async () => {
      for (;;) {
        const got = await Promise.race([dap.after(from, 'stopped', 120000), ended.then(() => undefined)]);
        if (!got) return;
        from = got.at + 1;
        await session.customRequest('continue', { threadId: (got.e as DebugProtocol.StoppedEvent).body.threadId });
      }
    })();
    await session.customRequest('continue', { threadId: s.body.threadId });
    await ended;
    await drain;
    const traj = parseJson<{ turns: { type: string; response: { choices: { message: { content: string } }[] } }[]; reward: number | null }>(
      fs.readFileSync(path.join(latestRun(), 'trajectories.jsonl'), 'utf8').split('\n')[0],
    );
    const last = traj.turns.filter((t: { type: string }) => t.type === 'llm').pop();
    assert.strictEqual(last?.response.choices[0].message.content, 'It is rainy and 9 degrees C in Tokyo.');
    assert.strictEqual(traj.reward, 0);
  });

  test("F5 on a judge config stops on the workflow's first LLM call and on the judge's; an edit forks the run and both branches show", async function () {
    this.timeout(420_000); // six real model calls: three debugged, three for the original branch
    // test/fixtures/judge: a Trinity config with explorer.auxiliary_models (a judge) and a
    // workflow that calls it; launch.json names no auxiliary endpoint, so the judge's calls
    // go through the gateway's /aux/0/v1 to the main (real) model server.
    fs.cpSync(path.join(repoRoot, 'test', 'fixtures', 'judge'), path.join(ws().uri.fsPath, 'judge'), { recursive: true });
    const { session, dap, ended } = await start({
      name: 'judge rollouts',
      config: '${workspaceFolder}/judge/judge.yaml',
      cwd: '${workspaceFolder}/judge',
      tasks: 1,
      model: { baseUrl: model!.url },
      breakOn: ['llm'],
    });
    const s1 = (await dap.next('stopped')) as DebugProtocol.StoppedEvent;
    const f1 = await frames(session, s1.body.threadId!);
    assert.match(f1[0].name, /^llm #1 ▸ request pending/);
    assert.ok(f1[0].source?.path?.endsWith(path.join('judge', 'judge_workflow.py')));
    const msgs = await vars(session, named(await scope(session, f1[0].id, 'Request'), 'messages').variablesReference);
    await session.customRequest('setVariable', { variablesReference: msgs[1].variablesReference, name: 'content', value: 'What is 4?' });

    let stop = dap.next('stopped');
    await session.customRequest('continue', { threadId: s1.body.threadId });
    const s2 = (await stop) as DebugProtocol.StoppedEvent;
    const f2 = await frames(session, s2.body.threadId!);
    assert.match(f2[0].name, /^llm #2 ▸ request pending/);
    const msgs2 = await vars(session, named(await scope(session, f2[0].id, 'Request'), 'messages').variablesReference);
    assert.strictEqual(msgs2[1].value, 'user: "What is 4?"', 'the edit stays in force for the episode');

    stop = dap.next('stopped');
    await session.customRequest('continue', { threadId: s2.body.threadId });
    const s3 = (await stop) as DebugProtocol.StoppedEvent;
    assert.match(s3.body.description ?? '', /Ttwo#R0 auxiliary\/0 call #1 \(request pending\)/);
    const f3 = await frames(session, s3.body.threadId!);
    assert.match(f3[0].name, /^auxiliary\/0 #1 ▸ request pending/, "the judge's call is a frame of the episode");
    assert.ok(f3[0].source?.path?.endsWith(path.join('judge', 'judge_workflow.py')));
    const req3 = await scope(session, f3[0].id, 'Request');
    assert.match(named(req3, 'role').value, /auxiliary\/0/);
    await session.customRequest('continue', { threadId: s3.body.threadId });
    await ended;

    const run = latestRun();
    const fork = readJson<ForkInfo>(path.join(run, 'forks', 'Ttwo_R0', 'fork.json'));
    assert.deepStrictEqual([fork.episode, fork.status, fork.at], ['Ttwo#R0', 'completed', { index: 0 }]);
    const recorded = fs
      .readFileSync(path.join(run, 'recording.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => parseJson<RecordedCall>(l));
    assert.deepStrictEqual(
      recorded.map((c: { role?: string; index: number }) => `${c.role ?? 'model'}#${c.index}`),
      ['model#0', 'model#1', 'auxiliary/0#0'],
    );
    // The Rollouts view: the fork sits under its run; its command shows both branches side by side.
    const api = await activated();
    const children = await api.debug.rolloutChildren(path.basename(run));
    const forkItem = children.find((c) => c.contextValue === 'agentrl.fork');
    assert.ok(forkItem, `children: ${children.map(treeLabel).join(', ')}`);
    assert.match(treeLabel(forkItem), /fork of Ttwo#R0/);
    assert.match(String(forkItem.description), /without the edit .* with it/);
    await vscode.commands.executeCommand(forkItem.command!.command, ...((forkItem.command!.arguments ?? []) as unknown[]));
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    assert.ok(tab?.input instanceof vscode.TabInputTextDiff, 'a diff editor opened');
    const diff = tab.input;
    assert.ok(diff.original.fsPath.endsWith('original.transcript.md') && diff.modified.fsPath.endsWith('edited.transcript.md'));
    const left = fs.readFileSync(diff.original.fsPath, 'utf8');
    const right = fs.readFileSync(diff.modified.fsPath, 'utf8');
    assert.match(left, /\*\*user\*\*\n\n> What is 2\\\+2\?/);
    assert.match(right, /\*\*user\*\*\n\n> What is 4\?/);
    for (const t of [left, right]) assert.match(t, /auxiliary\/0 LLM call #1[\s\S]*### Reward: /, "both branches show the judge's call and the reward");
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  test('a Python breakpoint in the workflow hits via a debugpy child session', async () => {
    // debugpy 1.8.22 (local index) runs in the runner; VS Code talks DAP to it through the
    // test stand-in of the Python Debugger extension's attach glue (test/fixtures/debugpy-standin).
    const file = path.join(ws().uri.fsPath, 'toolcall', 'workflow.py');
    const line = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('reward = self.reward_fn('));
    const bp = new vscode.SourceBreakpoint(new vscode.Location(vscode.Uri.file(file), new vscode.Position(line, 0)));
    vscode.debug.addBreakpoints([bp]);
    const childStopped = new Promise<{ session: vscode.DebugSession; threadId: number }>((resolve) => {
      const reg = vscode.debug.registerDebugAdapterTrackerFactory('debugpy', {
        createDebugAdapterTracker: (s) => ({
          onDidSendMessage: (m: DebugProtocol.ProtocolMessage) => {
            const e = m as DebugProtocol.StoppedEvent;
            if (m.type === 'event' && e.event === 'stopped' && e.body.reason === 'breakpoint') {
              reg.dispose();
              resolve({ session: s, threadId: e.body.threadId! });
            }
          },
        }),
      });
    });
    try {
      const { session, ended } = await start({ tasks: 1, model: { baseUrl: model!.url }, pythonDebugger: true });
      const child = await childStopped;
      assert.strictEqual(child.session.parentSession?.id, session.id, 'the debugpy session is a child of the rollout session');
      const top = (await frames(child.session, child.threadId))[0];
      assert.strictEqual(top.line, line + 1);
      assert.ok(top.source?.path?.endsWith(path.join('toolcall', 'workflow.py')));
      const answer = (await child.session.customRequest('evaluate', {
        expression: 'answer',
        frameId: top.id,
        context: 'repl',
      })) as DebugProtocol.EvaluateResponse['body'];
      assert.strictEqual(answer.result, "'It is sunny and 21 degrees C in Paris.'");
      // The child session may end (the episode finishes) before its answer to `continue` is
      // delivered; VS Code then rejects the request as Canceled. The run ending with its reward
      // below is what proves the continue took effect.
      await child.session.customRequest('continue', { threadId: child.threadId }).then(undefined, (e: unknown) => {
        if (!(e instanceof Error && e.message === 'Canceled')) throw e;
      });
      await ended;
      const summary = readJson<RolloutSummary>(path.join(latestRun(), 'summary.json'));
      assert.deepStrictEqual(summary.rewardByTask, { paris: 1 });
    } finally {
      vscode.debug.removeBreakpoints([bp]);
    }
  });

  test('replay with the model server stopped gives the same trajectories byte for byte', async () => {
    let run = await start({ tasks: 3, model: { baseUrl: model!.url } });
    await run.ended;
    const recorded = latestRun();
    await model!.stop();
    model = undefined;
    run = await start({ tasks: 3, model: { baseUrl: 'http://127.0.0.1:9/v1' }, replay: recorded });
    await run.ended;
    const replayed = latestRun();
    assert.notStrictEqual(replayed, recorded);
    const a = fs.readFileSync(path.join(recorded, 'trajectories.jsonl'));
    const b = fs.readFileSync(path.join(replayed, 'trajectories.jsonl'));
    assert.ok(a.length > 1000 && a.equals(b), 'replayed trajectories differ');
  });

  test('the dynamic provider offers one entry per RL config; the Rollouts view lists the runs', async () => {
    const api = await activated();
    // Other suites add configs to the shared workspace, so check membership, not the full list:
    // the sample's RL configs are offered once each, plain YAML never.
    const plain = path.join(ws().uri.fsPath, 'plain', 'notes.yaml');
    fs.mkdirSync(path.dirname(plain), { recursive: true });
    fs.writeFileSync(plain, 'title: not an RL config\nitems: [1, 2]\n');
    const configs = await api.debug.provideConfigurations(ws());
    const names = configs.map((c) => c.config as string | undefined);
    for (const f of ['gsm8k/gsm8k.yaml', 'toolcall/toolcall.yaml', 'math_agent/config.yaml']) {
      assert.strictEqual(names.filter((n) => n === `\${workspaceFolder}/${f}`).length, 1, `${f} in ${names.join(', ')}`);
    }
    assert.ok(!names.some((n) => n?.includes('plain/notes.yaml')), 'plain YAML offered as an RL config');
    assert.ok(configs.every((c) => c.type === 'agentrl' && c.request === 'launch'));
    const runs = await api.debug.rolloutRuns();
    assert.ok(runs.length >= 4, `runs listed: ${runs.length}`);
  });
});
