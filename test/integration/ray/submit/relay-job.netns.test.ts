// "Run on Ray Cluster…" on a cluster whose nodes have Python but no Node — the GPU images Trinity
// runs on — in the real VS Code extension host against a REAL two-node Ray cluster (loopback-only
// network namespace, see ray.netns.test.ts). The relay job finds no `node` on the node's PATH and
// runs the Python relay shipped in the package (.agentrl/agentrl_relay.py); the metrics view gets
// every point live, once. The trainer is a STAND-IN (test/fixtures/ray/standin_trainer.py: writes
// what Trinity writes; no GPU here); only Ray's telemetry packages are stood in for.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RayHost } from '../../../../src/ray/host';
import type { MetricsHost } from '../../../../src/metrics/host';
import { seriesKey } from '../../../../src/metrics/store/store';
import type { AgentRlApi } from '../../../../src/extension';
import { repoRoot, venvPython } from '../../../harness/paths';
import { netnsStrays, RAY_PROCESS, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { type Probe, until as poll } from '../../../harness/wait';

const until = <T>(what: string, f: Probe<T>, timeoutMs = 60_000, everyMs = 250): Promise<T> => poll(what, f, timeoutMs, everyMs);

suite('Ray cluster without Node: the relay job runs the Python relay (real Ray, two nodes, loopback-only netns)', function () {
  this.timeout(240000);
  let cluster: RayCluster;
  let ray: RayHost;
  let metrics: MetricsHost;
  let ws: string;
  let ckpt: string;
  let url = '';

  suiteSetup(async function () {
    const why = raySkipReason();
    if (why) {
      console.log(`skipped: ${why}`);
      this.skip();
    }
    cluster = await startRayCluster({ worker: true, noNode: true });
    const api = await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    ray = api.ray.host();
    metrics = api.metrics.host();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    ckpt = fs.mkdtempSync('/tmp/arl-ckpt-');
    fs.mkdirSync(path.join(ws, 'ray-demo'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/standin_trainer.py'), path.join(ws, 'ray-demo/standin_trainer.py'));
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/metrics/trinity_job.py'), path.join(ws, 'ray-demo/trinity_job.py'));
  });

  suiteTeardown(async () => {
    if (!cluster) return;
    // the next suite of this extension host starts from a Ray view without our cluster
    if (url) await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    await cluster.stop();
    assert.deepStrictEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left');
    fs.rmSync(ckpt, { recursive: true, force: true });
  });

  test('Run on Ray Cluster on nodes without Node: the Python relay job streams every point to the metrics view, live', async () => {
    url = await vscode.commands.executeCommand<string>('agentrl.ray.connect', { url: cluster.url, name: 'python-only cluster' });
    await until('two alive nodes', async () => (await ray.refreshNow(url)).nodes.filter((n) => n.state === 'ALIVE').length === 2);
    const file = path.join(ws, 'ray-demo', 'py-relay.yaml');
    fs.writeFileSync(
      file,
      fs
        .readFileSync(path.join(ws, 'gsm8k', 'gsm8k.yaml'), 'utf8')
        .replace(/^name: .*$/m, 'name: py-relay')
        .replace(/^checkpoint_root_dir: .*$/m, `checkpoint_root_dir: ${ckpt}`),
    );
    const r = await vscode.commands.executeCommand<{ submissionId: string; relay?: { submissionId?: string; url?: string } }>('agentrl.ray.submit', {
      config: file,
      cluster: url,
      entrypoint: `${venvPython} ray-demo/standin_trainer.py --config ray-demo/py-relay.yaml --steps 12 --interval 0.5`,
      resources: { gpu_node: 0.5 },
      metrics: 'cluster',
      relayResource: 'gpu_node',
    });
    assert.ok(r?.relay?.url && r.relay.submissionId, `relay started: ${JSON.stringify(r?.relay)}`);
    const client = ray.get(url)!.monitor.client;
    const relayLog = await client.logs(r.relay.submissionId);
    assert.match(relayLog, /the Python relay on Python 3\./, `the relay job ran the Python relay:\n${relayLog}`);
    // Live: points arrive while the run is still writing.
    await until(
      'points while the run is running',
      async () => {
        const held = metrics.store
          .list()
          .filter((s) => s.run === 'py-relay')
          .reduce((n, s) => n + s.length, 0);
        return held > 0 && (await client.job(r.submissionId)).status === 'RUNNING';
      },
      90_000,
      200,
    );
    const done = await until(
      'the run to end',
      async () => {
        const j = await client.job(r.submissionId);
        return ['SUCCEEDED', 'FAILED', 'STOPPED'].includes(j.status) ? j : undefined;
      },
      120_000,
      500,
    );
    assert.strictEqual(done.status, 'SUCCEEDED', done.message ?? '');
    const expected = fs
      .readFileSync(path.join(ckpt, 'agentrl-sample', 'py-relay', 'expected.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; tag: string; step: number; value: number });
    await until(
      `${expected.length} points in the metrics view`,
      () =>
        metrics.store
          .list()
          .filter((s) => s.run === 'py-relay')
          .reduce((n, s) => n + s.length, 0) >= expected.length,
      60_000,
    );
    const byKey = new Map<string, typeof expected>();
    for (const e of expected) byKey.set(seriesKey('py-relay', e.role, e.tag), [...(byKey.get(seriesKey('py-relay', e.role, e.tag)) ?? []), e]);
    for (const [key, list] of byKey) {
      const c = metrics.store.columns(key);
      assert.ok(c, `series ${key} missing`);
      assert.deepStrictEqual(
        Array.from(c.step.subarray(0, c.length)),
        list.map((e) => e.step).sort((a, b) => a - b),
        `${key}: losses or duplicates`,
      );
      assert.deepStrictEqual(
        Array.from(c.value.subarray(0, c.length)),
        [...list].sort((a, b) => a.step - b.step).map((e) => e.value),
        `${key}: values`,
      );
    }
    assert.ok(await vscode.commands.executeCommand('agentrl.ray.stopJob', { cluster: url, id: r.relay.submissionId }));
  });
});
