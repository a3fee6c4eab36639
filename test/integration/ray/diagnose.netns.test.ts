// Stalls explained, in the real VS Code extension host against a REAL two-node Ray 2.58 cluster
// started with the dashboard's stack dumps on (RAY_DASHBOARD_ENABLE_PROFILING=1; py-spy from its
// venv; loopback-only network namespace, see ray.netns.test.ts). The job deadlocks on purpose
// (test/fixtures/ray/deadlock_job.py: the explorer waits on the synchronizer, which waits on the
// explorer). Only Ray's telemetry packages are stood in for. The run is flagged stalled, its
// stacks are taken by themselves and show both waiting frames and the deadlock; Show Stacks (job,
// actor) and Copy Diagnostics for an Issue show them, with the API key of the config masked.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RayHost } from '../../../src/ray/host';
import type { Element } from '../../../src/ray/tree';
import type { StacksReport } from '../../../src/ray/diagnostics/stacks';
import type { AgentRlApi } from '../../../src/extension';
import { repoRoot } from '../../harness/paths';
import { netnsStrays, RAY_PROCESS, rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../harness/ray-cluster';
import { type Probe, until as poll } from '../../harness/wait';

const until = <T>(what: string, f: Probe<T>, timeoutMs = 60_000, everyMs = 250): Promise<T> => poll(what, f, timeoutMs, everyMs);
const KEY = 'sk-diagnostics-test-0123456789abcdef';

/** The waiting frame of the actor named `name` in a stacks report. */
const frameOf = (r: StacksReport, name: string) => r.groups.flatMap((g) => g.actors).find((a) => a.actor.name === name)?.wait;

suite('Stalls explained: the stacks of a deadlocked run (real Ray, two nodes, loopback-only netns)', function () {
  this.timeout(240000);
  let cluster: RayCluster;
  let ray: RayHost;
  let ws: string;
  let url = '';

  suiteSetup(async function () {
    const why = raySkipReason();
    if (why) {
      console.log(`skipped: ${why}`);
      this.skip();
    }
    cluster = await startRayCluster({ worker: true, profiling: true });
    const api = await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    ray = api.ray.host();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(ws, 'ray-demo'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/deadlock_job.py'), path.join(ws, 'ray-demo/deadlock_job.py'));
  });

  suiteTeardown(async () => {
    if (!cluster) return;
    await vscode.workspace.getConfiguration('agentrl.ray').update('stallMinutes', undefined, vscode.ConfigurationTarget.Workspace);
    if (url) await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    await cluster.stop();
    assert.deepStrictEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left');
  });

  test('a deadlocked run is flagged, its stacks show both waiting frames; Show Stacks and the diagnostics report show them, the API key masked', async () => {
    url = (await vscode.commands.executeCommand<string>('agentrl.ray.connect', { url: cluster.url, name: 'stacks cluster' }))!;
    assert.ok(url, 'connected');
    await until('two alive nodes', async () => (await ray.refreshNow(url)).nodes.filter((n) => n.state === 'ALIVE').length === 2);
    await vscode.workspace.getConfiguration('agentrl.ray').update('stallMinutes', 0.1, vscode.ConfigurationTarget.Workspace); // 6 s
    // Trinity's sample config, renamed, with an API key where Trinity takes environment variables for its workflow runners
    const config = path.join(ws, 'ray-demo', 'ray-deadlock.yaml');
    const text = fs
      .readFileSync(path.join(ws, 'gsm8k', 'gsm8k.yaml'), 'utf8')
      .replace(/^name: .*$/m, 'name: ray-deadlock')
      .replace(/^explorer:\n/m, `explorer:\n  env_vars:\n    OPENAI_API_KEY: ${KEY}\n`);
    assert.ok(text.includes(KEY), 'the key is in the config');
    fs.writeFileSync(config, text);
    const r = await vscode.commands.executeCommand<{ submissionId: string } | undefined>('agentrl.ray.submit', {
      config,
      cluster: url,
      entrypoint: `${path.join(rayVenv, 'bin', 'python')} ray-demo/deadlock_job.py --namespace agentrl-sample/ray-deadlock`,
      resources: { head_node: 0.5 },
      metrics: 'none',
    });
    assert.ok(r?.submissionId, 'submitted');
    const id = r.submissionId;
    try {
      // flagged stalled, and its stacks taken by themselves (again while it stays stalled: the
      // first may come while the driver still waits for its actors to start)
      await until('the stall flag', async () => !!(await ray.refreshNow(url)).stalls[id], 90_000, 1000);
      const auto = await until(
        'the stacks of both actors, taken on the stall',
        async () => {
          await ray.refreshNow(url);
          const t = ray.stacks.get(`${url}|${id}`);
          return t?.result && frameOf(t.result.report, 'explorer') && frameOf(t.result.report, 'synchronizer') ? t : undefined;
        },
        90_000,
        1000,
      );
      assert.ok(auto.result);
      const report = auto.result.report;
      const explorer = frameOf(report, 'explorer');
      const synchronizer = frameOf(report, 'synchronizer');
      assert.strictEqual(explorer?.call, 'ray.get', JSON.stringify(report.groups));
      assert.strictEqual(explorer?.frame?.func, 'explore_step');
      assert.strictEqual(synchronizer?.call, 'ray.get');
      assert.strictEqual(synchronizer?.frame?.func, 'wait_for_explorer_state');
      const ids: Record<string, string> = {};
      for (const a of auto.result.actors) if (a.name) ids[a.name] = a.actor_id;
      assert.ok(
        report.waits.some((w) => w.from === ids.explorer && w.to === ids.synchronizer),
        'the explorer waits on the synchronizer',
      );
      assert.ok(
        report.waits.some((w) => w.from === ids.synchronizer && w.to === ids.explorer),
        'the synchronizer waits on the explorer',
      );
      assert.deepStrictEqual(new Set(report.cycle), new Set([ids.explorer, ids.synchronizer]), 'a deadlock');
      assert.deepStrictEqual(
        report.groups.map((g) => g.role),
        ['explorer', 'synchronizer', 'driver'],
      );

      // the Ray view shows them under the job
      const rows = (e?: Element) => ray.tree.getChildren(e);
      const root = rows().find((c) => c.cluster === url)!;
      const job = rows(rows(root)[1]).find((j) => j.type === 'job' && j.submissionId === id)!;
      assert.match(job.description, /^STALLED/);
      const details = rows(job).map((d) => `${d.label} | ${d.description}`);
      assert.ok(
        details.some((l) => /^Deadlock: .*explorer.*synchronizer|^Deadlock: .*synchronizer.*explorer/.test(l)),
        details.join('\n'),
      );
      assert.ok(details.includes('explorer (Explorer) waits in ray.get | explore_step (deadlock_job.py:32)'), details.join('\n'));
      assert.ok(details.includes('synchronizer (Synchronizer) waits in ray.get | wait_for_explorer_state (deadlock_job.py:22)'), details.join('\n'));

      // Show Stacks on the job, then on the explorer's actor row
      const shown = await vscode.commands.executeCommand<{ report?: StacksReport; markdown?: string }>('agentrl.ray.showStacks', { cluster: url, id });
      assert.match(shown?.markdown ?? '', /waits in `ray\.get` at `explore_step \(deadlock_job\.py:32\)`/);
      assert.match(shown?.markdown ?? '', /waits in `ray\.get` at `wait_for_explorer_state \(deadlock_job\.py:22\)`/);
      assert.strictEqual(vscode.window.activeTextEditor?.document.languageId, 'markdown');
      assert.strictEqual(vscode.window.activeTextEditor?.document.getText(), shown?.markdown);
      const actorRow = rows(job).find((d) => d.type === 'actor' && d.label === 'explorer')!;
      const one = await vscode.commands.executeCommand<{ report?: StacksReport }>('agentrl.ray.showStacks', actorRow);
      assert.deepStrictEqual(
        one?.report?.groups.flatMap((g) => g.actors.map((a) => a.actor.name)),
        ['explorer'],
        'the actor alone',
      );
      assert.ok(
        one?.report?.waits.some((w) => w.from === ids.explorer && w.to === ids.synchronizer),
        'still naming whom it waits on',
      );

      // Copy Diagnostics for an Issue
      const md = await vscode.commands.executeCommand<string>('agentrl.ray.copyDiagnostics', { cluster: url, id });
      assert.ok(md, 'a report');
      assert.ok(!md.includes(KEY), 'the API key is masked');
      assert.match(md, /OPENAI_API_KEY: "\*\*\*"/);
      assert.match(md, /- Ray: 2\.\d+\.\d+/);
      // The run neither pins nor logs Trinity: the probe job asked the cluster, whose Python has none.
      assert.match(md, /- Trinity-RFT: not installed/);
      assert.match(md, /## Stall finding\n\nNo metrics, log lines or rollouts/);
      assert.match(md, /\*\*Deadlock:\*\*/);
      assert.match(md, /explore_step \(deadlock_job\.py:32\)/);
      assert.match(md, /wait_for_explorer_state \(deadlock_job\.py:22\)/);
      assert.match(md, /## Cluster resources \(`ray status`\)\n\n```text\n[\s\S]*gpu_node/);
      assert.match(md, /\| explorer \| Explorer \| ALIVE \|/);
      assert.match(md, /### driver \(job log\)\n\n```text\n[\s\S]*Step 0: explorer and synchronizer started/);
      assert.strictEqual(vscode.window.activeTextEditor?.document.getText(), md, 'shown in an untitled Markdown editor');
      assert.strictEqual(vscode.window.activeTextEditor?.document.isUntitled, true);
      assert.strictEqual(await vscode.env.clipboard.readText(), md, 'on the clipboard');
    } finally {
      await vscode.commands.executeCommand('agentrl.ray.stopJob', { cluster: url, id });
    }
  });
});
