// When the editor stops a forwarder job (on top of the forwarder ending itself, forwarder.ts):
// decided on each look at the cluster from what the dashboard says of the worker and what the
// forwarder's log says of the session, one look every FORWARDER_LOOK_MS. No vscode: the client
// and the timers are passed in; the adapter (../reach-worker.ts) says what happened.
import type { RayWorker } from '../api/api-types';
import type { RayClient } from '../api/client';
import { forwarderAttached, forwarderEnd, type ForwarderEnd } from './forwarder';

export interface ForwarderLook {
  /** The live workers (the State API's, alive only), or undefined when the dashboard did not answer. */
  workers: RayWorker[] | undefined;
  /** The forwarder job's log, or undefined when it could not be read. */
  log: string | undefined;
  /** The forwarder job's status, or undefined when it could not be read. */
  status: string | undefined;
}

export type ForwarderVerdict =
  | { action: 'keep' }
  /** Stop the job: the worker it serves is gone, or resumed before anyone attached. */
  | { action: 'stop'; why: 'worker-gone' | 'worker-resumed' }
  /** The job has ended by itself: nothing to stop; `end` says why when its log did. */
  | { action: 'ended'; end?: ForwarderEnd };

const TERMINAL = ['FAILED', 'STOPPED', 'SUCCEEDED'];

export function forwarderVerdict(workerId: string, look: ForwarderLook): ForwarderVerdict {
  if (look.status && TERMINAL.includes(look.status)) return { action: 'ended', end: look.log ? forwarderEnd(look.log) : undefined };
  if (!look.workers) return { action: 'keep' }; // the dashboard did not answer this time: look again
  const w = look.workers.find((x) => x.worker_id === workerId);
  if (!w || w.is_alive === false) return { action: 'stop', why: 'worker-gone' };
  // Continuing in the debugger resumes the worker too: only a worker that resumed before any
  // session went through (someone else attached, or it timed out) makes the forwarder useless.
  const attached = look.log !== undefined && forwarderAttached(look.log);
  if (!((w.num_paused_threads ?? 0) > 0) && !attached && look.log !== undefined) return { action: 'stop', why: 'worker-resumed' };
  return { action: 'keep' };
}

/** How often a forwarder's worker is looked at: 3 requests per look, 36 a minute. */
export const FORWARDER_LOOK_MS = 5000;

type ForwarderLookClient = Pick<RayClient, 'workers' | 'logs' | 'job'>;

/**
 * One look at a forwarder job and its worker: 3 dashboard requests (an unanswered one is undefined).
 * The worker first, its forwarder's log after: a worker seen no longer paused because a session
 * just went through (debugpy lets go of `num_paused_threads` once a client attaches) is then
 * always seen with the log line the forwarder printed before that session reached debugpy. Read
 * side by side, the log could be the older of the two and the forwarder stopped under its session.
 */
async function lookAtForwarder(client: ForwarderLookClient, job: string): Promise<ForwarderLook> {
  const workers = await client.workers().catch((): RayWorker[] | undefined => undefined);
  const [log, status] = await Promise.all([
    client.logs(job).catch(() => undefined),
    client.job(job).then(
      (j) => j.status,
      () => undefined,
    ),
  ]);
  return { workers, log, status };
}

/** Timer functions (tests drive them with a fake clock). */
export interface IntervalTimers {
  setInterval(f: () => void, ms: number): unknown;
  clearInterval(h: unknown): void;
}

const realTimers: IntervalTimers = {
  setInterval: (f, ms) => setInterval(f, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>),
};

/**
 * Looks at a forwarder every FORWARDER_LOOK_MS (one look in flight at a time) until the verdict
 * is not 'keep'; then stops looking and hands the verdict over. dispose() stops looking.
 */
export function watchForwarder(
  client: ForwarderLookClient,
  job: string,
  workerId: string,
  onEnd: (v: Exclude<ForwarderVerdict, { action: 'keep' }>, look: ForwarderLook) => Promise<void> | void,
  timers: IntervalTimers = realTimers,
): { dispose(): void } {
  let busy = false;
  let over = false;
  const dispose = () => {
    over = true;
    timers.clearInterval(handle);
  };
  const handle = timers.setInterval(() => {
    if (busy || over) return;
    busy = true;
    void (async () => {
      const look = await lookAtForwarder(client, job);
      const v = forwarderVerdict(workerId, look);
      if (v.action === 'keep' || over) return;
      dispose();
      await onEnd(v, look);
    })().finally(() => (busy = false));
  }, FORWARDER_LOOK_MS);
  return { dispose };
}
