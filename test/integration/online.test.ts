// Online training in the real VS Code extension host, against Trinity-RFT's own serve-mode
// proxy (FastAPI app, ExplorerService, HistoryRecorder from ../shared/upstream). STAND-IN: the
// explorer's inference engine is the tiny fixture model on llama.cpp (test/fixtures/online/
// serve_proxy.py). The commands connect, open the playground (its webview says `ready`), a chat
// round trip with two alternatives, an A/B choice sent, a commit, the counters moving.
import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import type { OnlineHost } from '../../src/online/host';
import { startTrinityServe, TrinityServe, trinityServeSkipReason } from '../harness/trinity-serve';
import { activated } from './extension.test';
import { until } from '../harness/wait';

suite('online training (Trinity serve-mode proxy; engine stand-in: llama.cpp fixture model)', () => {
  let serve: TrinityServe | undefined;
  let host: OnlineHost;

  suiteSetup(async function () {
    this.timeout(120_000);
    if (trinityServeSkipReason()) this.skip();
    serve = await startTrinityServe();
    host = (await activated()).online.host();
  });
  suiteTeardown(async function () {
    this.timeout(20_000);
    host?.panel?.dispose();
    await serve?.stop();
  });

  test('connect reads /health, /v1/models, /metrics and the explorer generation', async () => {
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.connect', { url: `${serve!.url}/v1/` }), true);
    assert.deepStrictEqual(host.connection?.models, ['tiny-toolcall']);
    assert.strictEqual(host.connection?.generation, 'serve-0.4+');
    assert.strictEqual(host.connection?.client.url, serve!.url);
  });

  test('connect also takes the job dir Trinity wrote explorer_server_url.txt into', async () => {
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.connect', serve!.jobDir), true);
    assert.strictEqual(host.connection?.client.url, serve!.url);
  });

  test('playground: chat, A/B choice, commit; counters move', async function () {
    this.timeout(120_000);
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.playground'), true);
    const panel = await until('the panel', () => host.panel);
    // the webview loaded media/online.js and said `ready`: the host now posts state to it
    const posted: string[] = [];
    const orig = panel.webview.postMessage.bind(panel.webview);
    panel.webview.postMessage = (m: { type: string }) => {
      posted.push(m.type);
      return orig(m);
    };
    await until(
      'the webview handshake',
      () => {
        host.controller.pushState();
        return posted.includes('state');
      },
      30_000,
    );

    const ctl = host.controller;
    await ctl.receive({ type: 'send', text: 'Say hi.', params: { n: 2, maxTokens: 10, stream: true } });
    const turn = ctl.current.turns[1];
    assert.ok(turn?.kind === 'assistant' && turn.alternatives.length === 2, JSON.stringify(ctl.state().error));
    assert.ok(posted.includes('delta'), 'the reply streamed to the webview');
    let m = await host.connection!.client.metrics();
    assert.deepStrictEqual([m.totalExperiences, m.readyExperiences, m.exploreStep], [2, 0, 0]);

    await ctl.receive({ type: 'choose', turn: 1, alt: 0 });
    assert.strictEqual(ctl.state().error, undefined);
    assert.deepStrictEqual(
      ctl.state().feedback.map((f) => [f.reward, f.state]),
      [
        [1, 'sent'],
        [0, 'sent'],
      ],
    );
    m = await host.connection!.client.metrics();
    assert.strictEqual(m.readyExperiences, 2);

    // The metrics view watches the same run (its job dir: the relay polls the explorer's /metrics)
    const metrics = (await activated()).metrics.host();
    const endpoint = await vscode.commands.executeCommand<string>('agentrl.metrics.connect', {
      dir: serve!.jobDir,
      mode: 'job',
      name: 'online-run',
      run: 'online-run',
      reveal: false,
    });
    await until(
      'the serve-mode series in the metrics view',
      () => metrics.store.list().some((x) => x.run === 'online-run' && x.tag === 'explore_step_num'),
      60_000,
    );
    // the relay names the explorer it polls: the online feature can offer it
    const viaRelays = await vscode.commands.executeCommand<{ url: string; run: string }[]>('agentrl.metrics.explorers');
    assert.deepStrictEqual(
      viaRelays.map((x) => [x.url, x.run]),
      [[serve!.url, 'online-run']],
    );

    const commits: number[] = [];
    const sub = host.onCommit((s) => commits.push(s));
    await ctl.receive({ type: 'commit' });
    sub.dispose();
    assert.deepStrictEqual(commits, [1]);
    assert.strictEqual(ctl.state().metrics?.exploreStep, 1);
    assert.deepStrictEqual(
      serve!
        .committed()
        .map((c) => c.reward)
        .sort(),
      [0, 1],
    );
    // ... and marks the commit on that run's charts
    const marked = await until('the commit marked on the run', () => metrics.controller.runSummaries().find((r) => r.run === 'online-run' && r.marks?.length));
    assert.deepStrictEqual(
      marked.marks!.map((k) => [k.kind, k.step]),
      [['commit', 1]],
    );
    await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id: endpoint });
  });

  test('a pre-0.4 explorer connects for chat; rewards and commit say why they are missing; a dead one is refused', async () => {
    // STAND-IN for an explorer older than Trinity-RFT 0.4: /health and /v1/models only
    const old = http.createServer((req, res) => {
      if (req.url === '/health') return void res.end();
      if (req.url === '/v1/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"id":"old-model"}]}');
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
    });
    await new Promise<void>((r) => old.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
    try {
      assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.connect', url), true);
      assert.strictEqual(host.connection?.generation, 'pre-0.4');
      assert.strictEqual(host.controller.state().canReward, false);
      await host.controller.receive({ type: 'commit' });
      assert.match(host.controller.state().error ?? '', /older than Trinity-RFT 0.4/);
    } finally {
      old.closeAllConnections();
      old.close();
    }
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.connect', url), false, 'nothing listens there any more');
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.connect', serve!.url), true);
  });

  test('Insert Online-Training Client writes the connected explorer into a Python file', async () => {
    const doc = await vscode.workspace.openTextDocument({ language: 'python', content: '' });
    await vscode.window.showTextDocument(doc);
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.online.insertClient', 'python-openai'), true);
    assert.ok(doc.getText().includes(`EXPLORER_URL = "${serve!.url}"`));
    assert.ok(doc.getText().includes('model="tiny-toolcall"'));
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
