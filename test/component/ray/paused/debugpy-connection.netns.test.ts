// Attaching to paused Ray tasks through our own DAP client, against a REAL Ray 2.58 cluster
// (loopback-only network namespace; only Ray's telemetry packages are stood in for,
// ../shared/fixtures/ray) and the real debugpy in Ray's workers: the Ray view's watch finds the
// task paused at breakpoint() and the actor paused post-mortem, both are attached at once with
// the configuration the view builds, each shows its frame (file:line, locals / the exception),
// `continue` lets the job finish. A worker that went on, and a port that refuses, are told.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { RayClient } from '../../../../src/ray/api/client';
import { classifyTracebackError } from '../../../../src/ray/diagnostics/stacks';
import { OWN_TYPE } from '../../../../src/ray/paused/attach-config';
import { connectDebugpy, DebugpyConnectError, DebugpyConnection, type DapMessage } from '../../../../src/ray/paused/debugpy-connection';
import type { PausedTask } from '../../../../src/ray/paused/paused';
import { reach } from '../../../../src/ray/paused/reach';
import { PausedWatch } from '../../../../src/ray/paused/watch';
import { attachDebugpy, DapSession, type DapFrame } from '../../../harness/dap-session';
import { repoRoot } from '../../../harness/paths';
import { rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip =
  raySkipReason() ??
  (!fs.existsSync(path.join(rayVenv, 'lib')) || spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
    ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
    : undefined);
const jobFile = path.join(repoRoot, 'test', 'fixtures', 'ray', 'paused_job.py');
const lineOf = (marker: string): number =>
  fs
    .readFileSync(jobFile, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(marker)) + 1;
const pauseLine = lineOf('PAUSE-HERE');
/** Where the actor's method raises: the post-mortem's frame. */
const raiseLine = lineOf('RAISE-HERE');

/** Attaches to a paused task on this machine (the Ray view's reach: direct). */
async function attachTo(t: PausedTask, dashboard: string): Promise<{ s: DapSession; stopped: DapMessage; top: DapFrame }> {
  const r = reach({ ip: t.ip, port: t.port }, { dashboard, localAddresses: ['127.0.0.1'] });
  assert.equal(r.kind, 'direct', 'the worker is on this machine');
  if (r.kind !== 'direct') throw new Error('unreachable');
  return attachDebugpy(t, { host: r.host, port: r.port }, repoRoot);
}

let cluster: RayCluster | undefined;
after(async () => {
  await cluster?.stop();
});

test(
  'a breakpoint() task and a post-mortem actor, both attached at once: each stops at its frame, continue lets the job finish',
  { skip, timeout: 600_000 },
  async () => {
    cluster = await startRayCluster({ worker: false, profiling: true });
    const ray = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
    const sub = await ray.submit({
      entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${jobFile}`,
      runtime_env: { env_vars: { RAY_DEBUG: '1', RAY_DEBUG_POST_MORTEM: '1' } },
    });
    // the Ray view's watch, as its refresh runs it (everyMs 0: every call reads the worker table)
    const watch = new PausedWatch(
      {
        workers: () => ray.workers(),
        tasksOfWorker: (id) => ray.tasksOfWorker(id),
        actors: () => ray.actors(),
        stack: async (pid, node) => {
          const r = await ray.traceback(pid, node);
          return r.status === 200 ? { text: r.body } : { error: classifyTracebackError(r.status, r.body).kind };
        },
      },
      { everyMs: 0 },
    );
    const seen: PausedTask[] = [];
    await until(
      'both pause',
      async () => {
        seen.push(...(await watch.check(await ray.jobs())));
        return watch.paused.length === 2 || undefined;
      },
      300_000,
      2000,
    );
    assert.equal(seen.length, 2, 'each paused task is told once');
    const task = watch.paused.find((p) => p.name === 'compute');
    const actor = watch.paused.find((p) => p.name.includes('score'));
    assert.ok(task && actor, `names: ${watch.paused.map((p) => p.name).join(', ')}`);
    assert.equal(task.job, sub.submission_id);

    // both at once: two sessions, one per paused worker
    const [a, b] = await Promise.all([attachTo(task, cluster.url), attachTo(actor, cluster.url)]);

    assert.equal((a.stopped.body as { reason: string }).reason, 'breakpoint');
    assert.deepEqual([a.top.source?.path, a.top.line, a.top.name], [jobFile, pauseLine, 'compute'], 'the task stops at the breakpoint() line');
    const { scopes } = (await a.s.send('scopes', { frameId: a.top.id })) as { scopes: Array<{ name: string; variablesReference: number }> };
    const { variables } = (await a.s.send('variables', { variablesReference: scopes[0].variablesReference })) as {
      variables: Array<{ name: string; value: string }>;
    };
    const locals = Object.fromEntries(variables.map((v) => [v.name, v.value]));
    assert.deepEqual([locals.x, locals.doubled], ['20', '40'], `locals: ${JSON.stringify(locals)}`);

    assert.equal((b.stopped.body as { reason: string }).reason, 'exception', 'the actor stops on its exception');
    const info = await b.s.send('exceptionInfo', { threadId: (b.stopped.body as { threadId: number }).threadId });
    assert.match(String(info.exceptionId), /ZeroDivisionError/);
    assert.deepEqual([b.top.source?.path, b.top.line, b.top.name], [jobFile, raiseLine, 'score'], 'the actor stops at the line that raised');

    for (const x of [a, b]) await x.s.send('continue', { threadId: (x.stopped.body as { threadId: number }).threadId });
    const done = await until(
      'the job finishes',
      async () => {
        const j = await ray.job(sub.submission_id);
        return j.status === 'RUNNING' || j.status === 'PENDING' ? undefined : j;
      },
      120_000,
      1000,
    );
    assert.equal(done.status, 'SUCCEEDED', done.message ?? '');
    const log = await ray.logs(sub.submission_id);
    assert.match(log, /compute returned 41/);
    assert.match(log, /scorer raised RayTaskError\(ZeroDivisionError\)/);

    // detached, the task went on: attaching again is refused with a reason, not a hung session
    for (const x of [a, b]) {
      await x.s.send('disconnect', { terminateDebuggee: false }).catch(() => ({}));
      x.s.conn.dispose();
    }
    assert.notEqual(await watch.stillPaused(task), 'paused');
    await until('no paused task left', async () => (await watch.check(await ray.jobs()), watch.paused.length === 0) || undefined, 60_000, 1000);
  },
);

test('a port that refuses: a clear failure (refused, with the address)', async () => {
  const free = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const err = await connectDebugpy('127.0.0.1', free, 5000, 0).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof DebugpyConnectError, String(err));
  assert.deepEqual([err.failure.kind, err.failure.host, err.failure.port], ['refused', '127.0.0.1', free]);
});

// a stand-in for a worker whose debugpy went away: a port that accepts, then closes at once
test('debugpy closing the connection ends the session (terminated), and a later request is answered', async () => {
  const srv = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    const s = new DapSession(new DebugpyConnection(await connectDebugpy('127.0.0.1', (srv.address() as net.AddressInfo).port)));
    await s.event('terminated');
    await assert.rejects(s.send('threads'), /closed/);
  } finally {
    srv.close();
  }
});

// a stand-in for a forwarder (or a debugpy) that lets go while a request is on its way: it reads
// the editor's `initialize`, then closes without answering — the request is answered (failed,
// "closed") rather than left for the session's start to wait on forever
test('the connection closing while a request is unanswered: that request is answered, then the session ends', async () => {
  const srv = net.createServer((sock) => sock.once('data', () => sock.destroy()));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  try {
    const s = new DapSession(new DebugpyConnection(await connectDebugpy('127.0.0.1', (srv.address() as net.AddressInfo).port)));
    const answered = s.send('initialize', { adapterID: OWN_TYPE, clientID: 'vscode', pathFormat: 'path' }).then(
      () => 'succeeded',
      (e: Error) => e.message,
    );
    const late = new Promise<string>((r) => setTimeout(() => r('no answer in 10 s'), 10_000).unref());
    assert.match(await Promise.race([answered, late]), /^initialize: debugpy closed the connection/);
    await s.event('terminated');
  } finally {
    srv.close();
  }
});
