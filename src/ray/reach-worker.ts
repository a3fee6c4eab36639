// The one call the Attach action makes before it attaches to a paused worker: where to attach
// (direct, through a forwarder job, or through an SSH tunnel whose exact command we give), which
// path that is in the user's words, and a dispose() that stops the forwarder. Each forwarder is
// also watched (one look every few seconds: its worker, its log, its status) and stopped when its
// worker is gone or resumed before anyone attached; all are stopped when the window closes (the
// forwarder also ends itself when the editor's connection drops). Thin: the logic is in paused/.
import * as vscode from 'vscode';
import type { RayClient } from './api/client';
import type { RayHost } from './ray-host';
import { forwarderEnd, type ForwarderEnd } from './paused/forwarder';
import { watchForwarder } from './paused/forward-lifecycle';
import { reachWorker as reach, type Reach, type ReachNote, type ReachTarget } from './paused/forward';

export interface ReachedWorker extends Reach {
  /** Which path was taken, and why not the ones before it (localized). */
  message: string;
}

const live = new Set<ReachedWorker>();
let stopsOnClose = false;

function noteText(n: ReachNote): string {
  if (n.step === 'direct')
    return n.outcome === 'unreachable'
      ? vscode.l10n.t('the worker’s node is not reachable from here')
      : vscode.l10n.t('the dashboard did not say how to check the worker’s node');
  if (n.outcome === 'failed') return vscode.l10n.t('the forwarder job did not start: {0}', n.detail);
  return vscode.l10n.t('the forwarder runs but is not reachable from here at {0}', n.addresses.join(', '));
}

function pathMessage(r: Reach, w: ReachTarget): string {
  const why = r.notes.map(noteText).join('; ');
  switch (r.via) {
    case 'direct':
      return vscode.l10n.t('Attaching directly to {0}:{1}.', w.ip, String(w.port));
    case 'forwarder':
      return vscode.l10n.t(
        'Attaching through a forwarder job ({0}) on the worker’s node, at {1}:{2} ({3}).',
        r.forwarderJob ?? '',
        r.host,
        String(r.port),
        why,
      );
    case 'ssh':
      return vscode.l10n.t(
        'The worker {0}:{1} cannot be reached from here ({2}). Open this SSH tunnel, then attach to {3}:{4}: {5}',
        w.ip,
        String(w.port),
        why,
        r.host,
        String(r.port),
        r.ssh ?? '',
      );
  }
}

/** Why the forwarder ended, in the user's words (undefined: a normal end). */
function endMessage(end: ForwarderEnd | undefined, w: ReachTarget): string | undefined {
  switch (end?.kind) {
    case 'refused':
      return vscode.l10n.t(
        'The worker’s debugger port {0}:{1} refused the connection: the task has resumed or its worker has exited. Refresh the Ray view.',
        w.ip,
        String(w.port),
      );
    case 'worker-gone':
      return vscode.l10n.t('The worker (pid {0}) has exited: its forwarder was stopped.', String(w.pid ?? '?'));
    case 'nobody-attached':
      return vscode.l10n.t('Nobody attached through the forwarder in time: it was stopped. Attach again from the Ray view.');
    case 'failed':
      return vscode.l10n.t('The forwarder failed: {0}', end.detail);
    default:
      return undefined;
  }
}

/** Where to attach to worker `w` of the cluster at `cluster` (a `PausedTask` row will do). */
export async function reachWorker(host: RayHost, cluster: string, w: ReachTarget & { worker_id: string }): Promise<ReachedWorker> {
  const entry = host.get(cluster);
  if (!entry) throw new Error(vscode.l10n.t('Not connected to the Ray cluster {0}.', cluster));
  const client = entry.monitor.client;
  const cfg = vscode.workspace.getConfiguration('agentrl.ray');
  const r = await reach(client, w, { forwardPort: cfg.get<number>('debugForwardPort') ?? 0 });
  const message = pathMessage(r, w);
  host.log.info(`ray: reach ${w.ip}:${w.port} via ${r.via}${r.forwarderJob ? ` (${r.forwarderJob})` : ''}`);
  if (r.via !== 'forwarder' || !r.forwarderJob) return { ...r, message };
  let watching: { dispose(): void } | undefined;
  const reached: ReachedWorker = {
    ...r,
    message,
    dispose: () => {
      watching?.dispose();
      live.delete(reached);
      return r.dispose();
    },
  };
  live.add(reached);
  if (!stopsOnClose) {
    stopsOnClose = true;
    host.context.subscriptions.push({ dispose: stopAll });
  }
  watching = watch(host, client, r.forwarderJob, w, reached);
  return reached;
}

function watch(host: RayHost, client: RayClient, job: string, w: ReachTarget & { worker_id: string }, reached: ReachedWorker): { dispose(): void } {
  return watchForwarder(client, job, w.worker_id, async (v, look) => {
    await reached.dispose();
    const end: ForwarderEnd | undefined = v.action === 'ended' ? v.end : v.why === 'worker-gone' ? { kind: 'worker-gone', detail: '' } : undefined;
    const text = endMessage(end ?? (look.log ? forwarderEnd(look.log) : undefined), w);
    host.log.info(`ray: forwarder ${job} ${v.action === 'stop' ? `stopped (${v.why})` : 'ended'}`);
    if (text) void vscode.window.showWarningMessage(text);
  });
}

/** The window closes: stop every forwarder still up (each also ends itself once its session's connection drops). */
function stopAll(): void {
  for (const r of [...live]) void r.dispose();
}
