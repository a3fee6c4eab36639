// Attach Debugger from the Ray view when the worker is out of the editor's reach, in the real VS
// Code extension host: a REAL Ray 2.58 cluster runs in a network namespace of its own, which this
// host (itself in a loopback-only namespace, scripts/test.mjs) reaches only through an SSH-tunnel
// STAND-IN carrying the dashboard's port and the forwarder's fixed port
// (`agentrl.ray.debugForwardPort`; test/harness/ray-elsewhere.ts). Only Ray's telemetry packages
// are stood in for. A job pauses at breakpoint(); the paused row's own command (what a click
// runs) starts a forwarder job on the worker's node, the session stops at the user's line; once
// the session ends no forwarder job nor forwarder process is left.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../../src/extension';
import { META } from '../../../src/ray/api/api-types';
import { RayClient } from '../../../src/ray/api/client';
import type { RayHost } from '../../../src/ray/host';
import type { Element } from '../../../src/ray/tree';
import { repoRoot } from '../../harness/paths';
import { markedProcesses, rayVenv, raySkipReason } from '../../harness/ray-cluster';
import { startRayElsewhere, type RayElsewhere } from '../../harness/ray-elsewhere';
import { type Probe, until as poll } from '../../harness/wait';

const until = <T>(what: string, f: Probe<T>, timeoutMs = 60_000, everyMs = 250): Promise<T> => poll(what, f, timeoutMs, everyMs);
const DASHBOARD_PORT = 8267;
const FORWARD_PORT = 5679;

/** A frame's file (in a remote window VS Code hands DAP paths back as vscode-remote URIs). */
const fileOf = (f: StackFrame) => (f.source?.path?.includes('://') ? vscode.Uri.parse(f.source.path).fsPath : f.source?.path);

interface StackFrame {
  name: string;
  line: number;
  source?: { path?: string };
}

/** Whether a TCP connection from here to 127.0.0.1:port succeeds. */
const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

suite('Attach from the Ray view through a forwarder: the worker out of reach (real Ray in a namespace of its own)', function () {
  this.timeout(600_000);
  let cluster: RayElsewhere;
  let ray: RayHost;
  let ws: string;
  let url = '';

  suiteSetup(async function () {
    const why =
      raySkipReason() ??
      (spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
        ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
        : undefined);
    if (why) {
      console.log(`skipped: ${why}`);
      this.skip();
    }
    cluster = await startRayElsewhere({ dashboardPort: DASHBOARD_PORT, ports: [FORWARD_PORT], profiling: true, worker: false, dashboardTimeoutMs: 300_000 });
    const api = await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    ray = api.ray.host();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(ws, 'ray-demo'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/paused_job.py'), path.join(ws, 'ray-demo/paused_job.py'));
    await vscode.workspace.getConfiguration('agentrl.ray').update('debugForwardPort', FORWARD_PORT, vscode.ConfigurationTarget.Workspace);
  });

  suiteTeardown(async () => {
    if (!cluster) return;
    await vscode.debug.stopDebugging();
    await vscode.workspace.getConfiguration('agentrl.ray').update('debugForwardPort', undefined, vscode.ConfigurationTarget.Workspace);
    if (url) await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    await cluster.stop();
    assert.deepStrictEqual(markedProcesses(cluster.tempDir), [], 'no Ray process left');
  });

  test('the paused row → Attach starts a forwarder job, the session stops at the breakpoint() line; after it ends, no forwarder is left', async () => {
    const file = path.join(ws, 'ray-demo', 'paused_job.py');
    const pauseLine =
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('PAUSE-HERE')) + 1;
    url = (await vscode.commands.executeCommand<string>('agentrl.ray.connect', { url: cluster.url, name: 'remote cluster' }))!;
    assert.ok(url, 'connected');
    const rc = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
    const job = (await rc.submit({ entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${file}`, runtime_env: { env_vars: { RAY_DEBUG: '1' } } }))
      .submission_id;

    // the paused row under its job, as the view shows it
    // (cluster → Jobs → the job → its paused rows first)
    const find = (e: Element | undefined, depth: number): Element | undefined => {
      for (const r of ray.tree.getChildren(e)) {
        if (r.type === 'paused' && r.task.name === 'compute' && r.task.job === job) return r;
        const below = depth > 0 && r.type !== 'paused' ? find(r, depth - 1) : undefined;
        if (below) return below;
      }
      return undefined;
    };
    const row = await until(
      'the paused row of compute',
      async () => {
        await ray.refreshNow(url);
        return find(undefined, 3);
      },
      240_000,
      2000,
    );
    assert.ok(row.type === 'paused');
    // the worker's debugpy is not reachable from here: only the tunnel's ports are
    assert.strictEqual(await answers(row.task.port), false, `${row.task.ip}:${row.task.port} is out of reach from the editor`);

    const stops: Array<{ session: vscode.DebugSession; threadId: number }> = [];
    const tracker = vscode.debug.registerDebugAdapterTrackerFactory('agentrl-ray', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: { threadId?: number } }) => {
          if (m.type === 'event' && m.event === 'stopped') stops.push({ session, threadId: m.body?.threadId ?? 0 });
        },
      }),
    });
    try {
      // what a click on the row runs
      const item = ray.tree.getTreeItem(row);
      assert.strictEqual(item.command?.command, 'agentrl.ray.attach');
      const attached = await vscode.commands.executeCommand<boolean>(item.command.command, ...((item.command.arguments ?? []) as unknown[]));
      assert.strictEqual(attached, true, 'attached');

      // through a forwarder job on the worker's node, for this run
      const forwarders = async () => (await rc.jobs()).filter((j) => j.metadata?.[META.role] === 'forwarder');
      const fwd = await forwarders();
      assert.strictEqual(fwd.length, 1, JSON.stringify(fwd));
      assert.strictEqual(fwd[0].status, 'RUNNING');
      assert.strictEqual(fwd[0].metadata?.[META.forRun], job);

      const stop = await until('the session to stop', () => stops[0], 180_000);
      assert.strictEqual((stop.session.configuration as { connect?: { port?: number } }).connect?.port, FORWARD_PORT, 'the session goes through the forwarder');
      const trace = (await stop.session.customRequest('stackTrace', { threadId: stop.threadId, startFrame: 0, levels: 20 })) as { stackFrames: StackFrame[] };
      const user = trace.stackFrames.find((f) => fileOf(f) === file);
      assert.ok(user, `a frame in ${file}: ${JSON.stringify(trace.stackFrames.map((f) => `${f.name} ${f.source?.path}:${f.line}`))}`);
      assert.strictEqual(user.name, 'compute');
      assert.strictEqual(user.line, pauseLine, 'stopped at the breakpoint() line');

      // Continue lets the job finish; ending the session leaves no forwarder behind
      await stop.session.customRequest('continue', { threadId: stop.threadId });
      const done = await until(
        'the job to finish',
        async () => {
          const j = await rc.job(job);
          return j.status === 'RUNNING' || j.status === 'PENDING' ? undefined : j;
        },
        180_000,
        1000,
      );
      assert.strictEqual(done.status, 'SUCCEEDED', done.message ?? '');
      await vscode.debug.stopDebugging(stop.session);
      await until('no forwarder job', async () => (await forwarders()).length === 0, 120_000, 1000);
      await until('no forwarder process', () => markedProcesses(cluster.tempDir).every((p) => !/--target-port/.test(p.cmd)), 60_000, 500);
    } finally {
      tracker.dispose();
    }
  });
});
