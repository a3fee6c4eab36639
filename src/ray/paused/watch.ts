// Paused tasks seen on the Ray view's refresh, within its request budget: the worker table is
// read at most once per `everyMs` and only while a job runs; a worker newly paused is looked up
// once (its task, its actor, its stack), then kept until it no longer pauses. Which of them
// appeared since the last look is told, for the notification. Pure: the client is passed in.
import type { RayJob } from '../api/api-types';
import type { RayClient } from '../api/client';
import { classifyTracebackError } from '../diagnostics/stacks';
import { findPaused, type PausedPort, type PausedTask } from './paused';

export interface PausedWatchOptions {
  /** The least time between two reads of the worker table (default 10 s: 6 requests a minute). */
  everyMs?: number;
  now?: () => number;
}

const keyOf = (t: { worker_id: string; port: number }) => `${t.worker_id}:${t.port}`;

export class PausedWatch {
  private readonly known = new Map<string, PausedTask>();
  private lastAt = -Infinity;
  /** The Ray version lacks `num_paused_threads` (no worker row has the field). */
  unsupported = false;

  constructor(
    private readonly port: Omit<PausedPort, 'jobs'>,
    private readonly opts: PausedWatchOptions = {},
  ) {}

  /** The paused tasks as last seen, by job. */
  get paused(): PausedTask[] {
    return [...this.known.values()];
  }

  /** Forces the next `check` to read the worker table (a user asked for a refresh, an attach ended). */
  soon(): void {
    this.lastAt = -Infinity;
  }

  /**
   * Reads the worker table when due. Resolves with the tasks newly paused since the last read
   * (empty when not due or none appeared); `paused` holds them all.
   */
  async check(jobs: RayJob[]): Promise<PausedTask[]> {
    const now = (this.opts.now ?? Date.now)();
    const running = jobs.some((j) => j.status === 'RUNNING');
    if (!running) {
      this.known.clear();
      return [];
    }
    if (now - this.lastAt < (this.opts.everyMs ?? 10_000)) return [];
    this.lastAt = now;
    const workers = await this.port.workers();
    this.unsupported = workers.length > 0 && workers.every((w) => w.num_paused_threads === undefined);
    const pausedNow = workers.filter((w) => (w.num_paused_threads ?? 0) > 0 && (w.debugger_port ?? 0) > 0 && w.is_alive !== false);
    const still = new Set(pausedNow.map((w) => keyOf({ worker_id: w.worker_id, port: w.debugger_port! })));
    for (const k of [...this.known.keys()]) if (!still.has(k)) this.known.delete(k);
    // looked up: a worker newly paused, and one whose task the State API did not know yet (no job:
    // a worker reports its pause at once, its task's events reach the State API up to a second
    // later — a watch that looks right then would keep a row under no job, named by its worker)
    const lookUp = pausedNow.filter((w) => {
      const had = this.known.get(keyOf({ worker_id: w.worker_id, port: w.debugger_port! }));
      return !had || had.job === null;
    });
    if (!lookUp.length) return [];
    const found = await findPaused({ ...this.port, workers: () => Promise.resolve(lookUp), jobs: () => Promise.resolve(jobs) });
    const fresh: string[] = [];
    for (const t of found) {
      const had = this.known.get(keyOf(t));
      this.known.set(keyOf(t), { ...t, seen_at: had?.seen_at ?? now });
      if (!had) fresh.push(keyOf(t));
    }
    return fresh.map((k) => this.known.get(k)!);
  }

  /** Whether the worker is still paused at that port (read now, outside the budget: one request, on a user's click). */
  async stillPaused(t: Pick<PausedTask, 'worker_id' | 'port'>): Promise<'paused' | 'resumed' | 'gone'> {
    const w = (await this.port.workers()).find((x) => x.worker_id === t.worker_id);
    if (!w || w.is_alive === false) return 'gone';
    return (w.num_paused_threads ?? 0) > 0 && w.debugger_port === t.port ? 'paused' : 'resumed';
  }
}

/** Paused tasks of a job (its submission id or Ray job id). */
export function pausedOfJob(all: PausedTask[], job: Pick<RayJob, 'submission_id' | 'job_id'>): PausedTask[] {
  return all.filter((t) => t.job !== null && (t.job === job.submission_id || t.job === job.job_id));
}

/** What the watch asks of the dashboard, through the Ray view's client (stacks where profiling is on). */
export function pausedPort(client: Pick<RayClient, 'workers' | 'tasksOfWorker' | 'actors' | 'traceback'>): Omit<PausedPort, 'jobs'> {
  return {
    workers: () => client.workers(),
    tasksOfWorker: (id) => client.tasksOfWorker(id),
    actors: () => client.actors(),
    stack: async (pid, node) => {
      const r = await client.traceback(pid, node);
      return r.status >= 200 && r.status < 300 ? { text: r.body } : { error: classifyTracebackError(r.status, r.body).kind };
    },
  };
}

/**
 * One refresh of the Ray view: the cluster (jobs, nodes, actors…), then its paused tasks within
 * their own budget. Resolves with the tasks newly paused; a failed worker read leaves the refresh whole.
 */
export async function refreshWithPaused(monitor: { refresh(): Promise<{ jobs: RayJob[] }> }, watch: PausedWatch): Promise<PausedTask[]> {
  const s = await monitor.refresh();
  return watch.check(s.jobs).catch(() => []);
}
