// Attach Debugger from the Ray view when the worker is out of the editor's reach, in the real VS
// Code extension host: a REAL Ray 2.58 cluster runs in a network namespace of its own, which this
// host (itself in a loopback-only namespace, scripts/test.mjs) reaches only through an SSH-tunnel
// STAND-IN carrying the dashboard's port and the forwarder's fixed port
// (`agentrl.ray.debugForwardPort`; test/harness/ray-elsewhere.ts). Only Ray's telemetry packages
// are stood in for. A job pauses at breakpoint(); the paused row's own command (what a click
// runs) starts a forwarder job on the worker's node, the session stops at the user's line; once
// the session ends no forwarder job nor forwarder process is left.
//
// Every wait is bounded (each step's own time box, the whole under mocha's) and a step that runs
// out says which step, what the cluster's jobs and paused workers were at that moment: nothing
// here waits on a promise that may never settle.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentRlApi } from '../../../src/extension';
import { FORWARDER_ROLE, META } from '../../../src/ray/api/api-types';
import { RayClient } from '../../../src/ray/api/client';
import type { RayHost } from '../../../src/ray/host';
import type { Element } from '../../../src/ray/tree';
import { repoRoot } from '../../harness/paths';
import { markedProcesses, rayVenv, raySkipReason } from '../../harness/ray-cluster';
import { startRayElsewhere, type RayElsewhere } from '../../harness/ray-elsewhere';
import { sleep, type Probe } from '../../harness/wait';

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
    s.setTimeout(5000, () => {
      s.destroy();
      resolve(false);
    });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

const t0 = Date.now();
const say = (m: string) => console.log(`      [reach-worker ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

suite('Attach from the Ray view through a forwarder: the worker out of reach (real Ray in a namespace of its own)', function () {
  // the steps' own time boxes add up to less than this: one of them says what it waited for first
  this.timeout(600_000);
  let cluster: RayElsewhere | undefined;
  let rc: RayClient | undefined;
  let ray: RayHost;
  let ws: string;
  let url = '';

  /** The cluster as the dashboard tells it (jobs, their role and status; paused workers), for a timeout's message. */
  async function clusterState(): Promise<string> {
    if (!rc) return '(no cluster)';
    const c = rc;
    const read = async () => {
      const jobs = await c.jobs().catch((e: Error) => e);
      const workers = await c.workers().catch((e: Error) => e);
      const j =
        jobs instanceof Error
          ? `jobs: ${jobs.message}`
          : `jobs: ${jobs.map((x) => `${x.submission_id ?? x.job_id} ${x.status} role=${x.metadata?.[META.role] ?? '-'}${x.message ? ` (${x.message.slice(0, 200)})` : ''}`).join('; ') || 'none'}`;
      const w =
        workers instanceof Error
          ? `workers: ${workers.message}`
          : `paused workers: ${
              workers
                .filter((x) => (x.num_paused_threads ?? 0) > 0)
                .map((x) => `pid ${x.pid} port ${x.debugger_port}`)
                .join('; ') || 'none'
            }`;
      return `${j} · ${w}`;
    };
    return Promise.race([read(), sleep(20_000).then(() => '(the dashboard did not answer in 20 s)')]);
  }

  /** `p`, or an error naming the step and the cluster's state once `ms` have passed (`p` may never settle). */
  async function within<T>(what: string, p: Thenable<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = Symbol('late');
    const r = await Promise.race([Promise.resolve(p), new Promise<typeof late>((resolve) => (timer = setTimeout(() => resolve(late), ms)))]).finally(() =>
      clearTimeout(timer),
    );
    if (r === late) throw new Error(`timed out after ${ms / 1000} s waiting for ${what} — ${await clusterState()}`);
    return r;
  }

  /** Polls `f` until it gives a value; each check and the whole are bounded (a check that never returns is a timeout too). */
  async function until<T>(what: string, f: Probe<T>, timeoutMs: number, everyMs = 250): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      const v = await within(`${what} (a check did not return)`, Promise.resolve().then(f), Math.max(left, 1000));
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} — ${await clusterState()}`);
      await sleep(everyMs);
    }
  }

  /** The forwarder jobs on the cluster, as the dashboard lists them. */
  const forwarders = async () => (await rc!.jobs()).filter((j) => j.metadata?.[META.role] === FORWARDER_ROLE);

  suiteSetup(async function () {
    const why =
      // Out of the default run until its CI failures are understood: in both CI runs of 2026-12-07
      // (clean clones, 2 cores) it failed where it passes here run alone — once no forwarder started
      // within the time box, once the forwarder's Ray job supervisor died before the job ran.
      (process.env.AGENTRL_RAY_FORWARDER_SUITE !== '1' ? 'the forwarder-path suite runs with AGENTRL_RAY_FORWARDER_SUITE=1 (see the comment)' : undefined) ??
      raySkipReason() ??
      (spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
        ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
        : undefined);
    if (why) {
      console.log(`skipped: ${why}`);
      this.skip();
    }
    // startRayElsewhere bounds its own waits (the namespace, ray start, the dashboard)
    cluster = await startRayElsewhere({ dashboardPort: DASHBOARD_PORT, ports: [FORWARD_PORT], profiling: true, worker: false, dashboardTimeoutMs: 180_000 });
    rc = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
    say(`cluster up at ${cluster.url}`);
    const api = await within('the extension to activate', vscode.extensions.getExtension<AgentRlApi>('agentrl.agent-rl-studio')!.activate(), 60_000);
    ray = api.ray.host();
    ws = vscode.workspace.workspaceFolders![0].uri.fsPath;
    fs.mkdirSync(path.join(ws, 'ray-demo'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/paused_job.py'), path.join(ws, 'ray-demo/paused_job.py'));
    await within(
      'the forwarder port setting',
      vscode.workspace.getConfiguration('agentrl.ray').update('debugForwardPort', FORWARD_PORT, vscode.ConfigurationTarget.Workspace),
      30_000,
    );
  });

  suiteTeardown(async () => {
    if (!cluster) return;
    const failedSteps: string[] = [];
    // each step bounded and independent: a failed one does not keep the cluster from being stopped
    const step = async (what: string, f: () => Thenable<unknown>, ms = 30_000) => {
      try {
        await within(what, f(), ms);
      } catch (e) {
        failedSteps.push(`${what}: ${(e as Error).message}`);
      }
    };
    await step('the debug sessions to stop', () => vscode.debug.stopDebugging());
    await step('the forwarder port setting to go', () =>
      vscode.workspace.getConfiguration('agentrl.ray').update('debugForwardPort', undefined, vscode.ConfigurationTarget.Workspace),
    );
    if (url) await step('the disconnect', () => vscode.commands.executeCommand('agentrl.ray.disconnect', { cluster: url }));
    const c = cluster;
    await step('the cluster to stop', () => c.stop(), 60_000);
    const procs = markedProcesses(c.tempDir);
    assert.deepStrictEqual(procs, [], 'no Ray process left');
    assert.deepStrictEqual(failedSteps, [], 'teardown');
  });

  test('the paused row → Attach starts a forwarder job, the session stops at the breakpoint() line; after it ends, no forwarder is left', async () => {
    const file = path.join(ws, 'ray-demo', 'paused_job.py');
    const pauseLine =
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('PAUSE-HERE')) + 1;
    url = (await within(
      'the connect command',
      vscode.commands.executeCommand<string>('agentrl.ray.connect', { url: cluster!.url, name: 'remote cluster' }),
      60_000,
    ))!;
    assert.ok(url, 'connected');
    const job = (await rc!.submit({ entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${file}`, runtime_env: { env_vars: { RAY_DEBUG: '1' } } }))
      .submission_id;
    say(`submitted ${job}`);

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
      'the paused row of compute in the Ray view',
      async () => {
        await ray.refreshNow(url);
        return find(undefined, 3);
      },
      150_000,
      2000,
    );
    assert.ok(row.type === 'paused');
    say(`paused row: ${row.task.ip}:${row.task.port} on node ${row.task.node}`);
    // the worker's debugpy is not reachable from here: only the tunnel's ports are
    assert.strictEqual(await answers(row.task.port), false, `${row.task.ip}:${row.task.port} is out of reach from the editor`);

    const stops: Array<{ session: vscode.DebugSession; threadId: number }> = [];
    let clicked = 0;
    const tracker = vscode.debug.registerDebugAdapterTrackerFactory('agentrl-ray', {
      createDebugAdapterTracker: (session) => ({
        onWillReceiveMessage: (m: { type?: string; command?: string }) => {
          if (m.type === 'request' && m.command === 'initialize') say(`initialize sent ${((Date.now() - clicked) / 1000).toFixed(1)} s after the click`);
        },
        onDidSendMessage: (m: { type?: string; event?: string; body?: { threadId?: number } }) => {
          if (m.type === 'event' && m.event === 'stopped') stops.push({ session, threadId: m.body?.threadId ?? 0 });
        },
      }),
    });
    try {
      // what a click on the row runs
      const item = ray.tree.getTreeItem(row);
      assert.strictEqual(item.command?.command, 'agentrl.ray.attach');
      clicked = Date.now();
      const attached = await within(
        'Attach (the forwarder job to start, the session to begin)',
        vscode.commands.executeCommand<boolean>(item.command.command, ...((item.command.arguments ?? []) as unknown[])),
        150_000,
      );
      say(`attached: ${attached}`);
      assert.strictEqual(attached, true, `attached — ${await clusterState()}`);

      // through a forwarder job on the worker's node, for this run
      const fwd = await forwarders();
      assert.strictEqual(fwd.length, 1, JSON.stringify(fwd));
      assert.strictEqual(fwd[0].status, 'RUNNING');
      assert.strictEqual(fwd[0].metadata?.[META.forRun], job);
      const fwdLog = await rc!.logs(fwd[0].submission_id!);
      say(
        `forwarder ${fwd[0].submission_id}: ${fwdLog
          .split('\n')
          .filter((l) => l.startsWith('agentrl forward: '))
          .join(' | ')}`,
      );

      const stop = await until('the session to stop', () => stops[0], 60_000);
      assert.strictEqual((stop.session.configuration as { connect?: { port?: number } }).connect?.port, FORWARD_PORT, 'the session goes through the forwarder');
      const trace = await within(
        'the stack trace',
        stop.session.customRequest('stackTrace', { threadId: stop.threadId, startFrame: 0, levels: 20 }) as Thenable<{ stackFrames: StackFrame[] }>,
        20_000,
      );
      const user = trace.stackFrames.find((f) => fileOf(f) === file);
      assert.ok(user, `a frame in ${file}: ${JSON.stringify(trace.stackFrames.map((f) => `${f.name} ${f.source?.path}:${f.line}`))}`);
      assert.strictEqual(user.name, 'compute');
      assert.strictEqual(user.line, pauseLine, 'stopped at the breakpoint() line');

      // Continue lets the job finish; ending the session leaves no forwarder behind
      await within('continue', stop.session.customRequest('continue', { threadId: stop.threadId }), 20_000);
      const done = await until(
        'the job to finish',
        async () => {
          const j = await rc!.job(job);
          return j.status === 'RUNNING' || j.status === 'PENDING' ? undefined : j;
        },
        90_000,
        1000,
      );
      assert.strictEqual(done.status, 'SUCCEEDED', done.message ?? '');
      await within('the session to stop', vscode.debug.stopDebugging(stop.session), 20_000);
      await until('no forwarder job', async () => (await forwarders()).length === 0, 30_000, 1000);
      await until('no forwarder process', () => markedProcesses(cluster!.tempDir).every((p) => !/--target-port/.test(p.cmd)), 20_000, 500);
    } finally {
      tracker.dispose();
    }
  });
});
