// A Ray cluster "on another machine", for tests whose editor is this process (the VS Code
// extension host): the cluster runs in a network namespace of its own, a child of this
// loopback-only one, and this namespace reaches it only through an SSH-tunnel STAND-IN
// (editor-netns.ts: chosen ports of loopback carried over Unix sockets) — the dashboard's port
// and the forwarder's fixed one, as `ssh -L 8267:127.0.0.1:8267 -L 5679:127.0.0.1:5679 head`
// gives a laptop. The workers' debugpy ports and the raylets are out of reach from here.
//
// Run as a script, it is the cluster namespace's first process: the tunnel's far ends, until killed.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tunnelEnds, tunnelStarts } from './editor-netns';
import { startRayCluster, type RayCluster } from './ray-cluster';

export interface RayElsewhere extends RayCluster {
  /** The pid whose /proc/<pid>/ns/net is the cluster's namespace. */
  nsPid: number;
}

const netnsOf = (pid: number | string): string | undefined => {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined; // gone (a zombie has no namespace left either)
  }
};

function processesIn(ns: string, except: number): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === except || netnsOf(d) !== ns) continue;
    try {
      out.push({ pid: Number(d), cmd: fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Kills every process of the namespace but `except`, and waits (bounded) until none is left. */
async function killNamespace(ns: string, except: number, timeoutMs = 15_000): Promise<void> {
  for (let waited = 0; ; waited += 200) {
    const left = processesIn(ns, except);
    if (!left.length) return;
    if (waited > timeoutMs) throw new Error(`still running in the cluster's namespace: ${left.map((p) => `${p.pid} ${p.cmd}`).join('; ')}`);
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts the namespace (and the tunnel), then the cluster in it; `ports`: what the tunnel carries besides the dashboard. */
export async function startRayElsewhere(opts: {
  dashboardPort: number;
  ports: number[];
  profiling?: boolean;
  worker?: boolean;
  dashboardTimeoutMs?: number;
}): Promise<RayElsewhere> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-tun-'));
  const ports = [opts.dashboardPort, ...opts.ports];
  const holder: ChildProcess = spawn(
    'unshare',
    ['-n', 'sh', '-c', `ip link set lo up && exec "${process.execPath}" "${__filename}" "${dir}" ${ports.join(' ')}`],
    {
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // bounded: a namespace that never says `ready` is an error, not a hang
  const ready = await new Promise<boolean | 'late'>((resolve) => {
    let out = '';
    const timer = setTimeout(() => resolve('late'), 30_000);
    holder.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    holder.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  let starts: { close(): void } | undefined;
  const end = () => {
    starts?.close();
    holder.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  if (ready !== true || !holder.pid) {
    end();
    throw new Error(ready === 'late' ? 'the cluster namespace did not start within 30 s' : 'the cluster namespace did not start');
  }
  try {
    starts = await tunnelStarts(dir, ports);
  } catch (e) {
    end();
    throw new Error(`the tunnel stand-in could not listen on 127.0.0.1:${ports.join(', ')}: ${(e as Error).message}`, { cause: e });
  }
  let cluster: RayCluster;
  try {
    cluster = await startRayCluster({
      worker: opts.worker,
      profiling: opts.profiling,
      dashboardPort: opts.dashboardPort,
      dashboardTimeoutMs: opts.dashboardTimeoutMs,
      enter: ['nsenter', `--net=/proc/${holder.pid}/ns/net`, '--'],
    });
  } catch (e) {
    end();
    throw e;
  }
  const ns = netnsOf(holder.pid)!;
  const holderPid = holder.pid;
  return {
    ...cluster,
    nsPid: holderPid,
    stop: async () => {
      try {
        // everything in the cluster's namespace first: the cluster's mark (its environment) misses
        // a Ray process whose title rewrote its environ block (`ray::…`), which lives on a few
        // seconds and writes into the session dir while it is removed (ENOTEMPTY)
        await killNamespace(ns, holderPid);
        await cluster.stop();
      } finally {
        end();
      }
    },
  };
}

if (require.main === module) {
  const [dir, ...ports] = process.argv.slice(2);
  void tunnelEnds(dir, ports.map(Number)).then(() => console.log('ready'));
}
