// A real Ray cluster for tests: head + worker raylets on this
// machine, inside the loopback-only network namespace the test process runs in (scripts/test.mjs
// starts `*.netns.test.js` files under `unshare -n`). The telemetry packages Ray's dashboard
// needs are STOOD IN by ../shared/fixtures/ray/sitecustomize.py (on PYTHONPATH); everything else
// is Ray 2.58 itself. Teardown kills the Ray processes of this namespace by pid (never
// `ray stop --force`, which would also kill clusters of other namespaces on this machine).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, sharedDir, hasShared } from './paths';
import { sleep } from './wait';

export const rayVenv = path.join(repoRoot, '.cache', 'ray-venv');
export const rayBin = path.join(rayVenv, 'bin', 'ray');
export const telemetryStandIn = path.join(sharedDir, 'fixtures', 'ray');

/** Why Ray tests cannot run here (skip reason), or undefined when they can. */
export function raySkipReason(): string | undefined {
  if (process.env.AGENTRL_NETNS_SKIP) return process.env.AGENTRL_NETNS_SKIP;
  if (!hasShared) return '../shared is missing (Ray telemetry stand-in)';
  if (!fs.existsSync(path.join(rayVenv, '.agentrl-ok'))) return `.cache/ray-venv is not built (scripts/setup.sh ray)`;
  if (!fs.existsSync(path.join(telemetryStandIn, 'sitecustomize.py'))) return 'the Ray telemetry stand-in is missing';
  const ifaces = fs
    .readFileSync('/proc/self/net/dev', 'utf8')
    .split('\n')
    .slice(2)
    .map((l) => l.split(':')[0].trim())
    .filter(Boolean);
  if (ifaces.some((i) => i !== 'lo')) return `not inside a loopback-only network namespace (interfaces: ${ifaces.join(', ')}); run through scripts/test.mjs`;
  return undefined;
}

export interface RayCluster {
  url: string;
  tempDir: string;
  env: NodeJS.ProcessEnv;
  /** The worker raylet's pid (the "GPU node", holding the `gpu_node` resource). */
  workerRayletPid(): number | undefined;
  stop(): Promise<void>;
}

function run(args: string[], env: NodeJS.ProcessEnv, enter: string[] = []): void {
  const [cmd, ...rest] = [...enter, rayBin, ...args];
  const r = spawnSync(cmd, rest, { env, encoding: 'utf8', timeout: 300_000 }); // minutes on a loaded machine
  if (r.status !== 0) throw new Error(`ray ${args.join(' ')} failed (${r.status ?? r.signal}):\n${(r.stdout ?? '') + (r.stderr ?? '')}`.slice(-3000));
}

const netnsOf = (pid: number | string): string | undefined => {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
};

function ancestors(): Set<number> {
  const out = new Set<number>();
  let pid = process.pid;
  while (pid > 1 && !out.has(pid)) {
    out.add(pid);
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return out;
}

/** What a Ray test leaves behind: Ray's daemons and workers (`ray::…` titles), the
 *  stand-in trainer and relay jobs. In the VS Code host the namespace also holds code-server
 *  and Chromium, so teardown kills only these, their children, and whatever carries CLUSTER_MARK. */
export const RAY_PROCESS = /ray-venv|\/arl-ray-|^ray::|\bray::|raylet|gcs_server|standin_trainer|agentrl\.js relay|agentrl_relay\.py/;

/**
 * In the environment of every process the cluster starts (Ray passes its environment down to
 * daemons, workers, job drivers and their children). Names alone miss some: each job's
 * supervisor starts a watcher in a session of its own, `sh -c 'while kill -s 0 <supervisor>;
 * do sleep 1; done; kill -9 -<driver pgid>'` (ray/dashboard/modules/job/job_supervisor.py),
 * and a finished job can leave that watcher's `sleep 1` orphaned — the "2 leftover processes"
 * scripts/test.mjs reported after the e2e (netns) tier.
 */
export const CLUSTER_MARK = 'AGENTRL_RAY_CLUSTER';

interface Proc {
  pid: number;
  ppid: number;
  cmd: string;
  marked: boolean;
}

/** Processes of this network namespace that are not us or our ancestors. */
function netnsProcesses(): Proc[] {
  const mine = netnsOf('self');
  const keep = ancestors();
  const out: Proc[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const pid = Number(d);
    if (keep.has(pid) || netnsOf(pid) !== mine) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const marked = fs
        .readFileSync(`/proc/${pid}/environ`, 'latin1')
        .split('\0')
        .some((e) => e.startsWith(`${CLUSTER_MARK}=`));
      if (cmd) out.push({ pid, ppid, cmd, marked }); // no cmdline: zombies / kernel threads
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Processes of this network namespace that are not us or our ancestors: all of them, or
 *  those matching `only`, those the cluster started (CLUSTER_MARK) and their descendants. */
export function netnsStrays(only?: RegExp): Array<{ pid: number; cmd: string }> {
  const all = netnsProcesses();
  const picked = new Set(all.filter((p) => !only || p.marked || only.test(p.cmd)).map((p) => p.pid));
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!picked.has(p.pid) && picked.has(p.ppid)) {
        picked.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => picked.has(p.pid)).map(({ pid, cmd }) => ({ pid, cmd }));
}

/** Kills every process of this namespace but our ancestry; waits until they are gone. */
export async function killNetnsStrays(only: RegExp = RAY_PROCESS, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = netnsStrays(only);
    if (!left.length) return;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (Date.now() > deadline) throw new Error(`processes survive teardown: ${left.map((p) => `${p.pid} ${p.cmd.slice(0, 80)}`).join('; ')}`);
    await sleep(200);
  }
}

/**
 * A directory of links to every command on `PATH` but `hidden` (the first of each name wins, as
 * PATH lookup does): the PATH of a node that lacks those programs, e.g. a GPU image without Node.
 */
export function pathWithout(hidden: string[], into: string): string {
  fs.mkdirSync(into, { recursive: true });
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      if (hidden.includes(n) || fs.existsSync(path.join(into, n))) continue;
      try {
        fs.symlinkSync(fs.realpathSync(path.join(dir, n)), path.join(into, n));
      } catch {
        /* a dangling link or a race: skip it */
      }
    }
  }
  return into;
}

async function dashboardAnswers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`${url}/api/version`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the Ray dashboard at ${url} did not answer within ${timeoutMs} ms`);
    await sleep(500);
  }
}

/** Starts a head (1 CPU, `head_node`) and optionally a worker (1 CPU, `gpu_node`); `noNode`:
 *  the cluster's processes (so its jobs) find no `node` on PATH, as on a CUDA/Python image;
 *  `profiling`: the dashboard takes stacks (py-spy, from the venv's bin on PATH); `dashboardTimeoutMs`:
 *  how long the dashboard may take to answer after `ray start` (over two minutes on a loaded machine). */
export async function startRayCluster(
  opts: {
    worker?: boolean;
    dashboardPort?: number;
    noNode?: boolean;
    profiling?: boolean;
    dashboardTimeoutMs?: number;
    /** A command prefix that runs `ray start` in another network namespace (`nsenter --net=… --`):
     *  the cluster is then stopped by its mark (CLUSTER_MARK), wherever its processes live. */
    enter?: string[];
  } = {},
): Promise<RayCluster> {
  // short and fixed: Ray's unix socket paths live under it (108-byte limit)
  const tempDir = fs.mkdtempSync('/tmp/arl-ray-');
  const nodeless = opts.noNode ? pathWithout(['node', 'nodejs', 'npm', 'npx', 'corepack'], path.join(tempDir, 'bin')) : undefined;
  const port = opts.dashboardPort ?? 8266;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PYTHONPATH: telemetryStandIn,
    RAY_USAGE_STATS_ENABLED: '0',
    [CLUSTER_MARK]: tempDir, // teardown finds what Ray started by it (see CLUSTER_MARK)
    // node for the relay job (`node .agentrl/agentrl.js relay …`) on the "cluster nodes" — or, with
    // noNode, none at all: the relay job then runs the Python relay
    PATH: nodeless ? `${path.join(rayVenv, 'bin')}:${nodeless}` : `${path.dirname(process.execPath)}:${path.join(rayVenv, 'bin')}:${process.env.PATH}`,
    // notice a killed raylet in ~3 s rather than ~30 s
    RAY_health_check_period_ms: '500',
    RAY_health_check_failure_threshold: '4',
    RAY_health_check_timeout_ms: '500',
    RAY_health_check_initial_delay_ms: '500',
    // the dashboard gives up (and serves nothing) when one of its module processes takes over 30 s
    // to start, as on a loaded machine: "Module MetricsHead failed to start. Timeout after 30.0 seconds"
    RAY_DASHBOARD_SUBPROCESS_MODULE_WAIT_READY_TIMEOUT: '300',
    // the dashboard's stack dumps (`/worker/traceback`, py-spy) answer 403 unless the head has this
    ...(opts.profiling ? { RAY_DASHBOARD_ENABLE_PROFILING: '1' } : {}),
  };
  try {
    run(
      [
        'start',
        '--head',
        '--node-ip-address=127.0.0.1',
        '--port=6390',
        '--dashboard-host=127.0.0.1',
        `--dashboard-port=${port}`,
        '--num-cpus=1',
        '--resources={"head_node": 1}',
        '--disable-usage-stats',
        `--temp-dir=${tempDir}`,
      ],
      env,
      opts.enter,
    );
    if (opts.worker !== false)
      run(
        [
          'start',
          '--address=127.0.0.1:6390',
          '--node-ip-address=127.0.0.1',
          '--num-cpus=1',
          '--resources={"gpu_node": 1}',
          '--disable-usage-stats',
          // two raylets on one host: the second dashboard agent needs its own HTTP port, or Ray
          // reports its address as 127.0.0.1:-1 and the Jobs API cannot read the logs of its jobs
          '--dashboard-agent-listen-port=52366',
        ],
        env,
        opts.enter,
      );
    // `ray start` returns before the dashboard's HTTP server listens on a loaded machine: a
    // connect right away is refused
    // a loaded machine (2 cores shared) can take minutes
    await dashboardAnswers(`http://127.0.0.1:${port}`, opts.dashboardTimeoutMs ?? 180_000);
  } catch (e) {
    await (opts.enter ? killMarked(tempDir) : killNetnsStrays()).catch(() => undefined);
    fs.rmSync(tempDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    throw e;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    tempDir,
    env,
    workerRayletPid: () => netnsStrays().find((p) => /\/raylet\s/.test(p.cmd + ' ') && p.cmd.includes('gpu_node,1'))?.pid,
    stop: async () => {
      await (opts.enter ? killMarked(tempDir) : killNetnsStrays());
      // retried: a Ray process dying under SIGKILL can still finish a write (the metrics
      // discovery file is written beside, then renamed into, the session dir): ENOTEMPTY once
      fs.rmSync(tempDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    },
  };
}

/** The processes a cluster started (their environment carries its CLUSTER_MARK), in any namespace. */
export function markedProcesses(tempDir: string): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(`${CLUSTER_MARK}=${tempDir}`)) continue;
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmd) out.push({ pid: Number(d), cmd });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Kills what a cluster started (markedProcesses) and waits until it is gone. */
async function killMarked(tempDir: string, timeoutMs = 15_000): Promise<void> {
  for (let waited = 0; ; waited += 200) {
    const left = markedProcesses(tempDir);
    if (!left.length) return;
    if (waited > timeoutMs) throw new Error(`still running: ${left.map((p) => `${p.pid} ${p.cmd}`).join('; ')}`);
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await sleep(200);
  }
}
