// Whether a cluster's Ray can tell us which workers are paused in the debugger: the State API's
// workers carry `debugger_port` and `num_paused_threads` from Ray 2.9 on (null on a worker that
// never paused, absent from the rows of an older Ray), and `breakpoint()` opens debugpy without
// RAY_DEBUG=1 from Ray 2.39 on. Pure.
import type { RayWorker } from '../api/api-types';

/** The first Ray whose workers report `num_paused_threads`. */
export const PAUSED_SINCE = '2.9.0';

function older(v: string, than: string): boolean {
  const a = v.split(/[.+-]/).map((x) => parseInt(x, 10));
  const b = than.split('.').map(Number);
  for (let i = 0; i < b.length; i++) {
    const x = Number.isNaN(a[i]) || a[i] === undefined ? 0 : a[i];
    if (x !== b[i]) return x < b[i];
  }
  return false;
}

export type PausedSupport = { ok: true } | { ok: false; rayVersion: string; since: string };

/** `ok: false` when this Ray cannot list paused workers: its version is older than PAUSED_SINCE, or
 *  (a build that says otherwise) its worker rows lack the field altogether. */
export function pausedSupport(rayVersion: string, workers: RayWorker[]): PausedSupport {
  const lacksField = workers.length > 0 && workers.every((w) => !Object.prototype.hasOwnProperty.call(w, 'num_paused_threads'));
  if (older(rayVersion, PAUSED_SINCE) || lacksField) return { ok: false, rayVersion, since: PAUSED_SINCE };
  return { ok: true };
}
