// The relay as a Ray job of its own, from the same package as the run, pinned to the node that
// writes the job dir, bound to that node's loopback unless asked otherwise; its URL is read back
// from the job's log ("listening on ws://…"). Which relay runs is decided on that node, by the
// job itself: `node .agentrl/agentrl.js relay …` where Node ≥ 18 is installed, else the Python
// relay beside it, `python3 .agentrl/agentrl_relay.py …` (GPU nodes always have Python). Probing
// inside the relay's own job rather than in a probe job first: one job instead of two, no
// second round trip through Ray's job queue, and the answer comes from the very node and
// environment the relay runs in.
import * as net from 'node:net';
import type { RayJob, RayNode, SubmitJobRequest } from '../api/api-types';
import { META } from '../api/api-types';
import { shellQuote } from './entrypoint';

/** Where the CLI goes inside the package. */
export const CLI_IN_PACKAGE = '.agentrl/agentrl.js';
/** The Python relay (dist/agentrl_relay.py) beside it, for nodes without Node. */
export const PY_RELAY_IN_PACKAGE = '.agentrl/agentrl_relay.py';

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

/**
 * The relay's command line for `sh -c` on the node: the Node relay where `node` ≥ 18 runs, else
 * the Python relay on `python3` (or `python`) ≥ 3.8, else a clear error in the job's log.
 */
function relayEntrypoint(args: string[], nodeBin = 'node'): string {
  const rest = args.map(shellQuote).join(' ');
  const node = shellQuote(nodeBin);
  return [
    `if ${node} -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' 2>/dev/null; then exec ${node} ${CLI_IN_PACKAGE} relay ${rest}; fi`,
    `for py in python3 python; do if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 8))' 2>/dev/null; then exec "$py" ${PY_RELAY_IN_PACKAGE} ${rest}; fi; done`,
    `echo 'agentrl relay: this node has neither node >= 18 nor python >= 3.8' >&2; exit 127`,
  ].join('; ');
}

/** A relay job ends itself after this long with no viewer and no new data (its run has ended and
 *  no editor is left to stop it: the reaper only runs while VS Code is connected). */
const RELAY_JOB_IDLE_EXIT_S = 1800;

export function relayJobRequest(o: RelayJobOptions): SubmitJobRequest {
  const args = ['--job-dir', o.jobDir, '--host', o.host ?? '127.0.0.1', '--port', String(o.port ?? 0), '--exit-when-idle', String(RELAY_JOB_IDLE_EXIT_S)];
  // `--run=NAME`: a name starting with '-' would read as an option ("argument is ambiguous").
  if (o.runName) args.push(`--run=${o.runName}`);
  const req: SubmitJobRequest = {
    entrypoint: relayEntrypoint(args, o.nodeBin),
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
  // The IP comes from Ray's API: quoted for the shell it is pasted into, after `--` so it is never an ssh option.
  return `ssh -N -L ${u.port}:127.0.0.1:${u.port} -- ${shellQuote(nodeIp)}`;
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
