// The Ray feature's part of activate(): registers its commands and the Ray view's provider
// shim; the implementation (dist/ray-host.js: HTTP client, zip, ws) loads on first use — when
// a command runs or the view is first shown — or right away, off the activation path, when
// clusters are configured or were connected before.
import * as vscode from 'vscode';
import { RAY_ATTACH_FIRST, RAY_WATCH_METRICS } from '../feature-api/commands';
import type { ConfigChecker } from '../feature-api/config-checker';
import { lazyBundle } from '../base/lazy';
import type { Logger } from '../base/log';
import type * as Host from './host';

export interface RayApi {
  /** The loaded host (loads it). */
  host(): Host.RayHost;
}

export function activateRay(context: vscode.ExtensionContext, log: Logger, checker: () => ConfigChecker): RayApi {
  const load = lazyBundle<typeof Host>('ray-host');
  let host: Host.RayHost | undefined;
  const get = (): Host.RayHost => {
    if (!host) {
      host = new (load().RayHost)(context, log, checker, view);
      context.subscriptions.push(host);
    }
    return host;
  };
  const cmd = (id: string, f: (h: Host.RayHost, args?: never) => unknown) => vscode.commands.registerCommand(id, (args?: never) => f(get(), args));
  // The view exists from activation on (contributed in package.json) with a proxy provider:
  // the host (and its real tree) loads when the view first asks for its rows.
  const changed = new vscode.EventEmitter<unknown>();
  let tree: vscode.TreeDataProvider<unknown> | undefined;
  const real = () => {
    if (!tree) {
      tree = get().tree;
      tree.onDidChangeTreeData?.((e) => changed.fire(e));
    }
    return tree;
  };
  const view = vscode.window.createTreeView<unknown>('agentrl.ray', {
    treeDataProvider: { onDidChangeTreeData: changed.event, getChildren: (e) => real().getChildren(e), getTreeItem: (e) => real().getTreeItem(e) },
    showCollapseAll: true,
  });
  context.subscriptions.push(
    view,
    changed,
    cmd('agentrl.ray.connect', (h, a) => load().connect(h, a)),
    cmd('agentrl.ray.disconnect', (h, a) => h.remove((a as { cluster?: string } | undefined)?.cluster ?? [...h.clusters.keys()][0] ?? '')),
    cmd('agentrl.ray.submit', (h, a) => load().submit(h, a)),
    cmd('agentrl.ray.debugSubmit', (h, a) => load().debugSubmit(h, a)),
    cmd('agentrl.ray.stopJob', (h, a) => load().stopJob(h, jobArgs(a))),
    cmd('agentrl.ray.deleteJob', (h, a) => load().deleteJob(h, jobArgs(a))),
    cmd('agentrl.ray.showLogs', (h, a) => {
      const j = jobArgs(a);
      return j.cluster && j.id ? void h.showLogs(j.cluster, j.id) : undefined;
    }),
    RAY_WATCH_METRICS.register(vscode.commands, (a) => load().watchMetrics(get(), watchArgs(a))),
    cmd('agentrl.ray.refresh', (h) => {
      for (const c of h.clusters.values()) c.poller.now();
    }),
    cmd('agentrl.ray.startLocalCluster', (h, a) => load().startLocal(h, a)),
    cmd('agentrl.ray.stopLocalCluster', (h) => load().stopLocal(h)),
    cmd('agentrl.ray.runDemo', (h, a) => load().runDemo(h, a)),
    cmd('agentrl.ray.connectExplorer', (h, a) => load().connectExplorer(h, jobArgs(a))),
    cmd('agentrl.ray.showStacks', (h, a) => load().showStacks(h, diagnoseArgs(a))),
    cmd('agentrl.ray.copyDiagnostics', (h, a) => load().copyDiagnostics(h, diagnoseArgs(a))),
    cmd('agentrl.ray.attach', (h, a) => load().attach(h, attachArgs(a))),
    RAY_ATTACH_FIRST.register(vscode.commands, (a) =>
      a && typeof a.dashboard === 'string'
        ? load().attachFirst(get(), { dashboard: a.dashboard, job: typeof a.job === 'string' ? a.job : undefined })
        : undefined,
    ),
    // our own client to a paused task's debugpy, where the Python Debugger extension is absent
    vscode.debug.registerDebugAdapterDescriptorFactory('agentrl-ray', { createDebugAdapterDescriptor: (session) => load().ownAdapter(session) }),
  );
  const configured = (vscode.workspace.getConfiguration('agentrl.ray').get<unknown[]>('clusters') ?? []).length > 0;
  const saved = (context.workspaceState.get<unknown[]>('agentrl.ray.connected') ?? []).length > 0;
  if (configured || saved) setTimeout(() => get(), 0);
  return { host: get };
}

/** A paused row passes itself (`{cluster, job, task}`); so does the notification's button. */
function attachArgs(a: unknown): { cluster?: string; job?: string; task?: Host.PausedTaskArg } {
  const x = (a ?? {}) as { cluster?: unknown; job?: unknown; task?: { worker_id?: unknown; port?: unknown } };
  const task = x.task && typeof x.task.worker_id === 'string' && typeof x.task.port === 'number' ? (x.task as Host.PausedTaskArg) : undefined;
  return { cluster: typeof x.cluster === 'string' ? x.cluster : undefined, job: typeof x.job === 'string' ? x.job : undefined, task };
}

/** Tree items pass themselves (`{cluster, submissionId}`); commands pass `{cluster, id}`. */
/** A job's args, plus what the metrics view passes when it brings a relay back (its saved revive). */
function watchArgs(a: unknown): { cluster?: string; id?: string; relay?: 'cluster'; replaces?: string } {
  const x = (a ?? {}) as { relay?: unknown; replaces?: unknown };
  const revive = typeof x.replaces === 'string' ? { replaces: x.replaces, relay: x.relay === 'cluster' ? ('cluster' as const) : undefined } : {};
  return { ...jobArgs(a), ...revive };
}

/** A job's args; an actor row (`{type: 'actor', id: <actor>, job}`) names its job and itself. */
function diagnoseArgs(a: unknown): { cluster?: string; id?: string; actor?: string; config?: string } {
  const x = (a ?? {}) as { type?: string; id?: string; job?: string; actor?: string; config?: unknown };
  const config = typeof x.config === 'string' ? x.config : undefined;
  if (x.type === 'actor') return { ...jobArgs({ ...x, id: x.job }), actor: x.id, config };
  return { ...jobArgs(a), actor: typeof x.actor === 'string' ? x.actor : undefined, config };
}

function jobArgs(a: unknown): { cluster?: string; id?: string } {
  const x = (a ?? {}) as { cluster?: string; id?: string; submissionId?: string };
  return { cluster: x.cluster, id: x.submissionId ?? x.id };
}
