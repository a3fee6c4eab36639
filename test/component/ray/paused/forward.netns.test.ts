// Against a REAL Ray 2.58 cluster (loopback-only network namespace; only Ray's telemetry packages
// are stood in for, ../shared/fixtures/ray) with a task paused at breakpoint(): the editor, in a
// network namespace of its own that reaches the cluster only through an SSH-tunnel STAND-IN to the
// dashboard (test/harness/editor-netns.ts), cannot reach the worker's debugpy; reachWorker starts
// a forwarder job on the worker's node, and DAP `initialize` through it is answered by the
// worker's debugpy. Without a tunnel to the forwarder it says which `ssh -L` to open instead. In
// every case the forwarder job is gone afterwards, and so is its process; a port that refuses and
// a worker that dies end the forwarder with a reason; attached through the forwarder as VS Code
// attaches, the editor stops at the breakpoint() line and the job finishes once continued. The
// paused task is submitted the way "Debug on Ray Cluster…" does: a probe job asks the cluster
// for debugpy first.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { META } from '../../../../src/ray/api/api-types';
import { RayClient } from '../../../../src/ray/api/client';
import { forwarderEnd, forwarderReady, forwarderRequest } from '../../../../src/ray/paused/forwarder';
import { reachWorker, stopAndForget } from '../../../../src/ray/paused/forward';
import { findPaused, type PausedTask } from '../../../../src/ray/paused/paused';
import { runProbeJob } from '../../../../src/ray/diagnostics/trinity-probe';
import { debugpyProbeRequest, debugRun, parseDebugpyProbe, type DebugpyProbe } from '../../../../src/ray/submit/debug-run';
import { startListeningJob, submitRun, type Submitted } from '../../../../src/ray/submit/submit';
import { runEditorSide, tunnelEnds } from '../../../harness/editor-netns';
import { repoRoot } from '../../../harness/paths';
import { netnsStrays, rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip =
  raySkipReason() ??
  (spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
    ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
    : undefined);
const jobFile = path.join(repoRoot, 'test', 'fixtures', 'ray', 'paused_job.py');
const pauseLine =
  fs
    .readFileSync(jobFile, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('PAUSE-HERE')) + 1;
const FORWARD_PORT = 5679;
const FORWARDER_PROCESS = /--target-port/;
/** The forwarders' processes in this namespace (netnsStrays(re) also lists all the cluster started). */
const forwarderProcesses = () => netnsStrays().filter((p) => FORWARDER_PROCESS.test(p.cmd));

let cluster: RayCluster | undefined;
let ray: RayClient;
let task: PausedTask;
let dir: string;
let probed: DebugpyProbe;
let submitted: Submitted;
before(async () => {
  if (skip) return;
  cluster = await startRayCluster({ worker: false, dashboardTimeoutMs: 300_000 });
  ray = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
  dir = fs.mkdtempSync('/tmp/arl-fwd-');
  // "Debug on Ray Cluster…"'s way: ask the cluster for debugpy, then submit with the debug env
  const probe = await runProbeJob(ray, debugpyProbeRequest(), parseDebugpyProbe, { timeoutMs: 180_000 });
  assert.ok('answer' in probe, JSON.stringify(probe));
  probed = probe.answer;
  const d = debugRun('trinity', `${path.join(rayVenv, 'bin', 'python')} ${path.basename(jobFile)}`, undefined, {}, probed.debugpy);
  submitted = await submitRun(ray, { folder: path.dirname(jobFile), entrypoint: d.entrypoint, envVars: d.envVars, pip: d.pip, limitBytes: 2 ** 20 });
  const sub = { submission_id: submitted.submissionId };
  task = await until(
    'the task to pause at its breakpoint()',
    async () => (await findPaused(ray, sub.submission_id)).find((p) => p.name === 'compute'),
    240_000,
    2000,
  );
});
after(async () => {
  await cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test(
  'the debug variant on the real cluster: the probe job finds debugpy and Ray’s version, so the run goes without pip, with RAY_DEBUG=1, and its task pauses',
  { skip },
  async () => {
    assert.deepEqual(probed, { debugpy: true, ray: '2.58.0' });
    assert.deepEqual(submitted.request.runtime_env?.env_vars, { RAY_DEBUG: '1' });
    assert.equal(submitted.request.runtime_env?.pip, undefined);
    assert.equal(task.job, submitted.submissionId);
    assert.ok(!(await ray.jobs()).some((j) => j.metadata?.[META.role] === 'probe'), 'the probe job’s record was removed');
  },
);

const forwardersRunning = async () =>
  (await ray.jobs()).filter((j) => j.metadata?.[META.role] === 'forwarder' && !['FAILED', 'STOPPED', 'SUCCEEDED'].includes(j.status));

test(
  'from the editor’s namespace (only the dashboard tunnelled): the worker is out of reach, a forwarder job reaches it, debugpy answers initialize through it, and the forwarder is gone afterwards',
  { skip, timeout: 300_000 },
  async () => {
    const port = Number(new URL(cluster!.url).port);
    const tunnel = await tunnelEnds(dir, [port, FORWARD_PORT]);
    try {
      const r = await runEditorSide({ dir, ports: [port, FORWARD_PORT], dashboard: cluster!.url, worker: task, forwardPort: FORWARD_PORT, dap: 'initialize' });
      const step = (s: string) => r.lines.find((l) => l.step === s);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(step('direct')?.reachable, false, 'the worker’s debugpy port is not reachable from the editor’s namespace');
      assert.equal(step('reach')?.via, 'forwarder', JSON.stringify(step('reach')));
      assert.deepEqual([step('reach')?.host, step('reach')?.port], ['127.0.0.1', FORWARD_PORT]);
      assert.deepEqual(
        (step('reach')?.notes as Array<{ step: string; outcome: string }>).map((n) => `${n.step}:${n.outcome}`),
        ['direct:unreachable'],
        'the dashboard named the node’s raylet port, and it did not answer from there',
      );
      assert.deepEqual(step('initialize'), { step: 'initialize', success: true, command: 'initialize' }, 'the worker’s debugpy answered through the forwarder');
      assert.equal(step('ended')?.status, 'SUCCEEDED', String(step('ended')?.log));
      assert.deepEqual(forwarderEnd(String(step('ended')?.log)), { kind: 'session-ended' });
      assert.equal(step('disposed')?.left, false, 'dispose() removed the ended forwarder’s record');
    } finally {
      tunnel.close();
    }
    assert.deepEqual(await forwardersRunning(), []);
    assert.deepEqual(forwarderProcesses(), [], 'no forwarder process is left on the node');
  },
);

test('no tunnel to the forwarder: the exact `ssh -L` to the worker, and the forwarder that started is stopped', { skip, timeout: 300_000 }, async () => {
  const port = Number(new URL(cluster!.url).port);
  const tunnel = await tunnelEnds(dir, [port]);
  try {
    const r = await runEditorSide({ dir, ports: [port], dashboard: cluster!.url, worker: task });
    assert.equal(r.code, 0, r.stderr);
    const reach = r.lines.find((l) => l.step === 'reach');
    assert.equal(reach?.via, 'ssh', JSON.stringify(reach));
    assert.equal(reach?.ssh, `ssh -N -L ${task.port}:127.0.0.1:${task.port} -- 127.0.0.1`);
    assert.deepEqual(
      (reach?.notes as Array<{ step: string; outcome: string }>).map((n) => `${n.step}:${n.outcome}`),
      ['direct:unreachable', 'forwarder:unreachable'],
    );
  } finally {
    tunnel.close();
  }
  assert.deepEqual(await forwardersRunning(), []);
  await until('the stopped forwarder’s process to end', () => forwarderProcesses().length === 0, 30_000, 200);
});

test('in the cluster’s own namespace the worker’s node answers: direct, no job started', { skip, timeout: 120_000 }, async () => {
  // Jobs started from here on (the list may still grow by a job the test before submitted: a
  // loaded machine saw 3 jobs before and 4 after, the one added older than this test).
  const since = Date.now();
  const r = await reachWorker(ray, task);
  assert.deepEqual([r.via, r.host, r.port, r.notes], ['direct', task.ip, task.port, []]);
  const started = (await ray.jobs()).filter((j) => (j.start_time ?? 0) >= since);
  assert.deepEqual(
    started.map((j) => `${j.submission_id} ${j.entrypoint}`),
    [],
  );
});

test(
  'a port that refuses: the session is closed and the forwarder ends saying so; a worker that dies ends its forwarder',
  { skip, timeout: 300_000 },
  async () => {
    // a target nobody listens on (the port of a server that has closed)
    const refused = await startListeningJob(
      ray,
      forwarderRequest({ targetHost: '127.0.0.1', targetPort: 1, resource: 'node:127.0.0.1', bind: ['127.0.0.1'], tag: 'R' }),
      forwarderReady,
      { what: 'forwarder', timeoutMs: 120_000 },
    );
    const net = await import('node:net');
    const at = refused.found.listening[0];
    await new Promise<void>((resolve) => {
      const s = net.connect({ host: at.host, port: at.port }, () => s.write('Content-Length: 2\r\n\r\n{}'));
      s.on('close', () => resolve()).on('error', () => undefined);
    });
    const log = await until(
      'the refusing forwarder to end',
      async () => ((await ray.job(refused.submissionId)).status === 'FAILED' ? ray.logs(refused.submissionId) : undefined),
      60_000,
      500,
    );
    assert.equal(forwarderEnd(log)?.kind, 'refused', log);
    await stopAndForget(ray, refused.submissionId);

    // the paused worker dies before anyone attached: its forwarder (which watches its pid) ends
    const watching = await startListeningJob(
      ray,
      forwarderRequest({ targetHost: task.ip, targetPort: task.port, resource: `node:${task.ip}`, bind: ['127.0.0.1'], tag: 'W', pid: task.pid! }),
      forwarderReady,
      { what: 'forwarder', timeoutMs: 120_000 },
    );
    process.kill(task.pid!, 'SIGKILL');
    const wlog = await until(
      'the forwarder to notice',
      async () => ((await ray.job(watching.submissionId)).status === 'SUCCEEDED' ? ray.logs(watching.submissionId) : undefined),
      60_000,
      500,
    );
    assert.equal(forwarderEnd(wlog)?.kind, 'worker-gone', wlog);
    await stopAndForget(ray, watching.submissionId);
    assert.deepEqual(await forwardersRunning(), []);
  },
);

test(
  'attached through the forwarder as VS Code attaches: the editor stops at the breakpoint() line, continue lets the job finish, the forwarder ends with the session',
  { skip, timeout: 420_000 },
  async () => {
    // a task paused afresh, submitted the same way, once the first job is stopped (its task,
    // retried after the kill above, would hold the cluster's one CPU)
    await ray.stop(submitted.submissionId);
    await until(
      'the first job to stop',
      async () => ['STOPPED', 'FAILED', 'SUCCEEDED'].includes((await ray.job(submitted.submissionId)).status) || undefined,
      60_000,
      500,
    );
    const d = debugRun('trinity', `${path.join(rayVenv, 'bin', 'python')} ${path.basename(jobFile)}`, undefined, {}, probed.debugpy);
    const again = await submitRun(ray, { folder: path.dirname(jobFile), entrypoint: d.entrypoint, envVars: d.envVars, pip: d.pip, limitBytes: 2 ** 20 });
    const paused = await until(
      'the new task to pause at its breakpoint()',
      async () => (await findPaused(ray, again.submissionId)).find((p) => p.name === 'compute'),
      240_000,
      2000,
    );
    const port = Number(new URL(cluster!.url).port);
    const tunnel = await tunnelEnds(dir, [port, FORWARD_PORT]);
    try {
      const r = await runEditorSide({
        dir,
        ports: [port, FORWARD_PORT],
        dashboard: cluster!.url,
        worker: paused,
        forwardPort: FORWARD_PORT,
        dap: 'attach',
        localRoot: path.dirname(jobFile),
      });
      const step = (s: string) => r.lines.find((l) => l.step === s);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(step('reach')?.via, 'forwarder', JSON.stringify(step('reach')));
      const at = step('attached');
      assert.deepEqual(
        [at?.reason, path.basename(String(at?.path)), at?.line, at?.name],
        ['breakpoint', 'paused_job.py', pauseLine, 'compute'],
        `where the editor stopped: ${JSON.stringify(at)}`,
      );
      assert.ok(step('continued'), r.stderr);
      assert.deepEqual(forwarderEnd(String(step('ended')?.log)), { kind: 'session-ended' }, String(step('ended')?.log));
      assert.equal(step('disposed')?.left, false);
    } finally {
      tunnel.close();
    }
    const done = await until(
      'the job to finish',
      async () => {
        const j = await ray.job(again.submissionId);
        return ['SUCCEEDED', 'FAILED', 'STOPPED'].includes(j.status) ? j : undefined;
      },
      120_000,
      1000,
    );
    assert.equal(done.status, 'SUCCEEDED', done.message ?? '');
    assert.match(await ray.logs(again.submissionId), /compute returned 41/);
    assert.deepEqual(await forwardersRunning(), []);
    assert.deepEqual(forwarderProcesses(), [], 'no forwarder process is left on the node');
  },
);
