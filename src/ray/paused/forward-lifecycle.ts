// When the editor stops a forwarder job (on top of the forwarder ending itself, forwarder.ts):
// decided on each look at the cluster from what the dashboard says of the worker and what the
// forwarder's log says of the session. Pure: the adapter (../reach-worker.ts) does the looking.
import type { RayWorker } from '../api/api-types';
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
