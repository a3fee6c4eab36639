// Attach Debugger on a paused Ray task: checks it is still paused, works out how the editor
// reaches its debugpy (paused/reach.ts), and starts a debug session — the Python Debugger
// extension's `debugpy` attach when it is installed, else our own `agentrl-ray` type, whose
// inline adapter is a DebugpyConnection opened before the session starts (a refused port is a
// message, not a hung session). One session per paused task; detaching lets the task go on.
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { PausedTask } from './paused/paused';
import { attachConfiguration, DEBUGPY_TYPE, OWN_TYPE, pausedTitle, type AttachConfiguration } from './paused/attach-config';
import { connectDebugpy, DebugpyConnectError, DebugpyConnection } from './paused/debugpy-connection';
import { reach } from './paused/reach';
import { PAUSED_SINCE } from './paused/support';
import { reachWorker, type ReachedWorker } from './reach-worker';
import type { RayHost } from './ray-host';

interface AttachArgs {
  cluster?: string;
  job?: string;
  task?: PausedTask;
}

const PYTHON_DEBUGGER = 'ms-python.debugpy';

/** Sockets opened before their session starts, by the session's `agentrlSocket` key. */
const opened = new Map<string, DebugpyConnection>();
/** Forwarder jobs carrying a session's connection, stopped when the session ends (or never starts). */
const forwarders = new WeakMap<object, ReachedWorker>();
let nextKey = 1;

/** Which client attaches: the Python Debugger extension when installed, else ours. */
function attachClient(): typeof DEBUGPY_TYPE | typeof OWN_TYPE {
  const setting = vscode.workspace.getConfiguration('agentrl.ray').get<string>('attachWith') ?? 'auto';
  if (setting === 'agentrl') return OWN_TYPE;
  return vscode.extensions.getExtension(PYTHON_DEBUGGER) ? DEBUGPY_TYPE : OWN_TYPE;
}

function localAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .filter((a): a is os.NetworkInterfaceInfo => !!a)
    .map((a) => a.address);
}

/** Why an attach cannot start: the worker is not reachable as is, and finding a path failed. */
function forwardText(r: { ip: string; port: number }, why: string): string {
  return vscode.l10n.t('The paused task listens on {0}:{1}, which this editor does not reach, and no forward could be set up: {2}', r.ip, String(r.port), why);
}

/** What the session says when the paused task's debugger connection closes (its console, and the answer to a request it left open). */
const closedText = (why: string | undefined) => vscode.l10n.t('The paused task closed the debugger connection{0}', why ? `: ${why}` : '');

function connectFailureText(e: DebugpyConnectError, t: PausedTask): string {
  const f = e.failure;
  switch (f.kind) {
    case 'refused':
      return vscode.l10n.t(
        'The debugger port {0}:{1} of {2} refuses the connection: the task may have just resumed or its worker exited. Refresh the Ray view.',
        f.host,
        String(f.port),
        t.name,
      );
    case 'timeout':
      return vscode.l10n.t(
        'No answer from the debugger port {0}:{1} of {2} (a firewall, or the address is not reachable from here).',
        f.host,
        String(f.port),
        t.name,
      );
    default:
      return vscode.l10n.t('Cannot connect to the debugger port {0}:{1} of {2}: {3}', f.host, String(f.port), t.name, f.detail);
  }
}

/**
 * The debug configuration that attaches to `t`, its socket already open for our own client; or
 * undefined after telling the user why not (resumed, gone, not reachable, refused).
 */
async function prepareAttach(host: RayHost, cluster: string, t: PausedTask): Promise<AttachConfiguration | undefined> {
  const c = host.get(cluster);
  if (!c) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Not connected to the Ray cluster {0}.', cluster));
    return undefined;
  }
  const state = await c.paused.stillPaused(t).catch((e: Error) => e);
  if (state instanceof Error || state !== 'paused') {
    c.paused.soon();
    c.poller.now();
    void vscode.window.showWarningMessage(
      state === 'resumed'
        ? vscode.l10n.t('{0} is no longer paused: it went on before the debugger attached.', t.name)
        : state === 'gone'
          ? vscode.l10n.t('The worker of {0} has exited: nothing to attach to.', t.name)
          : vscode.l10n.t('Cannot read the Ray workers to check {0}: {1}', t.name, state.message),
    );
    return undefined;
  }
  // Where to connect: the address as is when the editor reaches it (same host, the dashboard's
  // host), else the worker is reached the way reach-worker.ts finds (its node, a forwarder job on
  // that node, or the exact ssh -L to type), and the path taken is said. A worker on loopback
  // behind a dashboard on loopback is asked about too: an SSH tunnel to a one-machine cluster
  // looks like a local cluster (its node's raylet answers from here only when it is local).
  const guess = reach({ ip: t.ip, port: t.port }, { dashboard: c.monitor.client.url, localAddresses: localAddresses() });
  let target: { host: string; port: number; why: string };
  let forwarder: ReachedWorker | undefined;
  if (guess.kind === 'direct' && !(guess.why === 'loopback' && t.node)) target = guess;
  else {
    const r = await reachWorker(host, cluster, t).catch((e: Error) => e);
    if (r instanceof Error) {
      void vscode.window.showErrorMessage(forwardText({ ip: t.ip, port: t.port }, r.message));
      return undefined;
    }
    if (r.via === 'ssh') {
      const copy = vscode.l10n.t('Copy Command');
      void vscode.window.showWarningMessage(r.message, copy).then(async (b) => {
        if (b === copy && r.ssh) await vscode.env.clipboard.writeText(r.ssh);
      });
      return undefined;
    }
    void vscode.window.setStatusBarMessage(r.message, 8000);
    host.log.info(`ray: ${r.message}`);
    target = { host: r.host, port: r.port, why: r.via };
    if (r.via === 'forwarder') forwarder = r;
  }
  const config = await configure(host, c, t, target);
  if (!config) {
    await forwarder?.dispose();
    return undefined;
  }
  if (forwarder) forwarders.set(config, forwarder);
  return config;
}

/** The session's configuration for `t` at `r` (our own client's socket opened first); undefined after saying why not. */
async function configure(
  host: RayHost,
  c: NonNullable<ReturnType<RayHost['get']>>,
  t: PausedTask,
  r: { host: string; port: number; why: string },
): Promise<AttachConfiguration | undefined> {
  const type = attachClient();
  const folder = workspaceFolderOf(t);
  const config = attachConfiguration(
    t,
    { host: r.host, port: r.port },
    { type, name: vscode.l10n.t('Ray: {0}', pausedTitle(t)), localRoot: folder?.uri.fsPath },
  );
  if (type === OWN_TYPE) {
    try {
      const socket = await connectDebugpy(r.host, r.port);
      const key = String(nextKey++);
      opened.set(key, new DebugpyConnection(socket, closedText));
      config.agentrlSocket = key;
    } catch (e) {
      c.paused.soon();
      c.poller.now();
      void vscode.window.showErrorMessage(e instanceof DebugpyConnectError ? connectFailureText(e, t) : (e as Error).message);
      return undefined;
    }
  }
  host.log.info(
    `ray: attaching to ${t.name} at ${r.host}:${r.port} (${r.why}) with ${type === DEBUGPY_TYPE ? 'the Python Debugger extension' : "Agent RL Studio's own debugpy client"}`,
  );
  return config;
}

/** The folder the task's file is in (a job run from the workspace), else the first. */
function workspaceFolderOf(t: PausedTask): vscode.WorkspaceFolder | undefined {
  return (t.file ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(t.file)) : undefined) ?? vscode.workspace.workspaceFolders?.[0];
}

/** The Ray view's Attach Debugger (a paused row, or the notification's button). */
export async function attach(host: RayHost, a: AttachArgs): Promise<boolean> {
  const t = a.task;
  const cluster = a.cluster ?? host.get()?.monitor.client.url;
  if (!t || !cluster) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Pick a paused task in the Ray view to attach to.'));
    return false;
  }
  const config = await prepareAttach(host, cluster, t);
  if (!config) return false;
  const forwarder = forwarders.get(config);
  const ended = forwarder
    ? vscode.debug.onDidTerminateDebugSession((s) => {
        const c = s.configuration as Partial<AttachConfiguration>;
        if (c.name !== config.name || c.connect?.port !== config.connect.port) return;
        ended?.dispose();
        void forwarder.dispose();
      })
    : undefined;
  const started = await vscode.debug.startDebugging(workspaceFolderOf(t), config);
  if (!started) {
    dropOpened(config);
    ended?.dispose();
    await forwarder?.dispose();
    return false;
  }
  void vscode.window.setStatusBarMessage(
    config.type === DEBUGPY_TYPE
      ? vscode.l10n.t('Attached to {0} with the Python Debugger extension', t.name)
      : vscode.l10n.t("Attached to {0} with Agent RL Studio's debugpy client (install the Python Debugger extension for its richer UI)", t.name),
    8000,
  );
  return true;
}

function dropOpened(config: AttachConfiguration) {
  const key = typeof config.agentrlSocket === 'string' ? config.agentrlSocket : undefined;
  if (key) {
    opened.get(key)?.dispose();
    opened.delete(key);
  }
}

/** The inline adapter of an `agentrl-ray` session: its socket opened by prepareAttach, or opened now (a launch.json entry). */
export async function ownAdapter(session: vscode.DebugSession): Promise<vscode.DebugAdapterDescriptor> {
  const cfg = session.configuration as Partial<AttachConfiguration> & { agentrlSocket?: string };
  let conn = cfg.agentrlSocket ? opened.get(cfg.agentrlSocket) : undefined;
  if (cfg.agentrlSocket) opened.delete(cfg.agentrlSocket);
  if (!conn) {
    const target = cfg.connect;
    if (!target?.host || !target.port) throw new Error(vscode.l10n.t('The agentrl-ray attach entry needs "connect": {"host", "port"} of a paused task.'));
    try {
      conn = new DebugpyConnection(await connectDebugpy(target.host, target.port), closedText);
    } catch (e) {
      if (e instanceof DebugpyConnectError)
        throw new Error(
          vscode.l10n.t(
            'Cannot connect to the debugger port {0}:{1} of {2}: {3}',
            e.failure.host,
            String(e.failure.port),
            cfg.rayTask?.name ?? '?',
            e.failure.kind,
          ),
          { cause: e },
        );
      throw e;
    }
  }
  return new vscode.DebugAdapterInlineImplementation(conn);
}

/** A launch.json `agentrl` attach entry's `ray`: the dashboard, and the job whose first pause to attach to. */
export interface AttachFirstArgs {
  dashboard: string;
  job?: string;
}

/**
 * The attach configuration of the first task that pauses in `job` (any job without it) on the
 * cluster at `dashboard` (connected if it was not), waiting with a cancellable notification;
 * tasks already being debugged are skipped. Undefined: cancelled, or told why not.
 */
export async function attachFirst(host: RayHost, a: AttachFirstArgs): Promise<AttachConfiguration | undefined> {
  let entry;
  try {
    entry = host.add(a.dashboard);
  } catch (e) {
    void vscode.window.showErrorMessage((e as Error).message);
    return undefined;
  }
  const url = entry.monitor.client.url;
  const wanted = (t: PausedTask) => (a.job === undefined || t.job === a.job) && !host.debugging(url, t);
  const first = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      cancellable: true,
      title: a.job ? vscode.l10n.t('Waiting for a task of job {0} to pause…', a.job) : vscode.l10n.t('Waiting for a Ray task to pause…'),
    },
    (_p, cancel) =>
      new Promise<PausedTask | undefined>((resolve) => {
        const now = entry.paused.paused.find(wanted);
        if (now) return resolve(now);
        const subs: vscode.Disposable[] = [];
        const done = (t: PausedTask | undefined) => {
          for (const s of subs) s.dispose();
          resolve(t);
        };
        subs.push(
          cancel.onCancellationRequested(() => done(undefined)),
          host.onDidRefresh.event((s) => {
            if (s.url !== url) return;
            const t = entry.paused.paused.find(wanted);
            if (t) done(t);
            else if (entry.paused.unsupported) {
              void vscode.window.showErrorMessage(
                vscode.l10n.t(
                  'This Ray ({0}) does not report paused tasks (no num_paused_threads in its worker table; Ray {1} and later do): nothing to wait for. Upgrade Ray on the cluster.',
                  s.rayVersion ?? '?',
                  PAUSED_SINCE,
                ),
              );
              done(undefined);
            }
          }),
        );
        // the view may be hidden (its slow interval): look every 10 s while waiting
        const look = () => {
          entry.paused.soon();
          entry.poller.now();
        };
        const timer = setInterval(look, 10_000);
        subs.push({ dispose: () => clearInterval(timer) });
        look();
      }),
  );
  return first ? prepareAttach(host, url, first) : undefined;
}
