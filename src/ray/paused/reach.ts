// How the editor reaches a paused worker's debugger port: directly, or only through a forwarder.
// The editor always reaches the dashboard (that is how it sees the cluster); whether it reaches
// a worker's `ip:port` follows from how it reaches the dashboard. Pure: the machine's own
// addresses are passed in. A forwarder (a Ray job pinned to the worker's node, or `ssh -L`)
// plugs in where the answer is `forward` (reach-worker.ts).

/** Where the paused worker's debugpy listens (from the State API's worker row). */
export interface WorkerAddress {
  ip: string;
  port: number;
}

/** How the editor reaches the cluster. */
export interface EditorSide {
  /** The dashboard URL the editor talks to (`http://127.0.0.1:8265` through an SSH tunnel). */
  dashboard: string;
  /** This machine's own interface addresses (`os.networkInterfaces()`), loopback included. */
  localAddresses: readonly string[];
}

export type Reach =
  /** Connect to `host:port` as is. */
  /** `loopback`: the worker and the dashboard both on loopback — this machine's, unless the
   *  dashboard is an SSH tunnel to a one-machine cluster: the Attach action asks (reach-worker.ts). */
  | { kind: 'direct'; host: string; port: number; why: 'same-host' | 'loopback' | 'dashboard-host' | 'routable' }
  /** Not reachable from here: a forwarder must carry `ip:port` (a loopback address on the
   *  worker's node, or the dashboard is reached through a tunnel). */
  | { kind: 'forward'; ip: string; port: number; why: 'worker-loopback' | 'tunnel' };

const LOOPBACK = /^(127\.|::1$|localhost$|0:0:0:0:0:0:0:1$)/i;

function isLoopback(host: string): boolean {
  return LOOPBACK.test(host.replace(/^\[|\]$/g, ''));
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

/**
 * Whether the editor reaches the worker's debugger directly.
 * - the worker listens on an address of this machine (a local cluster, or the editor runs on
 *   a cluster node): direct;
 * - the dashboard is reached at the worker's own address: direct;
 * - the dashboard is reached through loopback but the worker is elsewhere (an SSH tunnel to
 *   :8265, a port-forward): forward;
 * - a worker listening on loopback of another machine: forward;
 * - otherwise the dashboard is reached over the network: the worker's address is assumed
 *   routable the same way (a LAN or VPN), direct.
 */
export function reach(worker: WorkerAddress, editor: EditorSide): Reach {
  const local = new Set(editor.localAddresses.map((a) => a.toLowerCase()));
  const dash = hostOf(editor.dashboard);
  const ip = worker.ip.replace(/^\[|\]$/g, '');
  if (isLoopback(ip)) {
    // the worker's loopback is ours only when the cluster runs here: its dashboard is on our
    // loopback too (a single-node cluster on loopback behind a tunnel looks the same: 'loopback'
    // says to make sure)
    if (isLoopback(dash)) return { kind: 'direct', host: ip, port: worker.port, why: 'loopback' };
    return { kind: 'forward', ip, port: worker.port, why: 'worker-loopback' };
  }
  if (local.has(ip.toLowerCase())) return { kind: 'direct', host: ip, port: worker.port, why: 'same-host' };
  if (dash.toLowerCase() === ip.toLowerCase()) return { kind: 'direct', host: ip, port: worker.port, why: 'dashboard-host' };
  if (isLoopback(dash) || dash === '') return { kind: 'forward', ip, port: worker.port, why: 'tunnel' };
  return { kind: 'direct', host: ip, port: worker.port, why: 'routable' };
}
