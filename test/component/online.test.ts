// Chat, feedback and commit end to end against Trinity-RFT's own serve-mode code: its FastAPI
// proxy app, ExplorerService and HistoryRecorder (../shared/upstream, .cache/trinity-venv).
// STAND-IN: the explorer's vLLM inference engine is the tiny fixture model on llama.cpp
// (test/fixtures/online/serve_proxy.py: LlamaCppEngineStandIn; the trainer side of /commit is
// ExperiencePipelineStandIn). One proxy + one model server for the whole file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ExplorerClient } from '../../src/online/explorer/explorer-client';
import { ExplorerError } from '../../src/online/explorer/errors';
import { FeedbackOutbox } from '../../src/online/explorer/outbox';
import { ConversationStore } from '../../src/online/playground/conversations';
import { PlaygroundController } from '../../src/online/playground/playground-controller';
import { english } from '../../src/base/l10n';
import type { HostToWebview } from '../../src/online/protocol/playground-protocol';
import { snippet } from '../../src/online/playground/snippets';
import initSqlJs from 'sql.js/dist/sql-wasm-inline.js';
import { cli } from './scaffold/helpers';
import { startTrinityServe, TrinityServe, trinityPython, trinityServeSkipReason } from '../harness/trinity-serve';

interface SqlJs {
  Database: new (data: Uint8Array) => { exec(sql: string): { values: unknown[][] }[]; close(): void };
}
async function historyRows(db: string): Promise<Map<string, { reward: number | null; task: string | null; consumed: number }>> {
  const SQL = (await initSqlJs()) as SqlJs;
  const d = new SQL.Database(fs.readFileSync(db));
  try {
    const res = d.exec('SELECT msg_id, reward, task_id, consumed FROM proxy_history');
    const out = new Map<string, { reward: number | null; task: string | null; consumed: number }>();
    for (const [id, reward, task, consumed] of res[0]?.values ?? [])
      out.set(String(id), { reward: reward as number | null, task: task as string | null, consumed: Number(consumed) });
    return out;
  } finally {
    d.close();
  }
}

/** A loopback TCP relay to the explorer that can be cut: a network outage between us and it. */
async function cuttableRelay(target: string): Promise<{ url: string; up: boolean; close(): void }> {
  const t = new URL(target);
  const state = { up: true };
  const socks = new Set<net.Socket>();
  const server = net.createServer((c) => {
    if (!state.up) return c.destroy();
    const u = net.connect(Number(t.port), t.hostname);
    socks.add(c).add(u);
    c.pipe(u).pipe(c);
    const end = () => {
      c.destroy();
      u.destroy();
    };
    c.on('error', end).on('close', end);
    u.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get up() {
      return state.up;
    },
    set up(v: boolean) {
      state.up = v;
      if (!v) for (const s of socks) s.destroy();
    },
    close: () => {
      for (const s of socks) s.destroy();
      server.close();
    },
  };
}

const skip = trinityServeSkipReason();

describe("online training against Trinity's serve-mode proxy (engine stand-in: llama.cpp fixture model)", { skip }, () => {
  let serve: TrinityServe;
  let client: ExplorerClient;
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-online-'));

  before(async () => {
    serve = await startTrinityServe();
    client = new ExplorerClient(serve.url, { timeoutMs: 60_000 });
  });
  after(async () => {
    await serve?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  test('connect: /health, /v1/models, /metrics, and the /feedback probe records nothing', async () => {
    await client.health();
    assert.deepEqual(await client.models(), ['tiny-toolcall']);
    assert.equal(await client.generation(), 'serve-0.4+');
    const m = await client.metrics();
    assert.deepEqual([m.totalExperiences, m.readyExperiences, m.exploreStep, m.engines.length], [0, 0, 0, 1]);
  });

  test('playground: a streamed chat, an A/B choice sent, a commit; rows and counters match', async () => {
    const posted: HostToWebview[] = [];
    const outbox = new FeedbackOutbox(path.join(ws, '.agentrl/online/feedback.json'), (e) => new ExplorerClient(e.explorerUrl).feedback(e));
    const store = new ConversationStore(path.join(ws, '.agentrl/online/conversations'));
    const commits: number[] = [];
    const ctl = new PlaygroundController((m) => posted.push(m), outbox, store, {
      strings: {},
      l10n: english,
      describeError: (e) => String((e as Error).message),
    });
    ctl.on('commit', (s) => commits.push(s));
    ctl.setConnection({ client, models: await client.models(), canReward: true });
    await ctl.receive({ type: 'ready' });
    await ctl.receive({ type: 'send', text: 'Say hello.', params: { n: 2, maxTokens: 12, stream: true } });
    const turn = ctl.current.turns[1];
    assert.equal(turn.kind, 'assistant');
    if (turn.kind !== 'assistant') return;
    assert.equal(turn.error, undefined, `chat failed: ${turn.error}`);
    assert.equal(turn.alternatives.length, 2);
    const [a, b] = turn.alternatives;
    assert.notEqual(a.msgId, b.msgId, 'each alternative is its own completion with its own msg_id');
    assert.ok(a.content.length > 0 && a.completionTokens! > 0 && a.latencyMs > 0 && a.modelVersion === 0);
    assert.ok(
      posted.some((m) => m.type === 'delta'),
      'the reply streamed as deltas',
    );

    await ctl.receive({ type: 'choose', turn: 1, alt: 1 });
    assert.equal(ctl.state().error, undefined);
    const rows = await historyRows(serve.historyDb);
    assert.deepEqual(rows.get(b.msgId), { reward: 1, task: turn.taskId, consumed: 1 });
    assert.deepEqual(rows.get(a.msgId), { reward: 0, task: turn.taskId, consumed: 1 });
    let m = await client.metrics();
    assert.deepEqual([m.totalExperiences, m.readyExperiences, m.engines[0].requests], [2, 2, 2]);
    assert.deepEqual(
      outbox.list().map((e) => e.state),
      ['sent', 'sent'],
    );

    // a second choice on the same prompt is refused locally: a reward is sent once
    await ctl.receive({ type: 'choose', turn: 1, alt: 0 });
    assert.match(ctl.state().error ?? '', /already sent/);
    assert.equal(outbox.list().length, 2);

    await ctl.receive({ type: 'commit' });
    m = await client.metrics();
    assert.equal(m.exploreStep, 1);
    assert.deepEqual(commits, [1]);
    assert.equal(ctl.state().notice, 'Committed: the explorer is at explore step 1.');
    const committed = serve.committed();
    assert.deepEqual(
      committed.map((c) => [c.msg_id, c.task, c.reward]).sort(),
      [
        [a.msgId, turn.taskId, 0],
        [b.msgId, turn.taskId, 1],
      ].sort(),
    );

    // the conversation was saved and reopens
    const saved = store.load(ctl.current.id);
    assert.equal(saved?.turns.length, 2);
    assert.equal(saved?.turns[1].kind === 'assistant' && saved.turns[1].chosen, 1);
  });

  test('a repeated /feedback is a no-op upstream', async () => {
    const r = await client.chat({ model: 'tiny-toolcall', messages: [{ role: 'user', content: 'One word.' }], maxTokens: 6 });
    await client.feedback({ msgIds: [r.msgId], reward: 0.5, taskId: 'rep' });
    const before = await client.metrics();
    await client.feedback({ msgIds: [r.msgId], reward: 9, taskId: 'other' });
    const afterM = await client.metrics();
    assert.equal(afterM.readyExperiences, before.readyExperiences);
    assert.deepEqual((await historyRows(serve.historyDb)).get(r.msgId), { reward: 0.5, task: 'rep', consumed: 1 });
  });

  test('a failed /feedback stays unsent on disk and is retried once, without duplicates', async () => {
    const relay = await cuttableRelay(serve.url);
    try {
      const r = await client.chat({ model: 'tiny-toolcall', messages: [{ role: 'user', content: 'Hi.' }], maxTokens: 6 });
      const file = path.join(ws, '.agentrl/online/outbox-retry.json');
      let sends = 0;
      const sender = (e: { explorerUrl: string; msgIds: string[]; reward: number; taskId?: string; runId: number }) => {
        sends++;
        return new ExplorerClient(e.explorerUrl, { timeoutMs: 5000 }).feedback(e);
      };
      const outbox = new FeedbackOutbox(file, sender);
      const readyBefore = (await client.metrics()).readyExperiences;
      relay.up = false;
      const e = await outbox.give({ explorerUrl: relay.url, msgIds: [r.msgId], reward: 1, taskId: 'retry', runId: 0, source: 'thumb' });
      assert.equal(e.state, 'failed');
      assert.match(e.error ?? '', /unreachable|POST \/feedback/);
      assert.equal((await historyRows(serve.historyDb)).get(r.msgId)?.reward, null);
      // never lost: a new outbox (a reloaded window) still has it, unsent
      const reloaded = new FeedbackOutbox(file, sender);
      assert.deepEqual(
        reloaded.unsent().map((x) => x.msgIds),
        [[r.msgId]],
      );
      await assert.rejects(reloaded.give({ explorerUrl: relay.url, msgIds: [r.msgId], reward: 1, runId: 0, source: 'thumb' }), /already rewarded/);
      relay.up = true;
      assert.equal(await reloaded.retryAll(), 1);
      assert.equal(reloaded.list()[0].state, 'sent');
      assert.equal(await reloaded.retryAll(), 0, 'a sent reward is never resent');
      await reloaded.retry(reloaded.list()[0].id);
      assert.equal(sends, 2, 'a sent reward is never resent, even when asked by id');
      assert.deepEqual((await historyRows(serve.historyDb)).get(r.msgId), { reward: 1, task: 'retry', consumed: 1 });
      assert.equal((await client.metrics()).readyExperiences, readyBefore + 1);
    } finally {
      relay.close();
    }
  });

  test('the inserted Python clients (openai + requests, TrinityClient) run against the explorer', async () => {
    const { execFileSync } = await import('node:child_process');
    const env = { ...process.env, PYTHONPATH: serve.pythonpath, HF_HUB_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' };
    for (const kind of ['python-openai', 'python-trinity'] as const) {
      const stepBefore = (await client.metrics()).exploreStep;
      const f = path.join(ws, `${kind}.py`);
      fs.writeFileSync(f, snippet(kind, { explorerUrl: serve.url, model: 'tiny-toolcall' }));
      execFileSync(trinityPython, [f], { env, encoding: 'utf8', timeout: 90_000 });
      assert.equal((await client.metrics()).exploreStep, stepBefore + 1, kind);
    }
  });

  test("the trinity-online template's agent_runner.py chats, rewards a group and commits against the explorer", async () => {
    const { execFileSync } = await import('node:child_process');
    const r = cli(['new', 'trinity-online', path.join(ws, 'online_agent'), '--no-launch', '--json'], ws);
    assert.equal(r.code, 0, r.stderr);
    const dir = (JSON.parse(r.stdout) as { projectDir: string }).projectDir;
    const before = await client.metrics();
    execFileSync(trinityPython, ['agent_runner.py', '--url', serve.url, '--model', 'tiny-toolcall', '--group', '2', '--limit', '1', '--commit-every', '1'], {
      cwd: dir,
      env: { ...process.env, PYTHONPATH: serve.pythonpath },
      encoding: 'utf8',
      timeout: 180_000,
    });
    const m = await client.metrics();
    assert.deepEqual(
      [m.totalExperiences - before.totalExperiences, m.readyExperiences - before.readyExperiences, m.exploreStep - before.exploreStep],
      [2, 2, 1],
    );
    const last = serve.committed().slice(-2);
    assert.equal(new Set(last.map((c) => c.task)).size, 1, 'the group shares one task_id');
  });

  test('a dead engine behind the proxy gives its 502 as bad-gateway', async () => {
    await serve.model.stop();
    await assert.rejects(client.chat({ model: 'tiny-toolcall', messages: [{ role: 'user', content: 'Hi.' }], maxTokens: 4 }), (e: unknown) => {
      assert.ok(e instanceof ExplorerError);
      assert.equal(e.kind, 'bad-gateway');
      assert.equal(e.status, 502);
      assert.match(e.detail, /Failed to connect upstream model/);
      return true;
    });
  });
});
