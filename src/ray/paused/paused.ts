// Tasks paused at a breakpoint (or post-mortem) on a Ray cluster, found through the dashboard
// alone: the State API's workers with a paused thread and a debugger port, each joined with the
// task it runs (name, job, actor) and, where the dashboard takes stacks (profiling on), the
// user's frame it stopped in. Pure: the client calls are passed in.
import type { RayActor, RayJob, RayTask, RayWorker } from '../api/api-types';
import { parsePySpyDump } from '../diagnostics/stacks';

export interface PausedTask {
  /** The job's submission id when it has one, else its Ray job id. */
  job: string | null;
  /** The task (`compute`) or actor method (`Explorer.explore_step`), or the actor's name. */
  name: string;
  node: string | null;
  ip: string;
  port: number;
  pid: number | null;
  worker_id: string;
  /** Where it stopped: the innermost frame outside Ray, debugpy and the standard library; null without a stack. */
  file: string | null;
  line: number | null;
  /** Paused on an exception (RAY_DEBUG_POST_MORTEM=1) rather than a breakpoint(); null when the stack could not be read. */
  post_mortem: boolean | null;
  /** When the task started (ms since epoch), if Ray said. */
  since: number | null;
  /** When the Ray view first saw it paused (ms since epoch). */
  seen_at?: number;
  /** Why file and line are missing (profiling off, py-spy missing…). */
  stack_error?: string;
}

/** What the finder needs from the dashboard. */
export interface PausedPort {
  workers(): Promise<RayWorker[]>;
  tasksOfWorker(workerId: string): Promise<RayTask[]>;
  actors(): Promise<RayActor[]>;
  jobs(): Promise<RayJob[]>;
  /** `py-spy dump` of the worker, or why not. */
  stack?(pid: number, nodeId: string): Promise<{ text: string } | { error: string }>;
}

/** Frames of these files are the debugger's and Ray's own, not where the user stopped. */
const MACHINERY = /(^|\/)(ray|debugpy|pydevd\w*|_pydevd\w*|_pydev\w*|threading|concurrent|asyncio|runpy)(\/|\.py$)|^<frozen /;

/** The user's frame of a paused worker's stack, and whether it paused post-mortem. */
export function stoppedAt(dump: string): { file: string | null; line: number | null; post_mortem: boolean } {
  const p = parsePySpyDump(dump);
  for (const t of p.threads) {
    const i = t.frames.findIndex((f) => f.func === 'set_trace' || f.func === '_post_mortem');
    if (i < 0) continue;
    const postMortem = t.frames.some((f) => f.func === '_post_mortem');
    const user = t.frames.slice(i + 1).find((f) => !MACHINERY.test(f.file));
    return { file: user?.file ?? null, line: user?.line ?? null, post_mortem: postMortem };
  }
  return { file: null, line: null, post_mortem: false };
}

/** Every paused worker of the cluster (of `job` when given: submission or Ray job id). */
export async function findPaused(port: PausedPort, job?: string): Promise<PausedTask[]> {
  const workers = (await port.workers()).filter((w) => (w.num_paused_threads ?? 0) > 0 && (w.debugger_port ?? 0) > 0 && w.is_alive !== false);
  if (!workers.length) return [];
  const [actors, jobs] = await Promise.all([port.actors(), port.jobs()]);
  const submissionOf = new Map(jobs.filter((j) => j.job_id).map((j) => [j.job_id!, j.submission_id ?? j.job_id!]));
  const out: PausedTask[] = [];
  for (const w of workers) {
    const tasks = await port.tasksOfWorker(w.worker_id);
    // the task it is paused in is the one still running there (the newest, if Ray kept several)
    const running = tasks.filter((t) => t.state === 'RUNNING').sort((a, b) => (b.start_time_ms ?? 0) - (a.start_time_ms ?? 0))[0] ?? tasks[0];
    const actor = actors.find(
      (a) => (running?.actor_id && a.actor_id === running.actor_id) || (w.pid !== undefined && a.pid === w.pid && a.node_id === w.node_id),
    );
    const jobId = running?.job_id ?? actor?.job_id ?? null;
    const jobName = jobId ? (submissionOf.get(jobId) ?? jobId) : null;
    if (job !== undefined && job !== jobName && job !== jobId) continue;
    const name = running?.name ?? running?.func_or_class_name ?? actor?.name ?? actor?.class_name ?? `worker ${w.worker_id.slice(0, 8)}`;
    const t: PausedTask = {
      job: jobName,
      name: actor?.name && running?.name && !running.name.startsWith(actor.name) ? `${actor.name}: ${running.name}` : name,
      node: w.node_id ?? null,
      ip: w.ip ?? '127.0.0.1',
      port: w.debugger_port!,
      pid: w.pid ?? null,
      worker_id: w.worker_id,
      file: null,
      line: null,
      post_mortem: null,
      since: running?.start_time_ms ?? w.start_time_ms ?? null,
    };
    if (port.stack && w.pid !== undefined && w.node_id) {
      const s = await port.stack(w.pid, w.node_id);
      if ('text' in s) Object.assign(t, stoppedAt(s.text));
      else t.stack_error = s.error;
    }
    out.push(t);
  }
  return out;
}

/** Where a person types it: `job · name at file:line (ip:port)`. */
export function pausedLine(t: PausedTask): string {
  const where = t.file ? ` at ${t.file}${t.line !== null ? `:${t.line}` : ''}` : '';
  const why = t.post_mortem ? ' (post-mortem)' : '';
  return `${t.job ?? '(no job)'} · ${t.name}${where}${why} — ${t.ip}:${t.port}, pid ${t.pid ?? '?'}`;
}
