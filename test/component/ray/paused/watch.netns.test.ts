// The Ray view's dashboard budget with a paused task and a live forwarder, counted against a REAL
// Ray 2.58 cluster (loopback-only network namespace; only Ray's telemetry packages are stood in
// for, ../shared/fixtures/ray): a counting HTTP proxy in front of the dashboard sees every request
// of the view's refresh (ClusterMonitor + Poller, visible: every 3 s), of its paused watch
// (PausedWatch: the worker table at most every 10 s, a newly paused worker looked up once) and of
// the forwarder's watch (watchForwarder: 3 requests every 5 s; the refresh leaves the forwarder's
// log to it). Time is a fake clock: every timer
// of the three is fired by the test, each refresh and look waited for, and the requests are
// counted per simulated minute — the budget is "≤ 150 requests a minute while visible".
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RayClient } from '../../../../src/ray/api/client';
import { ClusterMonitor } from '../../../../src/ray/cluster/monitor';
import { Poller } from '../../../../src/ray/cluster/poller';
import { FORWARDER_LOOK_MS, watchForwarder, type IntervalTimers } from '../../../../src/ray/paused/forward-lifecycle';
import { forwarderReady, forwarderRequest } from '../../../../src/ray/paused/forwarder';
import { stopAndForget } from '../../../../src/ray/paused/forward';
import { findPaused, type PausedTask } from '../../../../src/ray/paused/paused';
import { PausedWatch, pausedPort, refreshWithPaused } from '../../../../src/ray/paused/watch';
import { startListeningJob } from '../../../../src/ray/submit/submit';
import { repoRoot } from '../../../harness/paths';
import { rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip =
  raySkipReason() ??
  (spawnSync(path.join(rayVenv, 'bin', 'python'), ['-c', 'import debugpy']).status !== 0
    ? 'debugpy is not in .cache/ray-venv (scripts/setup.sh ray)'
    : undefined);
const BUDGET_PER_MIN = 150;
const MINUTES = 2;

/** Timers that fire only when the test says so; `now` is the simulated time. */
class FakeClock {
  t = 0;
  private seq = 0;
  readonly timers = new Map<number, { at: number; f: () => void; every?: number; tag: string }>();
  readonly now = () => this.t;
  timeout = (tag: string) => (f: () => void, ms: number) => this.add({ at: this.t + ms, f, tag });
  readonly clear = (h: unknown) => void this.timers.delete(h as number);
  readonly interval: IntervalTimers = {
    setInterval: (f, ms) => this.add({ at: this.t + ms, f, every: ms, tag: 'interval' }),
    clearInterval: this.clear,
  };
  private add(t: { at: number; f: () => void; every?: number; tag: string }): number {
    this.timers.set(++this.seq, t);
    return this.seq;
  }
  has(tag: string): boolean {
    return [...this.timers.values()].some((t) => t.tag === tag);
  }
  /** Moves the clock to the next timer and fires it; false when none is due before `end`. */
  fireNext(end: number): boolean {
    const [id, next] = [...this.timers.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
    if (id === undefined || !next || next.at >= end) return false;
    this.t = next.at;
    if (next.every) next.at += next.every;
    else this.timers.delete(id);
    next.f();
    return true;
  }
}

/** A reverse proxy in front of the dashboard that notes each request's path at the simulated time. */
async function countingProxy(target: string, clock: FakeClock) {
  const seen: Array<{ at: number; method: string; path: string }> = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    seen.push({ at: clock.t, method: req.method ?? '?', path: (req.url ?? '').split('?')[0] });
    const up = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() };
}

let cluster: RayCluster | undefined;
let ray: RayClient;
let task: PausedTask;
let userJob = '';
let forwarderJob = '';
before(async () => {
  if (skip) return;
  cluster = await startRayCluster({ worker: false, profiling: true, dashboardTimeoutMs: 300_000 });
  ray = new RayClient({ url: cluster.url, timeoutMs: 30_000 });
  // the user's job, as `ray job submit` sends it (RAY_DEBUG=1 is Ray's default since 2.39)
  const job = path.join(repoRoot, 'test', 'fixtures', 'ray', 'paused_job.py');
  userJob = (await ray.submit({ entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${job}`, runtime_env: { env_vars: { RAY_DEBUG: '1' } } })).submission_id;
  task = await until('the task to pause at its breakpoint()', async () => (await findPaused(ray, userJob)).find((p) => p.name === 'compute'), 240_000, 1000);
  // a live forwarder for that worker, as the Attach action starts one when the worker is out of reach
  const fwd = await startListeningJob(
    ray,
    forwarderRequest({
      targetHost: task.ip,
      targetPort: task.port,
      resource: `node:${task.ip}`,
      bind: ['127.0.0.1'],
      tag: 'B',
      pid: task.pid!,
      attachWithinS: 900,
      forJob: userJob,
    }),
    forwarderReady,
    { what: 'forwarder', timeoutMs: 120_000 },
  );
  forwarderJob = fwd.submissionId;
});

after(async () => {
  if (forwarderJob) await stopAndForget(ray, forwarderJob).catch(() => undefined);
  if (userJob) await ray.stop(userJob).catch(() => undefined);
  await cluster?.stop();
});

test(
  `the view's refresh, its paused watch and a live forwarder stay within ${BUDGET_PER_MIN} dashboard requests a minute`,
  { skip, timeout: 900_000 },
  async () => {
    const clock = new FakeClock();
    const proxy = await countingProxy(cluster!.url, clock);
    try {
      // the view's pieces, wired as src/ray/ray-host.ts and src/ray/reach-worker.ts wire them, on the proxy
      const monitor = new ClusterMonitor({ url: proxy.url, now: clock.now, timeoutMs: 30_000 });
      const watch = new PausedWatch(pausedPort(monitor.client), { now: clock.now });
      const appeared: PausedTask[] = [];
      let refreshing = false;
      const poller = new Poller(
        async () => {
          refreshing = true;
          try {
            appeared.push(...(await refreshWithPaused(monitor, watch)));
          } finally {
            refreshing = false;
          }
        },
        { visibleMs: 3000, setTimer: clock.timeout('poller'), clearTimer: clock.clear },
      );
      // the forwarder's looks, each waited for (the client is the view's own, passed through)
      let looking = 0;
      const track = <T>(p: Promise<T>) => {
        looking++;
        return p.finally(() => looking--);
      };
      const c = monitor.client;
      const ended: string[] = [];
      const forwarderWatch = watchForwarder(
        { workers: () => track(c.workers()), logs: (j) => track(c.logs(j)), job: (j) => track(c.job(j)) },
        forwarderJob,
        task.worker_id,
        (v) => void ended.push(v.action),
        clock.interval,
      );
      /** Every refresh and look started has finished, and the poller has armed its next one. */
      const settled = () => until('the refresh and the looks to finish', () => !refreshing && looking === 0 && clock.has('poller'), 120_000, 20);

      poller.setVisible(true);
      await settled();
      while (clock.fireNext(MINUTES * 60_000)) await settled();
      poller.stop();
      forwarderWatch.dispose();

      const perMinute = Array.from({ length: MINUTES }, (_, m) => proxy.seen.filter((r) => r.at >= m * 60_000 && r.at < (m + 1) * 60_000));
      const byPath = (rs: typeof proxy.seen) =>
        Object.entries(rs.reduce<Record<string, number>>((o, r) => ({ ...o, [`${r.method} ${r.path}`]: (o[`${r.method} ${r.path}`] ?? 0) + 1 }), {}))
          .map(([k, n]) => `${n} ${k}`)
          .join(', ');
      perMinute.forEach((rs, m) => console.log(`minute ${m + 1}: ${rs.length} dashboard requests (${byPath(rs)})`));

      // what was counted is the view at work: the paused task found and told once, the forwarder looked at and kept
      assert.deepEqual(
        appeared.map((t) => [t.name, t.job, t.port]),
        [['compute', userJob, task.port]],
        'the paused task appears once',
      );
      assert.ok(
        watch.paused.some((t) => t.worker_id === task.worker_id && t.line !== null),
        'its file:line from the stack',
      );
      assert.deepEqual(ended, [], 'the forwarder is kept while its worker stays paused');
      const looksPerMinute = 60_000 / FORWARDER_LOOK_MS;
      for (const [m, rs] of perMinute.entries()) {
        const count = (p: string) => rs.filter((r) => r.path === p).length;
        const looks = count(`/api/jobs/${forwarderJob}`); // the forwarder's status: its watch alone reads it
        const forwarderLogReads = count(`/api/jobs/${forwarderJob}/logs`);
        assert.ok(looks >= looksPerMinute - 1 && looks <= looksPerMinute, `minute ${m + 1}: the forwarder was looked at ${looks} times`);
        // its log read by its own watch only: the view's refresh leaves a forwarder's log alone
        assert.equal(forwarderLogReads, looks, `minute ${m + 1}: the forwarder's log is read ${forwarderLogReads} times in ${looks} looks`);
        // the paused watch's own share: the worker table at most every 10 s, besides the forwarder's looks
        const watchReads = count('/api/v0/workers') - looks;
        assert.ok(watchReads >= 1 && watchReads <= 6, `minute ${m + 1}: the paused watch read the worker table ${watchReads} times`);
        assert.ok(rs.length <= BUDGET_PER_MIN, `minute ${m + 1}: ${rs.length} requests > ${BUDGET_PER_MIN} (${byPath(rs)})`);
      }
    } finally {
      proxy.close();
    }
  },
);
