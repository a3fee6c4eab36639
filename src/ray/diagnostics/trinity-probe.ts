// Which Trinity-RFT the cluster runs, asked of the cluster itself: a tiny Ray job (no CPUs
// reserved, so it starts beside a busy run) in the run's Python environment prints the version
// of the installed trinity-rft distribution, or that there is none. Used when the run neither
// pins the version in its runtime env nor prints it in its log. No vscode.
import { silentLogger, type Logger } from '../../base/log';
import type { RayJob, SubmitJobRequest } from '../api/api-types';
import { isTerminal, META } from '../api/api-types';
import type { RayClient } from '../api/client';

const MARK = 'AGENTRL_TRINITY_VERSION=';

/** The probe's command: python3 with the package metadata (importlib.metadata, Python >= 3.8). */
export const TRINITY_PROBE_ENTRYPOINT =
  `python3 -c "import importlib.metadata as m; ` +
  `v = [d.version for d in m.distributions() if (d.metadata['Name'] or '').lower().replace('_', '-') == 'trinity-rft']; ` +
  `print('${MARK}' + (v[0] if v else ''))"`;

/** The runtime-env keys that choose the Python a job runs in (not its files or environment variables). */
const PYTHON_ENV_KEYS = ['pip', 'uv', 'conda', 'py_executable'];

export function trinityProbeRequest(run: RayJob): SubmitJobRequest {
  const env: Record<string, unknown> = {};
  for (const k of PYTHON_ENV_KEYS) if (run.runtime_env?.[k] !== undefined) env[k] = run.runtime_env[k];
  return {
    entrypoint: TRINITY_PROBE_ENTRYPOINT,
    entrypoint_num_cpus: 0,
    ...(Object.keys(env).length ? { runtime_env: env } : {}),
    metadata: { [META.tool]: '1', [META.role]: 'probe', [META.forRun]: run.submission_id ?? run.job_id ?? '' },
  };
}

/** What the probe printed: the version, `null` when trinity-rft is not installed, undefined when it printed no answer. */
export function parseTrinityProbe(log: string): string | null | undefined {
  const lines = log.split(/\r?\n/).filter((l) => l.startsWith(MARK));
  if (!lines.length) return undefined;
  const v = lines[lines.length - 1].slice(MARK.length).trim();
  return v ? v : null;
}

export type TrinityProbe = { installed: true; version: string } | { installed: false } | { error: string };

export interface ProbeOptions {
  /** How long the probe job may take (queued included). */
  timeoutMs?: number;
  pollMs?: number;
  /** How long a stopped probe job may take to end before its record is left (and logged). */
  stopGraceMs?: number;
  /** Waits `ms` (tests pass one that advances a fake clock). */
  sleep?: (ms: number) => Promise<void>;
  /** Where a job record that could not be deleted is reported. */
  log?: Logger;
}

/**
 * Runs the probe job on the run's cluster, waits for it, reads its answer and deletes the job;
 * one that does not finish in time is stopped, then deleted once it has ended, so probes do not
 * pile up in the user's job list. A failed delete is logged, never thrown: the answer (or the
 * timeout) is what the caller asked for.
 */
export async function probeTrinityVersion(
  client: Pick<RayClient, 'submit' | 'job' | 'logs' | 'stop' | 'delete'>,
  run: RayJob,
  o: ProbeOptions = {},
): Promise<TrinityProbe> {
  const r = await runProbeJob(client, trinityProbeRequest(run), parseTrinityProbe, o);
  if ('error' in r) return r;
  return r.answer === null ? { installed: false } : { installed: true, version: r.answer };
}

/** A probe job: submitted, waited for, its answer read from its log by `parse` (undefined: none),
 *  and its record deleted (see probeTrinityVersion). */
export async function runProbeJob<T>(
  client: Pick<RayClient, 'submit' | 'job' | 'logs' | 'stop' | 'delete'>,
  request: SubmitJobRequest,
  parse: (log: string) => T | undefined,
  o: ProbeOptions = {},
): Promise<{ answer: T } | { error: string }> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pollMs = o.pollMs ?? 1000;
  const log = o.log ?? silentLogger;
  const { submission_id: id } = await client.submit(request);
  let last: RayJob | undefined;
  try {
    for (let waited = 0; ; waited += pollMs) {
      last = await client.job(id);
      if (isTerminal(last.status)) break;
      if (waited >= (o.timeoutMs ?? 60_000)) {
        const status = last.status;
        last = await stopAndWait(client, id, pollMs, o.stopGraceMs ?? 30_000, sleep, log);
        return { error: `the probe job ${id} did not finish in ${Math.round((o.timeoutMs ?? 60_000) / 1000)} s (${status})` };
      }
      await sleep(pollMs);
    }
    const answer = parse(await client.logs(id));
    if (answer === undefined) return { error: `the probe job ${id} ended ${last.status} without an answer${last.message ? `: ${last.message}` : ''}` };
    return { answer };
  } finally {
    // Ray deletes only an ended job's record; one still running after the grace is left to the user.
    if (last && isTerminal(last.status)) await client.delete(id).catch((e: Error) => log.warn(`ray: could not delete the probe job ${id}: ${e.message}`));
    else if (last) log.warn(`ray: the probe job ${id} was stopped but is still ${last.status}: its record is left in the job list`);
  }
}

/** Stops the job and polls it until it has ended or `graceMs` passed; its last status (undefined when it could not be read). */
async function stopAndWait(
  client: Pick<RayClient, 'job' | 'stop'>,
  id: string,
  pollMs: number,
  graceMs: number,
  sleep: (ms: number) => Promise<void>,
  log: Logger,
): Promise<RayJob | undefined> {
  try {
    await client.stop(id);
    for (let waited = 0; ; waited += pollMs) {
      const job = await client.job(id);
      if (isTerminal(job.status) || waited >= graceMs) return job;
      await sleep(pollMs);
    }
  } catch (e) {
    log.warn(`ray: could not stop the probe job ${id}: ${(e as Error).message}`);
    return undefined;
  }
}
