// The metrics view in the real VS Code extension host, fed by a real `agentrl relay` reading
// real event files (tensorboardX) and a real SQLite experience buffer: the view opens,
// series arrive, the status bar shows the reward; kill the relay → the view says so →
// restart → every point is there exactly once. Also the extension-managed local relay
// (restarted by the extension when it dies) and a hidden panel that loses nothing.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { MetricsHost } from '../../src/metrics/host';
import type { HostMessage } from '../../src/metrics/protocol/view-protocol';
import { seriesKey } from '../../src/metrics/store/store';
import { rowAt } from '../../src/metrics/experiences/columns';
import { emaSmooth } from '../../src/metrics/store/smoothing';
import { STATUS_SMOOTHING } from '../../src/metrics/view/status-model';
import { repoRoot, venvPython } from '../harness/paths';
import { startRelay, type RelayProc } from '../harness/relay';
import { sleep, until } from '../harness/wait';
import { activated } from './extension.test';

interface Expected {
  role: string;
  tag: string;
  step: number;
  value: number;
}

const RUN = 'qwen-grpo';
const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py');

function writeJob(dir: string, from: number, to: number, spike?: string): Expected[] {
  const r = spawnSync(venvPython, [FIXTURE, 'write', dir, String(from), String(to), ...(spike ? ['--spike', spike] : [])], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.strictEqual(r.status, 0, `fixture writer failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Expected[];
}

/** `agentrl relay` on a job dir as a user starts it next to the trainer (here on loopback). */
function jobRelay(jobDir: string, port = 0, token?: string): Promise<RelayProc> {
  const args = ['--job-dir', jobDir, '--port', String(port), '--heartbeat', '0.5', '--poll-interval', '100'];
  return startRelay(args, { env: { ...process.env, AGENTRL_RELAY_TOKEN: token ?? '' } });
}

/** Every expected point is in the store exactly once (and nothing else). */
function assertExactlyOnce(host: MetricsHost, expected: Expected[]): void {
  const byKey = new Map<string, Expected[]>();
  for (const e of expected) {
    const k = seriesKey(RUN, e.role, e.tag);
    byKey.set(k, [...(byKey.get(k) ?? []), e]);
  }
  for (const [key, list] of byKey) {
    const c = host.store.columns(key);
    assert.ok(c, `series ${key} missing`);
    const got = Array.from(c.step.subarray(0, c.length));
    const want = list.map((e) => e.step).sort((a, b) => a - b);
    assert.deepStrictEqual(got, want, `${key}: steps differ (duplicates or losses)`);
    const values = Array.from(c.value.subarray(0, c.length));
    const wantValues = [...list].sort((a, b) => a.step - b.step).map((e) => e.value);
    assert.deepStrictEqual(values, wantValues, `${key}: values differ`);
  }
}

const stateOf = (host: MetricsHost, id: string) => host.statuses().find((s) => s.id === id)?.state;

suite('metrics view (real relay, real event files)', function () {
  this.timeout(180000);
  let host: MetricsHost;
  let tmp: string;
  let job: string;
  let relay: RelayProc | undefined;
  let expected: Expected[];
  let endpoint: string;

  suiteSetup(async function () {
    assert.ok(fs.existsSync(venvPython), `no test venv at ${venvPython}: run scripts/setup.sh python`);
    host = (await activated()).metrics.host();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-metrics-it-'));
    job = path.join(tmp, RUN);
    expected = writeJob(job, 0, 200, '123:5');
  });

  suiteTeardown(async () => {
    relay?.proc.kill('SIGKILL');
    for (const s of host?.statuses() ?? []) await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id: s.id });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('connect to a relay: the view opens, every series arrives, the endpoint goes live', async () => {
    relay = await jobRelay(job);
    endpoint = (await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { url: relay.url, name: 'explorer+trainer' }))!;
    assert.strictEqual(endpoint, `url:${relay.url}`);
    assert.ok(host.panelOpen, 'the view did not open');
    await until('all points', () => host.store.list().reduce((n, s) => n + s.length, 0) >= expected.length);
    await until('live', () => stateOf(host, endpoint) === 'live');
    assertExactlyOnce(host, expected);
    // Explorer and trainer roles merged into one run; experience rows arrived too.
    assert.deepStrictEqual(
      host.controller.runSummaries().map((r) => [r.run, [...r.roles].sort()]),
      [[RUN, ['explorer', 'trainer']]],
    );
    await until('experiences', () => host.store.experiences.size === 800);
  });

  test('the webview draws the charts, the pinned reward first, with the spike in its envelope', async () => {
    const r = await until('a rendered view', async () => {
      const p = await host.controller.probe();
      return p && p.charts.some((c) => c.id === 'rollout/accuracy/mean' && c.drawn) ? p : undefined;
    });
    assert.strictEqual(r.charts[0].id, 'rollout/accuracy/mean', 'the reward chart is not first (pinned)');
    const reward = r.charts.find((c) => c.id === 'rollout/accuracy/mean')!;
    assert.strictEqual(reward.hi, 5, 'the planted spike (step 123 = 5) is not the envelope max');
    for (const tag of ['actor/pg_loss', 'actor/kl_loss', 'response_length/mean', 'critic/rewards/mean']) {
      assert.ok(
        r.charts.some((c) => c.id === tag),
        `no chart for ${tag}`,
      );
    }
    assert.match(r.status, /explorer\+trainer/);
  });

  test("drill-down: a step → its rollouts → one rollout's messages (read through the relay)", async () => {
    const reply = <T extends HostMessage['type']>(type: T, request: number, send: () => void) =>
      new Promise<Extract<HostMessage, { type: T }>>((resolve) => {
        const off = host.controller.tap((m) => {
          if (m.type === type && (m as { request?: number }).request === request) {
            off();
            resolve(m as Extract<HostMessage, { type: T }>);
          }
        });
        send();
      });
    const rollouts = await reply('rollouts', 1, () =>
      host.controller.receive({ type: 'drill', request: 1, chart: 'rollout/accuracy/mean', run: RUN, role: 'explorer', x: [42, 43] }),
    );
    assert.deepStrictEqual(rollouts.modelVersions, [42]);
    assert.strictEqual(rollouts.rows.id.length, 4);
    const first = rowAt(rollouts.rows, RUN, 0);
    const opened = await reply('rollout', 2, () => host.controller.receive({ type: 'openRollout', request: 2, ref: first }));
    assert.ok(opened.detail, opened.error);
    assert.deepStrictEqual(
      opened.detail.messages.map((m) => m.role),
      ['system', 'user', 'assistant'],
    );
    assert.match(opened.detail.messages[2].content, /^The answer is 4[2-5]\.$/);
    assert.strictEqual(opened.detail.fields.find((f) => f.key === 'reward')?.value, String(first.reward));
  });

  test('the status bar shows the smoothed reward mean, labelled with its tag, with a trend arrow', () => {
    const values = expected
      .filter((e) => e.tag === 'rollout/accuracy/mean')
      .sort((a, b) => a.step - b.step)
      .map((e) => e.value);
    const sm = emaSmooth(values.slice(-200), STATUS_SMOOTHING);
    const want = String(Number(sm[sm.length - 1].toPrecision(4)));
    const text = host.refreshStatusBar();
    assert.ok(text.includes(`rollout/accuracy/mean ${want}`), `status bar "${text}" lacks "rollout/accuracy/mean ${want}"`);
    assert.match(text, /\$\(arrow-(up|down|right)\)/);
  });

  test('kill the relay → the view says so → restart → every point exactly once', async () => {
    const port = relay!.port;
    relay!.proc.kill('SIGKILL');
    await until('stale', () => stateOf(host, endpoint) === 'stale');
    const shown = await until('the view showing the lost connection', async () => {
      const p = await host.controller.probe();
      return p && /connection lost/.test(p.status) ? p : undefined;
    });
    assert.match(shown.status, /retrying in/);
    assert.match(host.refreshStatusBar(), /\$\(warning\)/);
    // Training goes on while the relay is down: new event files and buffer rows.
    expected = expected.concat(writeJob(job, 200, 300));
    relay = await jobRelay(job, port);
    await until('live again', () => stateOf(host, endpoint) === 'live', 60000);
    await until('all points', () => host.store.list().reduce((n, s) => n + s.length, 0) >= expected.length);
    await sleep(1500); // anything doubled would arrive by now
    assertExactlyOnce(host, expected);
    assert.strictEqual(host.store.experiences.size, 1200);
  });

  test('a hidden panel loses nothing: shown again, it draws everything that arrived meanwhile', async () => {
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await until('panel hidden', async () => !(await host.controller.probe(500)));
    const more = writeJob(job, 300, 320);
    expected = expected.concat(more);
    await until('points while hidden', () => host.store.list().reduce((n, s) => n + s.length, 0) >= expected.length);
    await vscode.commands.executeCommand('agentrl.metrics.show');
    const r = await until('redrawn', async () => {
      const p = await host.controller.probe();
      return p && p.charts.some((c) => c.id === 'rollout/accuracy/mean' && c.drawn) ? p : undefined;
    });
    assert.strictEqual(r.charts.find((c) => c.id === 'rollout/accuracy/mean')!.hi, 5);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    assertExactlyOnce(host, expected);
  });

  test('points, experiences and cursors are persisted in the workspace storage', async () => {
    host.store.flush();
    const { MetricsStore } = await import('../../src/metrics/store/store');
    const dir = path.join((host.context.storageUri ?? host.context.globalStorageUri).fsPath, 'metrics');
    const copy = new MetricsStore({ dir });
    for (const s of host.store.list()) assert.strictEqual(copy.get(s.key)?.length, s.length, s.key);
    assert.strictEqual(copy.experiences.size, host.store.experiences.size);
    assert.ok(copy.cursors(endpoint).length >= 3, 'relay cursors not saved');
  });

  test('export writes the full-resolution series as CSV', async () => {
    const file = path.join(tmp, 'reward.csv');
    const key = seriesKey(RUN, 'explorer', 'rollout/accuracy/mean');
    const out = await vscode.commands.executeCommand<string>('agentrl.metrics.export', { keys: [key], format: 'csv', file });
    assert.strictEqual(out, file);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    assert.strictEqual(lines[0], 'run,role,tag,step,wall_time,value');
    assert.strictEqual(lines.length - 1, expected.filter((e) => e.tag === 'rollout/accuracy/mean').length);
    assert.ok(
      lines.some((l) => /,123,[\d.]+,5$/.test(l)),
      'the spike is not in the export',
    );
  });

  test('an export that cannot be written (no such folder) gives no file and no rejected command', async () => {
    const file = path.join(tmp, 'no-such-folder', 'deeper', 'reward.csv');
    fs.writeFileSync(path.join(tmp, 'no-such-folder'), 'a file where the folder would be');
    const key = seriesKey(RUN, 'explorer', 'rollout/accuracy/mean');
    const out = await vscode.commands.executeCommand<string | undefined>('agentrl.metrics.export', { keys: [key], format: 'csv', file });
    assert.strictEqual(out, undefined);
    assert.ok(!fs.existsSync(file));
  });

  test('a wrong token: the endpoint says error and stops; the right one (secret storage) connects', async () => {
    const guarded = await jobRelay(job, 0, 's3cret-token');
    try {
      const id = await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { url: guarded.url, token: 'wrong', name: 'guarded' });
      await until('error', () => stateOf(host, id) === 'error');
      assert.match(host.statuses().find((s) => s.id === id)!.detail ?? '', /401/);
      await vscode.commands.executeCommand('agentrl.metrics.connect', { url: guarded.url, token: 's3cret-token', name: 'guarded' });
      await until('live with the right token', () => stateOf(host, id) === 'live', 30000);
      assert.strictEqual(await host.context.secrets.get(`agentrl.metrics.token:${guarded.url}`), 's3cret-token');
      await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id });
    } finally {
      guarded.proc.kill('SIGKILL');
    }
  });

  test('two nodes of one job (explorer here, trainer there) merge into one run', async () => {
    const a = path.join(tmp, 'node-a', 'multi-job');
    const b = path.join(tmp, 'node-b', 'trainer-node');
    writeJob(a, 0, 30);
    fs.cpSync(a, b, { recursive: true });
    fs.rmSync(path.join(a, 'monitor', 'tensorboard', 'trainer'), { recursive: true });
    fs.rmSync(path.join(b, 'monitor', 'tensorboard', 'explorer'), { recursive: true });
    fs.rmSync(path.join(b, 'buffer'), { recursive: true });
    const ra = await jobRelay(a);
    const rb = await jobRelay(b);
    try {
      const ia = await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { url: ra.url, name: 'explorer node' });
      // The trainer node's job dir has another name: the endpoint's `run` merges it.
      const ib = await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { url: rb.url, name: 'trainer node', run: 'multi-job' });
      await until('both live', () => stateOf(host, ia) === 'live' && stateOf(host, ib) === 'live', 30000);
      const run = await until('one run with both roles', () => {
        const r = host.controller.runSummaries().find((x) => x.run === 'multi-job');
        return r && r.roles.length === 2 ? r : undefined;
      });
      assert.deepStrictEqual([...run.roles].sort(), ['explorer', 'trainer']);
      assert.ok(!host.controller.runSummaries().some((x) => x.run === 'trainer-node'));
      for (const id of [ia, ib]) await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id });
    } finally {
      ra.proc.kill('SIGKILL');
      rb.proc.kill('SIGKILL');
    }
  });

  test('a local job dir: the extension starts its own relay, restarts it when it dies, loses nothing', async () => {
    relay?.proc.kill('SIGKILL');
    relay = undefined;
    await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id: endpoint });
    const localJob = path.join(tmp, 'local', RUN);
    let want = writeJob(localJob, 0, 50);
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.metrics.clear', { confirm: false }), true);
    assert.strictEqual(host.store.list().length, 0);
    const id = await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { dir: localJob });
    assert.strictEqual(id, `local:${localJob}`);
    await until('local relay live', () => stateOf(host, id) === 'live', 60000);
    const pid = host.connections.relayPid(id)!;
    assert.ok(pid > 0);
    await until('all local points', () => host.store.list().reduce((n, s) => n + s.length, 0) >= want.length);
    process.kill(pid, 'SIGKILL');
    await until('stale after the relay died', () => stateOf(host, id) === 'stale');
    want = want.concat(writeJob(localJob, 50, 80));
    await until('restarted by the extension', () => stateOf(host, id) === 'live' && host.connections.relayPid(id) !== pid, 60000);
    await until('all local points again', () => host.store.list().reduce((n, s) => n + s.length, 0) >= want.length);
    await sleep(1000);
    assertExactlyOnce(host, want);
    const pid2 = host.connections.relayPid(id)!;
    await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id });
    await until('the relay the extension started is gone', () => {
      try {
        process.kill(pid2, 0);
        return false;
      } catch {
        return true;
      }
    });
  });
});
