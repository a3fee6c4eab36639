// Submitting a run: pack the folder, upload the package unless Ray already has that hash,
// POST the job with metadata naming the config, project and run; and starting the run's relay
// job next to it. Pure orchestration over RayClient (the host adds prompts and progress).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SubmitJobRequest } from '../api/api-types';
import { META } from '../api/api-types';
import { RayClient } from '../api/client';
import type { RunInfo } from './entrypoint';
import { withPip } from './debug-run';
import { packWorkspace, type PackedPackage } from './package';
import { CLI_IN_PACKAGE, PY_RELAY_IN_PACKAGE, relayJobRequest, relayUrlFromLog, type RelayJobOptions } from './relay-job';

export interface SubmitOptions {
  folder: string;
  /** The config file (absolute); recorded in the metadata relative to the folder. */
  config?: string;
  info?: RunInfo;
  entrypoint: string;
  limitBytes: number;
  /** dist/agentrl.js, shipped in the package for the relay job (with dist/agentrl_relay.py beside it, when built). */
  cliBundle?: string;
  envVars?: Record<string, string>;
  /** Packages for the run's runtime env `pip` (the debug variant's debugpy). */
  pip?: string[];
  numGpus?: number;
  numCpus?: number;
  resources?: Record<string, number>;
  submissionId?: string;
  onProgress?: (stage: 'pack' | 'upload' | 'submit', detail: string) => void;
  cancelled?: () => boolean;
}

export interface Submitted {
  submissionId: string;
  pkg: Pick<PackedPackage, 'name' | 'uri' | 'bytes' | 'files'>;
  uploaded: boolean;
  request: SubmitJobRequest;
}

/** The relays the package carries: the CLI, and the Python relay built beside it. */
function relayFiles(cliBundle: string | undefined): Array<{ name: string; file: string; mode: number }> {
  if (!cliBundle) return [];
  const py = path.join(path.dirname(cliBundle), 'agentrl_relay.py');
  return [{ name: CLI_IN_PACKAGE, file: cliBundle, mode: 0o755 }, ...(fs.existsSync(py) ? [{ name: PY_RELAY_IN_PACKAGE, file: py, mode: 0o755 }] : [])];
}

async function packAndUpload(
  client: RayClient,
  o: Pick<SubmitOptions, 'folder' | 'limitBytes' | 'cliBundle' | 'onProgress' | 'cancelled'>,
): Promise<{ pkg: PackedPackage; uploaded: boolean }> {
  o.onProgress?.('pack', o.folder);
  const pkg = packWorkspace({
    root: o.folder,
    limitBytes: o.limitBytes,
    extra: relayFiles(o.cliBundle),
    onProgress: (files, bytes) => o.onProgress?.('pack', `${files} files, ${(bytes / 2 ** 20).toFixed(1)} MB`),
    cancelled: o.cancelled,
  });
  let uploaded = false;
  if (!(await client.packageExists(pkg.name))) {
    o.onProgress?.('upload', `${pkg.name} (${(pkg.zip.length / 2 ** 20).toFixed(1)} MB)`);
    await client.uploadPackage(pkg.name, pkg.zip);
    uploaded = true;
  }
  return { pkg, uploaded };
}

function runRequest(o: SubmitOptions, packageUri: string): SubmitJobRequest {
  const metadata: Record<string, string> = { [META.tool]: '1', [META.role]: 'run' };
  if (o.config) metadata[META.config] = path.relative(o.folder, o.config).split(path.sep).join('/');
  if (o.info?.kind) metadata[META.kind] = o.info.kind;
  if (o.info?.project) metadata[META.project] = o.info.project;
  if (o.info?.name) metadata[META.name] = o.info.name;
  if (o.info?.jobDir) metadata[META.jobDir] = o.info.jobDir;
  const req: SubmitJobRequest = { entrypoint: o.entrypoint, runtime_env: { working_dir: packageUri }, metadata };
  if (o.envVars && Object.keys(o.envVars).length) req.runtime_env!.env_vars = o.envVars;
  if (o.submissionId) req.submission_id = o.submissionId;
  if (o.numGpus) req.entrypoint_num_gpus = o.numGpus;
  if (o.numCpus !== undefined) req.entrypoint_num_cpus = o.numCpus;
  if (o.resources && Object.keys(o.resources).length) req.entrypoint_resources = o.resources;
  return withPip(req, o.pip);
}

export async function submitRun(client: RayClient, o: SubmitOptions): Promise<Submitted> {
  const { pkg, uploaded } = await packAndUpload(client, o);
  const request = runRequest(o, pkg.uri);
  o.onProgress?.('submit', o.entrypoint);
  const r = await client.submit(request);
  return { submissionId: r.submission_id, pkg: { name: pkg.name, uri: pkg.uri, bytes: pkg.bytes, files: pkg.files }, uploaded, request };
}

export interface StartedRelay {
  submissionId: string;
  url: string;
}

/** Submits the relay job and waits until it prints its URL (or fails / times out). */
export async function startRelayJob(client: RayClient, o: RelayJobOptions, timeoutMs = 60_000, pollMs = 500): Promise<StartedRelay> {
  const { submissionId, found } = await startListeningJob(client, relayJobRequest(o), relayUrlFromLog, {
    what: 'relay',
    resource: o.resource,
    timeoutMs,
    pollMs,
  });
  return { submissionId, url: found };
}

/**
 * A job that serves something on its node (the relay, the debugger's forwarder): submits it and
 * reads its log until `found` recognises what it printed once listening. A job that ends first
 * throws with the end of its log; one that does not get there in time is stopped, then throws
 * (the error's `submissionId` names the job).
 */
export async function startListeningJob<T>(
  client: Pick<RayClient, 'submit' | 'logs' | 'job' | 'stop'>,
  request: SubmitJobRequest,
  found: (log: string) => T | undefined,
  o: { what: string; resource?: string; timeoutMs?: number; pollMs?: number },
): Promise<{ submissionId: string; found: T; log: string }> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const { submission_id } = await client.submit(request);
  // the thrown error names the job, so the caller can clean up after it
  const fail = (message: string) => Object.assign(new Error(message), { submissionId: submission_id });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await client.logs(submission_id).catch(() => '');
    let hit: T | undefined;
    try {
      hit = found(log);
    } catch (e) {
      throw fail(`the ${o.what} job ${submission_id}: ${(e as Error).message}`);
    }
    if (hit !== undefined) return { submissionId: submission_id, found: hit, log };
    const job = await client.job(submission_id);
    if (['FAILED', 'STOPPED', 'SUCCEEDED'].includes(job.status)) {
      throw fail(`the ${o.what} job ${submission_id} ended ${job.status}: ${job.message ?? ''}\n${log.split('\n').slice(-10).join('\n')}`);
    }
    if (Date.now() > deadline) {
      await client.stop(submission_id).catch(() => undefined);
      throw fail(
        `the ${o.what} job ${submission_id} did not start within ${timeoutMs / 1000} s (status ${job.status}: is the resource ${o.resource ?? '(none)'} available?)`,
      );
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 500));
  }
}
