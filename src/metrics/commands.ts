// The metrics commands' interactive flows. Each also takes arguments (for scripts, keybindings
// and tests) so that no UI is needed: connect({url, token?, name?, run?} | {dir, mode?, name?}),
// disconnect({id}), export({keys, format, file}).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { detectMode, endpointId, forgetConnection, saveConnection, savedConnections, tokenKey } from './endpoints';
import { exportSeriesTo } from './export-files';
import { isRevive, type MetricsConnectArgs } from '../feature-api/commands';
import type { MetricsHost } from './metrics-host';
import { showRemoteRelayInstructions } from './remote-relay';

function untrusted(): boolean {
  if (vscode.workspace.isTrusted) return false;
  void vscode.window.showWarningMessage(vscode.l10n.t('Agent RL: connections to training runs are disabled in an untrusted workspace.'));
  return true;
}

/** "Connect to Training Run…": a relay URL (+ token in SecretStorage) or a local directory. */
export async function connect(host: MetricsHost, args?: MetricsConnectArgs): Promise<string | undefined> {
  if (untrusted()) return undefined;
  let c = args && (args.url || args.dir) ? args : await ask(host.context.extensionPath);
  if (!c) return undefined;
  if (c.url) {
    if (!/^wss?:\/\/./.test(c.url)) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Not a relay URL (ws:// or wss://): {0}', c.url));
      return undefined;
    }
    if (c.token !== undefined) {
      if (c.token) await host.context.secrets.store(tokenKey(c.url), c.token);
      else await host.context.secrets.delete(tokenKey(c.url));
    }
    c = { url: c.url, name: c.name || new URL(c.url).host, run: c.run, revive: isRevive(c.revive) ? c.revive : undefined };
  } else {
    const dir = path.resolve(c.dir!);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Not a directory: {0}', dir));
      return undefined;
    }
    c = { dir, mode: c.mode ?? detectMode(dir), name: c.name || path.basename(dir), run: c.run };
  }
  const saved = { name: c.name!, url: c.url, dir: c.dir, mode: c.mode, run: c.run, revive: c.revive };
  if (typeof args?.replaces === 'string' && args.replaces !== endpointId(saved)) {
    await forgetConnection(host.context.workspaceState, args.replaces);
    // The same job dir behind a new URL: resume where the old relay stopped, no point twice.
    host.store.cursorBook.move(args.replaces, endpointId(saved));
  }
  await saveConnection(host.context.workspaceState, saved);
  await host.reconnect();
  if (args?.reveal !== false) host.show();
  return endpointId(saved);
}

async function ask(extensionPath: string): Promise<MetricsConnectArgs | undefined> {
  type Item = vscode.QuickPickItem & { kind2: 'url' | 'remote' | 'job' | 'logdir' };
  const items: Item[] = [
    {
      kind2: 'url',
      label: '$(plug) ' + vscode.l10n.t('Relay URL…'),
      detail: vscode.l10n.t('A running agentrl relay (ws://host:port/), e.g. through an SSH tunnel'),
    },
    {
      kind2: 'remote',
      label: '$(remote) ' + vscode.l10n.t('Start a relay on a remote node…'),
      detail: vscode.l10n.t('The commands for a GPU node (Python only, or Node), then its URL'),
    },
    {
      kind2: 'job',
      label: '$(folder) ' + vscode.l10n.t('Local job directory…'),
      detail: vscode.l10n.t('A Trinity-RFT job dir on this machine; the extension starts a relay for it'),
    },
    {
      kind2: 'logdir',
      label: '$(folder-library) ' + vscode.l10n.t('TensorBoard log directory…'),
      detail: vscode.l10n.t('Any TensorBoard logdir on this machine'),
    },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Connect to Training Run'),
    placeHolder: vscode.l10n.t('Where are the metrics?'),
  });
  if (!pick) return undefined;
  if (pick.kind2 === 'remote') await showRemoteRelayInstructions(extensionPath);
  if (pick.kind2 === 'url' || pick.kind2 === 'remote') {
    const url = await vscode.window.showInputBox({
      title: vscode.l10n.t('Relay URL'),
      prompt: vscode.l10n.t('The URL `agentrl relay` printed'),
      placeHolder: 'ws://127.0.0.1:8765/',
      validateInput: (v) => (/^wss?:\/\/./.test(v.trim()) ? undefined : vscode.l10n.t('Not a relay URL (ws:// or wss://): {0}', v)),
      ignoreFocusOut: true,
    });
    if (!url) return undefined;
    const token = await vscode.window.showInputBox({
      title: vscode.l10n.t('Relay token'),
      prompt: vscode.l10n.t('The relay token (stored in the secret storage; leave empty for a loopback relay without token)'),
      password: true,
      ignoreFocusOut: true,
    });
    if (token === undefined) return undefined;
    return { url: url.trim(), token: token.trim() };
  }
  const uris = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: vscode.l10n.t('Connect') });
  if (!uris?.[0]) return undefined;
  return { dir: uris[0].fsPath, mode: pick.kind2 };
}

export async function disconnect(host: MetricsHost, args?: { id?: string }): Promise<boolean> {
  const saved = savedConnections(host.context.workspaceState);
  let id = args?.id;
  if (!id) {
    const pick = await vscode.window.showQuickPick(
      saved.map((c) => ({ label: c.name, description: c.url ?? c.dir, id: endpointId(c) })),
      {
        title: vscode.l10n.t('Disconnect Training Run'),
        placeHolder: saved.length ? undefined : vscode.l10n.t('No saved connections (endpoints from settings are edited in settings)'),
      },
    );
    id = pick?.id;
  }
  if (!id) return false;
  await forgetConnection(host.context.workspaceState, id);
  host.store.forgetEndpoint(id);
  await host.reconnect();
  return true;
}

export async function exportCommand(host: MetricsHost, args?: { keys?: string[]; format?: 'csv' | 'json'; file?: string }): Promise<string | undefined> {
  let keys = args?.keys;
  if (!keys) {
    const picks = await vscode.window.showQuickPick(
      host.store.list().map((s) => ({ label: s.tag, description: `${s.run} · ${s.role}`, detail: vscode.l10n.t('{0} points', String(s.length)), key: s.key })),
      { canPickMany: true, title: vscode.l10n.t('Export metrics (full resolution)'), matchOnDescription: true },
    );
    keys = picks?.map((p) => p.key);
  }
  if (!keys?.length) return undefined;
  let format = args?.format;
  if (!format) {
    const f = await vscode.window.showQuickPick(['CSV', 'JSON'], { title: vscode.l10n.t('Format') });
    if (!f) return undefined;
    format = f === 'CSV' ? 'csv' : 'json';
  }
  const uri = await exportSeriesTo(host.store, keys, format, args?.file ? vscode.Uri.file(args.file) : undefined, host.log);
  return uri?.fsPath;
}

export async function clearStored(host: MetricsHost, args?: { confirm?: boolean }): Promise<boolean> {
  if (args?.confirm !== false) {
    const yes = vscode.l10n.t('Clear');
    const r = await vscode.window.showWarningMessage(
      vscode.l10n.t('Delete the stored metrics of this workspace? Connected relays send everything again.'),
      { modal: true },
      yes,
    );
    if (r !== yes) return false;
  }
  await host.connections.set([]);
  host.store.clear();
  host.store.flush();
  host.controller.refresh();
  await host.reconnect();
  return true;
}
