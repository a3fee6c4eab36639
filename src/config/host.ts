// The extension-host side of the config language server (bundled to dist/config-host.js
// and loaded only when an RL config is opened): starts dist/server.js, answers its per-folder
// settings requests (adding the folder's Python interpreter and applying Workspace Trust, here
// and only here), forwards file events, and shows the active editor's config kind and
// Trinity-RFT version in the status bar.
import * as vscode from 'vscode';
import { DidChangeConfigurationNotification, LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { Logger } from '../base/log';
import { KIND_LABEL } from './core/kind-label';
import { KindNotification, type KindParams, type ServerSettings } from './lsp/protocol';
import { interpreterFor, onInterpreterChange } from './python-env';
import { shortVersion } from './workspace/trinity-version';

export interface ConfigClient {
  /** The kind the server decided for a document (undefined before it has seen it). */
  kindOf(uri: vscode.Uri): KindParams['kind'] | undefined;
  /** Resolves when the server has reported a kind for the document. */
  waitForKind(uri: vscode.Uri, timeoutMs?: number): Promise<KindParams['kind'] | undefined>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
  readonly statusBar: vscode.StatusBarItem;
}

/** The answer to the server's `workspace/configuration` for one folder (scope). */
async function folderSettings(scope: vscode.Uri | undefined, section: unknown): Promise<Partial<ServerSettings>> {
  const s = (section && typeof section === 'object' ? section : {}) as Partial<ServerSettings>;
  const trusted = vscode.workspace.isTrusted;
  return {
    ...s,
    // reading the workspace's files is harmless, but an untrusted one gets no scan and its
    // interpreter is never run
    scanWorkspace: (s.scanWorkspace ?? true) && trusted,
    probePython: trusted,
    pythonPath: trusted ? ((await interpreterFor(scope)) ?? '') : '',
  };
}

function versionSourceText(t: KindParams['trinity']): string {
  switch (t?.source) {
    case 'modeline':
      return vscode.l10n.t('from the `# agentrl: trinity@…` line of this file');
    case 'installed':
      return vscode.l10n.t('trinity-rft installed in the Python of this workspace ({0})', t.from);
    case 'pin':
      return vscode.l10n.t('pinned in {0}', t.from);
    case 'setting':
      return vscode.l10n.t('from the setting agentrl.config.trinityVersion');
    default:
      return vscode.l10n.t('the newest release known (no installed package, pin or setting found)');
  }
}

export async function startConfigClient(context: vscode.ExtensionContext, log: Logger): Promise<ConfigClient> {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const channel = vscode.window.createOutputChannel(vscode.l10n.t('Agent RL Config Server'), { log: true });
  const watcher = vscode.workspace.createFileSystemWatcher('**/{*.py,*.yaml,*.yml,requirements*.txt,pyproject.toml,setup.cfg,uv.lock}');
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    // configurationSection only makes changes known; the server pulls per folder
    synchronize: { configurationSection: 'agentrl.config', fileEvents: watcher },
    // the server renders diagnostics with VS Code's bundle for the display language (undefined: English)
    initializationOptions: { locale: vscode.env.language, l10nBundle: vscode.l10n.bundle },
    middleware: {
      workspace: {
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) return answers;
          return Promise.all(
            answers.map((a: unknown, i) =>
              params.items[i]?.section === 'agentrl.config'
                ? folderSettings(params.items[i].scopeUri ? vscode.Uri.parse(params.items[i].scopeUri) : undefined, a)
                : a,
            ),
          );
        },
      },
    },
    outputChannel: channel,
    diagnosticCollectionName: 'agentrl-config',
  };
  const client = new LanguageClient('agentrl.config', vscode.l10n.t('Agent RL Config'), serverOptions, clientOptions);

  const kinds = new Map<string, KindParams>();
  const waiters = new Map<string, ((k: KindParams['kind']) => void)[]>();
  const statusBar = vscode.window.createStatusBarItem('agentrl.configKind', vscode.StatusBarAlignment.Right, 100);
  statusBar.name = vscode.l10n.t('Agent RL config kind');
  statusBar.command = 'agentrl.config.selectKind';

  const update = () => {
    const doc = vscode.window.activeTextEditor?.document;
    const k = doc ? kinds.get(doc.uri.toString()) : undefined;
    if (!doc || doc.languageId !== 'yaml' || !k) {
      statusBar.hide();
      return;
    }
    if (k.kind === 'trinity') {
      const t = k.trinity;
      statusBar.text = `$(beaker) ${KIND_LABEL.trinity} ${shortVersion(t?.release ?? k.trinityVersion)}`;
      statusBar.tooltip = vscode.l10n.t(
        'Agent RL: checked as a Trinity-RFT {0} config (decided by {1}). Version {2}: {3}. Click to change the kind.',
        t?.release ?? k.trinityVersion,
        k.by,
        t?.version ?? k.trinityVersion,
        versionSourceText(t),
      );
    } else if (k.kind) {
      statusBar.text = `$(beaker) ${KIND_LABEL[k.kind]}`;
      statusBar.tooltip = vscode.l10n.t('Agent RL: checked as a {0} config (decided by {1}). Click to change.', KIND_LABEL[k.kind], k.by);
    } else {
      statusBar.text = `$(circle-slash) ${vscode.l10n.t('Not an RL config')}`;
      statusBar.tooltip = vscode.l10n.t('Agent RL: this YAML file is not checked. Click to choose a config kind.');
    }
    statusBar.show();
  };

  client.onNotification(KindNotification, (p) => {
    kinds.set(p.uri, p);
    for (const w of waiters.get(p.uri) ?? []) w(p.kind);
    waiters.delete(p.uri);
    update();
  });
  const subs: vscode.Disposable[] = [
    watcher,
    channel,
    statusBar,
    vscode.window.onDidChangeActiveTextEditor(update),
    vscode.workspace.onDidCloseTextDocument((d) => kinds.delete(d.uri.toString())),
    // trust granted or a new interpreter: the server pulls settings again
    vscode.workspace.onDidGrantWorkspaceTrust(() => void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null })),
    onInterpreterChange(() => void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null })),
  ];
  const t0 = Date.now();
  await client.start();
  log.info(`Config language server started in ${Date.now() - t0} ms`);
  update();

  return {
    statusBar,
    kindOf: (uri) => kinds.get(uri.toString())?.kind,
    waitForKind: (uri, timeoutMs = 20000) => {
      const known = kinds.get(uri.toString());
      if (known) return Promise.resolve(known.kind);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        const list = waiters.get(uri.toString()) ?? [];
        list.push((k) => {
          clearTimeout(timer);
          resolve(k);
        });
        waiters.set(uri.toString(), list);
      });
    },
    restart: async () => {
      kinds.clear();
      await client.restart();
    },
    dispose: async () => {
      for (const d of subs) d.dispose();
      await client.stop();
    },
  };
}
