// The relay as a Ray job of its own: `node .agentrl/agentrl.js relay --job-dir …` from the same
// package as the run, pinned to the node that writes the job dir, bound to that node's loopback
// unless asked otherwise; its URL is read back from the job's log ("listening on ws://…").
import * as net from 'node:net';
import type { RayJob, RayNode, SubmitJobRequest } from '../api/api-types';
import { META } from '../api/api-types';
import { shellQuote } from './entrypoint';

/** Where the CLI goes inside the package. */
export const CLI_IN_PACKAGE = '.agentrl/agentrl.js';

export interface RelayJobOptions {
  packageUri: string;
  jobDir: string;
  /** The run's submission id (recorded in the relay job's metadata). */
  forRun: string;
  runName?: string;
  /** A custom resource held only by the node writing the job dir (e.g. `gpu_node`), or `node:<ip>`. */
  resource?: string;
  /** Address to bind on that node (default 127.0.0.1). */
  host?: string;
  port?: number;
  /** Fresh token (sent to the relay through the job's env; required off loopback). */
  token?: string;
  /** The node binary on the cluster nodes. */
  nodeBin?: string;
}

/** A relay job ends itself after this long with no viewer and no new data (its run has ended and
 *  no editor is left to stop it: the reaper only runs while VS Code is connected). */
export const RELAY_JOB_IDLE_EXIT_S = 1800;

export function relayJobRequest(o: RelayJobOptions): SubmitJobRequest {
  const args = ['relay', '--job-dir', o.jobDir, '--host', o.host ?? '127.0.0.1', '--port', String(o.port ?? 0), '--exit-when-idle', String(RELAY_JOB_IDLE_EXIT_S)];
  if (o.runName) args.push('--run', o.runName);
  const req: SubmitJobRequest = {
    entrypoint: [o.nodeBin ?? 'node', CLI_IN_PACKAGE, ...args].map(shellQuote).join(' '),
    runtime_env: { working_dir: o.packageUri, ...(o.token ? { env_vars: { AGENTRL_RELAY_TOKEN: o.token } } : {}) },
    metadata: { [META.tool]: '1', [META.role]: 'relay', [META.forRun]: o.forRun, [META.jobDir]: o.jobDir },
    entrypoint_num_cpus: 0,
  };
  // A sliver of the resource: enough to pin the relay to the node without competing with the run.
  if (o.resource) req.entrypoint_resources = { [o.resource]: 0.001 };
  return req;
}

/** The URL the relay printed in its log, if it has started. */
export function relayUrlFromLog(log: string): string | undefined {
  const m = /agentrl relay: listening on (wss?:\/\/\S+)/.exec(log);
  return m?.[1];
}

/** The resource that pins a job next to `run`: the run's own custom entrypoint resource, else the
 *  `node:<ip>` of the node its driver ran on. */
export function pinResource(run: RayJob, nodes: RayNode[], runResources?: Record<string, number>): string | undefined {
  const custom = Object.keys(runResources ?? {}).find((k) => !['CPU', 'GPU', 'memory', 'object_store_memory'].includes(k));
  if (custom) return custom;
  const node = nodes.find((n) => n.node_id === run.driver_node_id);
  return node ? `node:${node.node_ip}` : undefined;
}

/** The SSH tunnel that makes a relay on `node` reachable from the editor. */
export function tunnelHint(relayUrl: string, nodeIp: string): string {
  const u = new URL(relayUrl);
  return `ssh -N -L ${u.port}:127.0.0.1:${u.port} ${nodeIp}`;
}

/** Whether a TCP connection to the relay's host:port succeeds from here. */
export function reachable(relayUrl: string, timeoutMs = 2000): Promise<boolean> {
  const u = new URL(relayUrl);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port) || 80 });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}
