// What the diagnostics of a run are gathered from, over the dashboard only (no SSH, no Python on
// our side): the run's actors (its Ray namespace, else its job id), their py-spy stacks and the
// driver's, the task table, the autoscaler report, each actor's and the driver's last log lines.
// A part that fails is recorded as failed; the rest is still gathered. No vscode.
import type { RayActor, RayJob, RayNode, RayTask } from '../api/api-types';
import { runNamespace } from '../api/api-types';
import type { RayClient } from '../api/client';
import { actorLabel, stacksReport, type StacksReport, type TakenStack } from './stacks';

/** Ray's own actors (the job supervisor): not part of the run. */
const RAY_INTERNAL = (a: RayActor) => (a.name ?? '').startsWith('_ray_internal') || a.class_name === 'JobSupervisor';

/** Dumps taken at once: py-spy pauses each process for a moment, nodes answer in parallel. */
const CONCURRENCY = 4;
/** A run with hundreds of workflow runners: the first this many are dumped. */
const MAX_STACKS = 64;

/** The run's actors: its Trinity namespace when it has one, else those of its job id. */
export async function runActors(client: RayClient, job: RayJob): Promise<RayActor[]> {
  const ns = runNamespace(job);
  const all = ns ? await client.actors(ns) : (await client.actors()).filter((a) => !!job.job_id && a.job_id === job.job_id);
  return all.filter((a) => !RAY_INTERNAL(a));
}

/** The driver as a pseudo-actor, so its stack and log sit with the actors'. */
function driverActor(job: RayJob): RayActor | undefined {
  const pid = Number(job.driver_info?.pid);
  if (!Number.isInteger(pid) || pid <= 0 || !job.driver_node_id) return undefined;
  return {
    actor_id: 'driver',
    name: 'driver',
    class_name: 'job driver',
    state: job.status === 'RUNNING' ? 'ALIVE' : job.status,
    pid,
    node_id: job.driver_node_id,
  };
}

async function pool<T, R>(items: T[], n: number, f: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await f(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

export interface CollectedStacks {
  actors: RayActor[];
  tasks: RayTask[];
  report: StacksReport;
  /** How many live actors were left out (over MAX_STACKS). */
  skipped: number;
}

/** The stacks of every live actor of the run and of its driver (`only`: of that actor alone).
 *  Throws only when the dashboard is unreachable. */
export async function collectStacks(client: RayClient, job: RayJob, opts: { actors?: RayActor[]; only?: string } = {}): Promise<CollectedStacks> {
  const list = opts.actors ?? (await runActors(client, job));
  const live = list.filter((a) => a.state === 'ALIVE' && a.pid && a.node_id && (!opts.only || a.actor_id === opts.only));
  const driver = opts.only ? undefined : driverActor(job);
  const targets = [...(driver && job.status === 'RUNNING' ? [driver] : []), ...live].slice(0, MAX_STACKS);
  const tasks = job.job_id ? await client.tasks(job.job_id).catch((): RayTask[] => []) : [];
  const taken: TakenStack[] = await pool(targets, CONCURRENCY, async (actor) => ({ actor, ...(await client.traceback(actor.pid!, actor.node_id!)) }));
  return { actors: list, tasks, report: stacksReport(taken, tasks, list), skipped: Math.max(0, live.length + (driver ? 1 : 0) - targets.length) };
}

export interface RoleLog {
  /** `driver (job log)`, `explorer (Explorer) stderr`, … */
  title: string;
  lines: string[];
}

const LOG_LINES = 50;

const lastLines = (text: string, n: number): string[] => {
  const lines = text.split(/\r?\n/);
  while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
  return lines.slice(-n);
};

/** The last LOG_LINES lines of the driver's log and of each actor's stdout and stderr (empty ones left out). */
export async function collectLogs(client: RayClient, job: RayJob, actors: RayActor[], maxActors = 16): Promise<RoleLog[]> {
  const out: RoleLog[] = [];
  const id = job.submission_id ?? job.job_id;
  if (id) {
    const text = await client.logs(id).catch((e: Error) => `(the job log could not be read: ${e.message})`);
    out.push({ title: 'driver (job log)', lines: lastLines(text, LOG_LINES) });
  }
  const logs = await pool(actors.filter((a) => a.node_id).slice(0, maxActors), CONCURRENCY, async (a) => {
    const one = async (suffix: 'out' | 'err'): Promise<RoleLog> => ({
      title: `${actorLabel(a)} ${suffix === 'out' ? 'stdout' : 'stderr'}`,
      lines: lastLines(await client.actorLog(a.actor_id, suffix, LOG_LINES).catch((e: Error) => `(could not be read: ${e.message})`), LOG_LINES),
    });
    return [await one('err'), await one('out')];
  });
  for (const l of logs.flat()) if (l.lines.length) out.push(l);
  return out;
}

export interface ClusterFacts {
  rayVersion?: string;
  status?: string;
  nodes: RayNode[];
  errors: string[];
}

/** Versions and resources, as `ray status` gives them. */
export async function collectCluster(client: RayClient): Promise<ClusterFacts> {
  const errors: string[] = [];
  const note = (what: string) => (e: Error) => {
    errors.push(`${what}: ${e.message}`);
    return undefined;
  };
  const rayVersion = (await client.version().catch(note('version')))?.ray_version;
  const status = await client.clusterStatus().catch(note('cluster status'));
  const nodes = (await client.nodes().catch(note('nodes'))) ?? [];
  return { rayVersion, status, nodes, errors };
}

/** Trinity's version as the run shows it: pinned in the job's runtime env, or printed in its log. */
export function trinityVersion(job: RayJob, log: string): string | undefined {
  const pip = job.runtime_env?.pip;
  const pins = Array.isArray(pip) ? pip : (pip as { packages?: unknown } | undefined)?.packages;
  for (const p of Array.isArray(pins) ? pins : []) {
    const m = typeof p === 'string' ? p.match(/^trinity[-_]rft\s*==\s*([\w.+-]+)/i) : null;
    if (m) return m[1];
  }
  return log.match(/trinity[-_ ]rft[\s=:v]+(\d+\.\d+(?:\.\d+)?\S*)/i)?.[1];
}
