// The metrics view's part of activate(): registers commands and the panel serializer, and
// loads the real implementation (dist/metrics-host.js: ws, the store, the relay client) only
// on first use — or right away, off the activation path, when endpoints are configured.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import { asPromise } from '../base/promise';
import type { Logger } from '../base/log';
import { METRICS_VIEW_TYPE } from './protocol/view-protocol';
import type * as Host from './host';
import { readSandboxMarker } from '../workspace-files/sandbox';
import { METRICS_CONNECT, METRICS_EXPLORERS, METRICS_MARK_EVENT } from '../feature-api/commands';
import type { ConfigChecker } from '../feature-api/config-checker';

/** What the extension API exposes of the metrics feature (integration tests use it). */
export interface MetricsApi {
  /** The loaded host (loads it). */
  host(): Host.MetricsHost;
}

export function activateMetrics(context: vscode.ExtensionContext, log: Logger, configChecker?: () => ConfigChecker): MetricsApi {
  const load = lazyBundle<typeof Host>('metrics-host');
  let host: Host.MetricsHost | undefined;
  const get = (): Host.MetricsHost => {
    if (!host) {
      host = load().createMetricsHost(context, log, { configChecker });
      context.subscriptions.push(host);
    }
    return host;
  };
  const cmd = (id: string, f: (h: Host.MetricsHost, args?: never) => unknown) => vscode.commands.registerCommand(id, (args?: never) => f(get(), args));
  context.subscriptions.push(
    cmd('agentrl.metrics.show', (h) => void h.show()),
    METRICS_CONNECT.register(vscode.commands, (a) => load().connect(get(), a)),
    cmd('agentrl.metrics.disconnect', (h, a) => load().disconnect(h, a)),
    cmd('agentrl.metrics.export', (h, a) => load().exportCommand(h, a)),
    cmd('agentrl.metrics.clear', (h, a) => load().clearStored(h, a)),
    cmd('agentrl.metrics.startDemo', (h, a) => load().startDemo(h, a)),
    cmd('agentrl.metrics.debugRollout', (h, a) => load().debugRollout(h, a)),
    cmd('agentrl.metrics.rescore', (h, a) => load().rescoreSteps(h, a)),
    // An online-training commit (src/online): marked on the serve-mode run's charts. Without a
    // loaded view there is nothing to mark, and a commit never loads it.
    METRICS_MARK_EVENT.register(vscode.commands, (m) =>
      host && m?.kind === 'online-commit' && Number.isFinite(m.step) ? host.controller.markCommit(Number(m.step), Number(m.at ?? Date.now()) / 1000) : [],
    ),
    METRICS_EXPLORERS.register(vscode.commands, () => (host ? host.connections.explorers() : [])),
    vscode.window.registerWebviewPanelSerializer(METRICS_VIEW_TYPE, {
      deserializeWebviewPanel: (panel) => asPromise(() => void get().adopt(panel)),
    }),
  );
  // Configured endpoints or saved connections: connect now, but not inside activate().
  const configured = (vscode.workspace.getConfiguration('agentrl.metrics').get<unknown[]>('endpoints') ?? []).length > 0;
  const saved = (context.workspaceState.get<unknown[]>('agentrl.metrics.connections') ?? []).length > 0;
  if (configured || saved) setTimeout(() => get(), 0);
  // The `npm start` sandbox runs a demo: connect the view to it (it shows when opened).
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const demo = folder ? readSandboxMarker(folder)?.demo : undefined;
  if (demo && vscode.workspace.isTrusted) {
    setTimeout(() => void load().connectDemo(get(), demo.jobDir, false), 0);
  }
  return { host: get };
}
