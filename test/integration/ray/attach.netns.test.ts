// An `agentrl` launch entry with `"request": "attach"` and `"ray": {dashboard, job}`, started in
// the real VS Code extension host against a REAL Ray 2.58 cluster (loopback-only network
// namespace: scripts/test.mjs starts this file's host under `unshare -n`; only Ray's telemetry
// packages are stood in for, ../shared/fixtures/ray). The entry waits for the job's first paused
// task; the job is submitted after it, pauses at breakpoint(); the session (our own debugpy
// client: this host has no Python Debugger extension) stops at the user's line, the editor shows
// it; Continue lets the job finish.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../../src/extension';
import { RayClient } from '../../../src/ray/api/client';
import { repoRoot } from '../../harness/paths';
import { netnsStrays, RAY_PROCESS, rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../harness/ray-cluster';
import { type Probe, until as poll } from '../../harness/wait';

const until = <T>(what: string, f: Probe<T>, timeoutMs = 60_000, everyMs = 250): Promise<T> => poll(what, f, timeoutMs, everyMs);

/** A frame's file (in a remote window VS Code hands DAP paths back as vscode-remote URIs). */
const fileOf = (f: StackFrame) => (f.source?.path?.includes('://') ? vscode.Uri.parse(f.source.path).fsPath : f.source?.path);

interface StackFrame {
  name: string;
  line: number;
  source?: { path?: string };
}

suite('Attach from a launch entry: "request": "attach" with "ray" (real Ray, loopback-only netns)', function () {
  this.timeout(600_000);
  let cluster: RayCluster;
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
    cluster = await startRayCluster({ worker: false, profiling: true, dashboardTimeoutMs: 300_000 });
    await vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(ws, 'ray-demo'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/paused_job.py'), path.join(ws, 'ray-demo/paused_job.py'));
  });

  suiteTeardown(async () => {
    if (!cluster) return;
    await vscode.debug.stopDebugging();
    if (url) await vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url });
    await cluster.stop();
    assert.deepStrictEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left');
  });

  test('the entry waits for the job to pause, the session stops at the breakpoint() line, Continue finishes the job', async () => {
    const file = path.join(ws, 'ray-demo', 'paused_job.py');
    const pauseLine =
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('PAUSE-HERE')) + 1;
    const rc = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
    await until(
      'the dashboard',
      () =>
        rc.version().then(
          () => true,
          () => false,
        ),
      120_000,
      500,
    );
    const job = `attach-entry-${process.pid}`;

    // what the adapter says: its `stopped` event (the session is found by its configuration's name)
    const stops: Array<{ session: vscode.DebugSession; threadId: number; reason: string }> = [];
    const tracker = vscode.debug.registerDebugAdapterTrackerFactory('agentrl-ray', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: { threadId?: number; reason?: string } }) => {
          if (m.type === 'event' && m.event === 'stopped') stops.push({ session, threadId: m.body?.threadId ?? 0, reason: m.body?.reason ?? '' });
        },
      }),
    });
    try {
      // the entry first: it waits (a cancellable notification) for the job's first pause
      const started = vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
        type: 'agentrl',
        request: 'attach',
        name: 'Attach to the paused Ray task',
        ray: { dashboard: cluster.url, job },
      });
      // then the user's job, as `ray job submit` sends it (RAY_DEBUG=1 is Ray's default since 2.39)
      await rc.submit({ submission_id: job, entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${file}`, runtime_env: { env_vars: { RAY_DEBUG: '1' } } });
      assert.strictEqual(await started, true, 'the debug session started');
      url = cluster.url;

      const stop = await until('the session to stop', () => stops[0], 180_000);
      assert.strictEqual(stop.session.type, 'agentrl-ray', 'our own debugpy client (no Python Debugger extension here)');
      const trace = (await stop.session.customRequest('stackTrace', { threadId: stop.threadId, startFrame: 0, levels: 20 })) as { stackFrames: StackFrame[] };
      const user = trace.stackFrames.find((f) => fileOf(f) === file);
      assert.ok(user, `a frame in ${file}: ${JSON.stringify(trace.stackFrames.map((f) => `${f.name} ${f.source?.path}:${f.line}`))}`);
      assert.strictEqual(user.name, 'compute');
      assert.strictEqual(user.line, pauseLine, 'stopped at the breakpoint() line');
      // the editor shows the user's file at that line
      const editor = await until('the editor on the paused line', () =>
        vscode.window.visibleTextEditors.find((e) => e.document.uri.fsPath === file && e.selection.active.line === pauseLine - 1),
      );
      assert.ok(editor);

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
      assert.match(await rc.logs(job), /compute returned 41/);
    } finally {
      tracker.dispose();
    }
  });
});
