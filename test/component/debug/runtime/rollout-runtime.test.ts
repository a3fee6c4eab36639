// Concurrent episodes, auxiliary models and edits that stay edited in the rollout runtime, over the real gateway HTTP server: calls of
// several episodes interleave as Trinity's runners make them, each episode stops alone,
// auxiliary calls go to their own endpoint and are recorded under their role, and a
// replay matches calls by episode and role whatever order they arrive in.
import { afterEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ReplayUpstream } from '../../../../src/debug/gateway/replay';
import type { RolloutRuntime, StopInfo } from '../../../../src/debug/runtime/rollout-runtime';
import { editableRequest } from '../../../../src/debug/runtime/edit-copies';
import type { LlmTurn } from '../../../../src/debug/runtime/episode';
import { RECORDING_FILE, type RecordedCall, type RolloutSummary } from '../../../../src/debug/trajectory/trajectory';
import { chat, EchoModelDouble, runtime, settledWithin, tempDir, user } from './doubles';
import { sleep } from '../../../harness/wait';

const dirs: string[] = [];
const runtimes: RolloutRuntime[] = [];
afterEach(async () => {
  for (const rt of runtimes.splice(0)) await rt.terminate();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function setup(opts: Parameters<typeof runtime>[1] = {}): { rt: RolloutRuntime; dir: string } {
  const dir = tempDir();
  dirs.push(dir);
  const rt = runtime(dir, opts);
  runtimes.push(rt);
  return { rt, dir };
}
const nextStop = (rt: RolloutRuntime) => new Promise<StopInfo>((r) => rt.once('stopped', r));
const recording = (rt: RolloutRuntime) => {
  (rt as unknown as { writer?: { flush(): void } }).writer?.flush();
  return fs
    .readFileSync(path.join(rt.runDir!, RECORDING_FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordedCall);
};

describe('concurrent episodes', () => {
  test('a stopped episode holds only its own call: the others complete and are recorded meanwhile', async () => {
    const { rt } = setup();
    const gw = await rt.openGateway();
    const [a, b, c] = ['A', 'B', 'C'].map((id) => rt.beginEpisode(id));
    rt.pause(a);
    const stopped = nextStop(rt);
    const held = chat(gw.url, gw.apiKey, 'A', [user('a1')]);
    const stop = await stopped;
    assert.equal(stop.episode, a);
    assert.equal(rt.stopOf(a), stop);
    // B and C make all their calls while A is stopped.
    const others = Promise.all([
      (async () => [await chat(gw.url, gw.apiKey, 'B', [user('b1')]), await chat(gw.url, gw.apiKey, 'B', [user('b2')])])(),
      (async () => [await chat(gw.url, gw.apiKey, 'C', [user('c1')]), await chat(gw.url, gw.apiKey, 'C', [user('c2')])])(),
    ]);
    const done = await settledWithin(others, 10000);
    assert.notEqual(done, 'pending', 'the other episodes stalled behind the stopped one');
    assert.deepEqual(
      (done as { content: string }[][]).flat().map((r) => r.content),
      ['main: b1', 'main: b2', 'main: c1', 'main: c2'],
    );
    rt.endEpisode('B', 1);
    rt.endEpisode('C', 1);
    assert.equal(await settledWithin(held, 200), 'pending', 'the stopped episode must wait');
    assert.deepEqual(
      recording(rt)
        .map((r) => `${r.episode}#${r.index}`)
        .sort(),
      ['B#0', 'B#1', 'C#0', 'C#1'],
    );
    assert.equal(b.llmCalls + c.llmCalls, 4);
    rt.resume('continue', a);
    assert.equal((await held).content, 'main: a1');
    assert.equal(rt.stop, undefined);
  });

  test('two episodes stopped at once are resumed one at a time; stepping one leaves the other stopped', async () => {
    const { rt } = setup();
    rt.setBreakpoints([{ kind: 'llm' }]);
    const gw = await rt.openGateway();
    const [a, b] = ['A', 'B'].map((id) => rt.beginEpisode(id));
    const stops: StopInfo[] = [];
    rt.on('stopped', (s) => stops.push(s));
    const ca = chat(gw.url, gw.apiKey, 'A', [user('a1')]);
    const cb = chat(gw.url, gw.apiKey, 'B', [user('b1')]);
    while (stops.length < 2) await sleep(10);
    assert.deepEqual(new Set(stops.map((s) => s.episode)), new Set([a, b]));
    rt.resume('next', b);
    assert.equal((await cb).content, 'main: b1');
    assert.ok(rt.stopOf(a), 'A is still stopped');
    assert.equal(await settledWithin(ca, 100), 'pending');
    rt.resume('continue', a);
    assert.equal((await ca).content, 'main: a1');
  });
});

describe('auxiliary models through the gateway', () => {
  test('/aux/<i>/v1 goes to auxiliary endpoint i, is recorded with its role and breakable, and replays exactly', async () => {
    const judge = new EchoModelDouble('judge');
    const main = new EchoModelDouble('main');
    const { rt } = setup({ upstream: main, auxiliary: [{ upstream: judge, name: 'judge-model' }] });
    const gw = await rt.openGateway();
    const root = gw.url.replace(/\/v1$/, '');
    const ep = rt.beginEpisode('T0#R0');
    assert.equal((await chat(gw.url, gw.apiKey, 'T0#R0', [user('q')])).content, 'main: q');
    rt.setBreakpoints([{ kind: 'llm' }]);
    const stopped = nextStop(rt);
    const verdict = chat(`${root}/aux/0/v1`, gw.apiKey, 'T0#R0', [user('is it right?')]);
    const stop = await stopped;
    const turn = stop.turn as LlmTurn;
    assert.equal(turn.role, 'auxiliary/0');
    assert.equal(turn.index, 0, 'the first call of this role');
    assert.match(stop.description, /T0#R0 auxiliary\/0 call #1/);
    rt.setBreakpoints([]);
    rt.resume('continue', ep);
    assert.equal((await verdict).content, 'judge: is it right?');
    // An aux call sent to /v1 with the role header counts as the same role.
    assert.equal((await chat(gw.url, gw.apiKey, 'T0#R0', [user('again?')], { 'x-agentrl-role': 'auxiliary/0' })).content, 'judge: again?');
    const models = (await (await fetch(`${root}/aux/0/v1/models`, { headers: { authorization: `Bearer ${gw.apiKey}` } })).json()) as { data: { id: string }[] };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ['judge'],
    );
    assert.deepEqual(main.seen.length, 1);
    assert.deepEqual(
      judge.seen.map((s) => [s.ctx.role, s.ctx.index]),
      [
        ['auxiliary/0', 0],
        ['auxiliary/0', 1],
      ],
    );
    const rec = recording(rt);
    assert.deepEqual(
      rec.map((r) => [r.role ?? 'model', r.index]),
      [
        ['model', 0],
        ['auxiliary/0', 0],
        ['auxiliary/0', 1],
      ],
    );

    // Replay: no model at all; the judge's call is answered from the recording by role.
    const { rt: again } = setup({ upstream: new ReplayUpstream(rt.runDir!), replay: new ReplayUpstream(rt.runDir!), auxiliary: [{ name: 'judge-model' }] });
    const gw2 = await again.openGateway();
    again.beginEpisode('T0#R0');
    const root2 = gw2.url.replace(/\/v1$/, '');
    assert.equal((await chat(`${root2}/aux/0/v1`, gw2.apiKey, 'T0#R0', [user('is it right?')])).content, 'judge: is it right?');
    assert.equal((await chat(gw2.url, gw2.apiKey, 'T0#R0', [user('q')])).content, 'main: q');
  });

  test('the runner plan gives each auxiliary model its gateway URL and name', async () => {
    const { rt } = setup({ auxiliary: [{ name: 'Qwen/Qwen2.5-32B-Instruct' }, { name: '' }] });
    const gw = await rt.openGateway();
    const plan = rt.runnerPlan('tiny');
    const root = gw.url.replace(/\/v1$/, '');
    assert.deepEqual(plan.auxiliaryModels, [
      { name: 'Qwen/Qwen2.5-32B-Instruct', baseUrl: `${root}/aux/0/v1`, apiKey: gw.apiKey },
      { name: 'tiny', baseUrl: `${root}/aux/1/v1`, apiKey: gw.apiKey },
    ]);
  });
});

describe('replay under concurrency', () => {
  test('calls arriving in a shuffled order are each answered with their own recorded reply', async () => {
    const { rt } = setup({ auxiliary: [{ upstream: new EchoModelDouble('judge'), name: 'j' }] });
    const gw = await rt.openGateway();
    const root = gw.url.replace(/\/v1$/, '');
    const eps = ['T0#R0', 'T0#R1', 'T1#R0'];
    for (const e of eps) rt.beginEpisode(e);
    // Recorded in episode order: two model calls then one judge call each.
    const calls = eps.flatMap((e) => [
      { e, url: gw.url, msgs: [user(`${e} first`)] },
      { e, url: gw.url, msgs: [user(`${e} second`)] },
      { e, url: `${root}/aux/0/v1`, msgs: [user(`judge ${e}`)] },
    ]);
    const recorded = new Map<string, string>();
    for (const c of calls) recorded.set(`${c.e}|${c.msgs[0].content}`, (await chat(c.url, gw.apiKey, c.e, c.msgs)).content);
    const replay = new ReplayUpstream((rt.runDir = rt.runDir!));
    (rt as unknown as { writer?: { flush(): void } }).writer?.flush();
    const { rt: again } = setup({ upstream: new ReplayUpstream(rt.runDir), replay, auxiliary: [{ name: 'j' }] });
    const gw2 = await again.openGateway();
    const root2 = gw2.url.replace(/\/v1$/, '');
    for (const e of eps) again.beginEpisode(e);
    const diverged: string[] = [];
    again.on('output', (o) => /diverged/.test(o.text) && diverged.push(o.text));
    // Episodes interleaved in another order, the judge's calls before the model's second
    // ones: within an episode and role the order is kept (a workflow's own order).
    const order = [calls[6], calls[3], calls[8], calls[0], calls[5], calls[7], calls[4], calls[1], calls[2]];
    const got = await Promise.all(
      order.map(async (c, k) => {
        await sleep(k * 5);
        return { c, content: (await chat(c.url === gw.url ? gw2.url : `${root2}/aux/0/v1`, gw2.apiKey, c.e, c.msgs)).content };
      }),
    );
    assert.deepEqual(diverged, []);
    for (const { c, content } of got) assert.equal(content, recorded.get(`${c.e}|${c.msgs[0].content}`));
  });
});

describe('an edited message stays edited', () => {
  test('later requests of the same episode that carry the original get the edit; other episodes do not', async () => {
    const main = new EchoModelDouble('main');
    const judge = new EchoModelDouble('judge');
    const { rt } = setup({ upstream: main, auxiliary: [{ upstream: judge, name: 'j' }] });
    const gw = await rt.openGateway();
    const root = gw.url.replace(/\/v1$/, '');
    const a = rt.beginEpisode('A');
    rt.beginEpisode('B');
    rt.pause(a);
    const stopped = nextStop(rt);
    const first = chat(gw.url, gw.apiKey, 'A', [user('What is 2+2?')]);
    const stop = await stopped;
    editableRequest(stop.turn as LlmTurn).messages[0].content = 'What is 3+3?';
    rt.resume('continue', a);
    assert.equal((await first).content, 'main: What is 3+3?');
    // The workflow's own list still holds the original: call #2 carries it.
    const history = [user('What is 2+2?'), { role: 'assistant', content: 'main: What is 3+3?' }, user('Sure?')];
    assert.equal((await chat(gw.url, gw.apiKey, 'A', history)).content, 'main: Sure?');
    assert.equal(main.seen[1].body.messages[0].content, 'What is 3+3?');
    // The judge of the same episode sees the edit too.
    await chat(`${root}/aux/0/v1`, gw.apiKey, 'A', [user('What is 2+2?')]);
    assert.equal(judge.seen[0].body.messages[0].content, 'What is 3+3?');
    // Another episode with the same text is untouched.
    assert.equal((await chat(gw.url, gw.apiKey, 'B', [user('What is 2+2?')])).content, 'main: What is 2+2?');
    const rec = recording(rt);
    assert.equal(rec[1].request.messages[0].content, 'What is 2+2?', 'the recording keeps what the workflow sent');
    assert.equal(rec[1].sent?.messages[0].content, 'What is 3+3?');
    assert.equal(rec[3].sent, undefined);
    assert.deepEqual(a.forkAt, { index: 0 });
  });
});

describe('a run whose record cannot be saved', () => {
  test('its run dir deleted mid-run: stopping still ends the run, with its summary, and says the record is lost', async () => {
    const { rt } = setup();
    await rt.openGateway();
    rt.beginEpisode('A');
    const said: string[] = [];
    rt.on('output', (o: { category: string; text: string }) => said.push(`${o.category}: ${o.text}`));
    const ended = new Promise<RolloutSummary | undefined>((r) => rt.once('ended', r));
    fs.rmSync(rt.runDir!, { recursive: true, force: true });
    await rt.terminate();
    const summary = await ended;
    assert.equal(summary?.status, 'terminated');
    assert.equal(summary?.episodes, 1, 'the episode cut short is counted');
    assert.ok(
      said.some((l) => /^important: Could not save the run's record in .*ENOENT/.test(l)),
      said.join(''),
    );
  });
});
