// How the editor reaches a paused worker's debugpy, decided without ever touching the worker's
// port (forwarder.ts says why): 'direct' when the worker's node is reachable from here (its
// raylet's port answers on the same address debugpy listens on), else 'forwarder' (a forwarder
// job on the worker's node, used when one of its addresses answers our probe from here), else
// 'ssh' (the exact tunnel command; the forwarder job, if one started, is stopped first).
// No vscode: the adapter (../reach-worker.ts) adds messages, settings and the watch.
import { randomBytes } from 'node:crypto';
import * as net from 'node:net';
import type { RayClient } from '../api/client';
import { startListeningJob } from '../submit/submit';
import { forwarderReady, forwarderRequest, probeForwarder, sshCommand } from './forwarder';

export type ReachVia = 'direct' | 'forwarder' | 'ssh';

/** The worker to reach (a row of `agentrl ray paused`: `PausedTask`). */
export interface ReachTarget {
  ip: string;
  port: number;
  pid: number | null;
  node: string | null;
  job?: string | null;
}

/** What was tried before the path taken, for the message that says which path it is. */
export type ReachNote =
  | { step: 'direct'; outcome: 'unreachable' | 'unknown-node' }
  | { step: 'forwarder'; outcome: 'failed'; detail: string }
  | { step: 'forwarder'; outcome: 'unreachable'; addresses: string[] };

export interface Reach {
  host: string;
  port: number;
  via: ReachVia;
  /** With 'ssh': the command that opens the tunnel (then attach to host:port). */
  ssh?: string;
  /** With 'forwarder': its job's submission id. */
  forwarderJob?: string;
  notes: ReachNote[];
  /** Stops the forwarder job (if any) and removes its record once it has ended; idempotent. */
  dispose(): Promise<void>;
}

export type ForwardClient = Pick<RayClient, 'url' | 'submit' | 'logs' | 'job' | 'stop' | 'delete' | 'nodeManagerPort'>;

export interface ReachOptions {
  /** The forwarder's port on its node (0 or unset: any free one). A fixed one can be added to the
   *  dashboard's SSH tunnel once (`-L 5679:127.0.0.1:5679`): then every worker on the head node is reachable. */
  forwardPort?: number;
  /** Seconds the forwarder waits for the debug session before it ends itself. */
  attachWithinS?: number;
  /** How long the forwarder job may take to start (queued included). */
  startTimeoutMs?: number;
  probeTimeoutMs?: number;
  /** Skip the forwarder (the 'ssh' path right after 'direct'). */
  noForwarder?: boolean;
}

const LOOPBACK = /^(127\.|localhost$|::1$|\[::1\]$)/;

/** Whether a TCP connection to host:port succeeds from here (never used on a debugpy port). */
function tcpAnswers(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Where the editor may find a forwarder that listens on `listening` (addresses on its node):
 * a non-loopback address as is; the node's loopback at our own loopback (an SSH tunnel to the
 * node, or the editor running there) and at the dashboard's host (the head node, reached directly).
 */
export function forwarderCandidates(listening: Array<{ host: string; port: number }>, dashboardUrl: string): Array<{ host: string; port: number }> {
  const dash = new URL(dashboardUrl).hostname.replace(/^\[|\]$/g, '');
  const out: Array<{ host: string; port: number }> = [];
  const add = (host: string, port: number) => {
    if (!out.some((c) => c.host === host && c.port === port)) out.push({ host, port });
  };
  for (const l of listening) {
    if (LOOPBACK.test(l.host)) {
      add('127.0.0.1', l.port);
      if (!LOOPBACK.test(dash)) add(dash, l.port);
    } else add(l.host, l.port);
  }
  return out;
}

/** Stops a job and, once Ray says it has ended, deletes its record (best effort, bounded). */
export async function stopAndForget(client: Pick<RayClient, 'stop' | 'job' | 'delete'>, id: string, pollMs = 500, graceMs = 20_000): Promise<void> {
  await client.stop(id).catch(() => undefined);
  for (let waited = 0; waited <= graceMs; waited += pollMs) {
    const j = await client.job(id).catch(() => undefined);
    if (!j || ['FAILED', 'STOPPED', 'SUCCEEDED'].includes(j.status)) {
      if (j) await client.delete(id).catch(() => undefined);
      return;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

export async function reachWorker(client: ForwardClient, w: ReachTarget, o: ReachOptions = {}): Promise<Reach> {
  const notes: ReachNote[] = [];
  const none = () => Promise.resolve();
  // 1. direct: the node's raylet answers on the address debugpy listens on
  const nmPort = w.node ? await client.nodeManagerPort(w.node).catch(() => undefined) : undefined;
  if (nmPort && (await tcpAnswers(w.ip, nmPort, o.probeTimeoutMs))) return { host: w.ip, port: w.port, via: 'direct', notes, dispose: none };
  notes.push({ step: 'direct', outcome: nmPort ? 'unreachable' : 'unknown-node' });
  // 2. a forwarder job on the worker's node
  if (!o.noForwarder) {
    const tag = randomBytes(9).toString('base64url');
    // its id is ours, known before the submit: a submit that fails on our side (the dashboard's
    // answer timed out) may still have started the job, which is then stopped all the same
    const request = {
      ...forwarderRequest({
        targetHost: w.ip,
        targetPort: w.port,
        resource: `node:${w.ip}`,
        bind: ['127.0.0.1', w.ip],
        port: o.forwardPort,
        pid: w.pid ?? undefined,
        attachWithinS: o.attachWithinS,
        tag,
        forJob: w.job ?? undefined,
      }),
      submission_id: `agentrl-forward-${tag}`,
    };
    let id: string | undefined = request.submission_id;
    try {
      const started = await startListeningJob(client, request, forwarderReady, {
        what: 'forwarder',
        resource: `node:${w.ip}`,
        timeoutMs: o.startTimeoutMs ?? 60_000,
      });
      id = started.submissionId;
      const candidates = forwarderCandidates(started.found.listening, client.url);
      for (const c of candidates) {
        if (await probeForwarder(c.host, c.port, tag, o.probeTimeoutMs)) {
          const job = id;
          let disposed: Promise<void> | undefined;
          return { host: c.host, port: c.port, via: 'forwarder', forwarderJob: job, notes, dispose: () => (disposed ??= stopAndForget(client, job)) };
        }
      }
      notes.push({ step: 'forwarder', outcome: 'unreachable', addresses: candidates.map((c) => `${c.host}:${c.port}`) });
    } catch (e) {
      id = (e as { submissionId?: string }).submissionId ?? id;
      notes.push({ step: 'forwarder', outcome: 'failed', detail: (e as Error).message });
    }
    // no orphan: a forwarder nobody can reach is stopped before we fall back
    if (id) await stopAndForget(client, id);
  }
  // 3. an SSH tunnel, straight to the worker's debugpy
  return { host: '127.0.0.1', port: w.port, via: 'ssh', ssh: sshCommand(w.ip, w.port), notes, dispose: none };
}
