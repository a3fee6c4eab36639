// "Start a local cluster": a single-node Ray head on this machine, only when the user asks
// (it costs about 1 GB and 10 s). The dashboard stays on loopback. Pure process handling.
import { spawn } from 'node:child_process';

export interface LocalClusterOptions {
  /** The `ray` executable (setting agentrl.ray.rayPath, else `ray` on PATH). */
  ray: string;
  dashboardPort?: number;
  gcsPort?: number;
  numCpus?: number;
  /** Extra resources, e.g. {"gpu_node": 1} so a demo can pin jobs as on a real cluster. */
  resources?: Record<string, number>;
  env?: NodeJS.ProcessEnv;
  tempDir?: string;
}

export function localHeadArgs(o: LocalClusterOptions): string[] {
  const args = [
    'start',
    '--head',
    '--node-ip-address=127.0.0.1',
    '--dashboard-host=127.0.0.1',
    `--dashboard-port=${o.dashboardPort ?? 8265}`,
    `--port=${o.gcsPort ?? 6379}`,
    '--disable-usage-stats',
  ];
  if (o.numCpus !== undefined) args.push(`--num-cpus=${o.numCpus}`);
  if (o.resources) args.push(`--resources=${JSON.stringify(o.resources)}`);
  if (o.tempDir) args.push(`--temp-dir=${o.tempDir}`);
  return args;
}

export interface CommandResult {
  code: number | null;
  output: string;
}

function runRay(ray: string, args: string[], env?: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<CommandResult> {
  return new Promise((resolve) => {
    let output = '';
    let p;
    try {
      p = spawn(ray, args, { env: { ...process.env, RAY_USAGE_STATS_ENABLED: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      return resolve({ code: null, output: (e as Error).message });
    }
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.stdout.on('data', (b: Buffer) => (output += b.toString()));
    p.stderr.on('data', (b: Buffer) => (output += b.toString()));
    p.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, output: output + e.message });
    });
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export async function startLocalCluster(o: LocalClusterOptions): Promise<{ dashboardUrl: string; output: string }> {
  const r = await runRay(o.ray, localHeadArgs(o), o.env);
  if (r.code !== 0) throw new Error(`ray start failed (${r.code ?? 'not started'}): ${r.output.trim().split('\n').slice(-5).join('\n')}`);
  return { dashboardUrl: `http://127.0.0.1:${o.dashboardPort ?? 8265}`, output: r.output };
}

export async function stopLocalCluster(ray: string, env?: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runRay(ray, ['stop'], env);
}
