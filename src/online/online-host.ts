// The online-training feature's state in the window, created by its host bundle (host.ts,
// dist/online-host.js) on first use: the connection to one serve-mode explorer, the playground
// panel, and "Insert Online-Training Client". Thin glue: the logic lives in the pure modules.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../base/log';
import { METRICS_EXPLORERS, METRICS_MARK_EVENT, type RunEventMark } from '../feature-api/commands';
import { ONLINE_VIEW_TYPE, parseWebviewMessage } from './protocol/playground-protocol';
import { ConversationStore } from './playground/conversations';
import { assessUrl } from './explorer/discover';
import { ExplorerClient, ExplorerGeneration, normalizeExplorerUrl } from './explorer/explorer-client';
import { FeedbackOutbox } from './explorer/outbox';
import { playgroundHtml } from './playground-html';
import { PlaygroundController } from './playground/playground-controller';
import { servedModelTokenizer } from './playground/served-tokenizer';
import type { SnippetKind } from './playground/snippets';
import { askExplorerUrl, fromPathOrUrl, insertClient, pickTools } from './pickers';
import { describeError, playgroundTexts } from './strings';

const LAST_URL_KEY = 'agentrl.online.lastUrl';
const METRICS_POLL_MS = 5000;

export interface Connection {
  client: ExplorerClient;
  models: string[];
  generation: ExplorerGeneration;
}

export class OnlineHost implements vscode.Disposable {
  connection: Connection | undefined;
  readonly controller: PlaygroundController;
  readonly outbox: FeedbackOutbox;
  panel: vscode.WebviewPanel | undefined;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly log: Logger,
  ) {
    const dir = onlineDir(context);
    this.outbox = new FeedbackOutbox(
      path.join(dir, 'feedback.json'),
      (e) => new ExplorerClient(e.explorerUrl, { timeoutMs: 15_000 }).feedback(e),
      () => this.controller?.pushState(),
    );
    this.controller = new PlaygroundController(
      (m) => void this.panel?.webview.postMessage(m),
      this.outbox,
      new ConversationStore(path.join(dir, 'conversations')),
      playgroundTexts(),
      {},
      (model) => servedModelTokenizer(model, vscode.workspace.getConfiguration('agentrl.online').get<string>('tokenizer', '')),
    );
    this.controller
      .on('commit', (step, url) => {
        log.info(`online: committed at ${url}, explore step ${step}`);
        void markOnMetrics({ kind: 'online-commit', explorerUrl: url, step, at: Date.now() });
      })
      .on('pickTools', () => void this.pickTools())
      .on('connect', () => void this.connect());
  }

  /** Tests and other features: told after each commit. */
  onCommit(l: (step: number, url: string) => void): vscode.Disposable {
    this.controller.on('commit', l);
    return { dispose: () => this.controller.off('commit', l) };
  }

  /** Connects to `arg` (a URL, a job dir, a *_server_url.txt), or asks. Returns the connection. */
  async connect(arg?: string | { url?: string; skipWarning?: boolean }): Promise<Connection | undefined> {
    const given = typeof arg === 'string' ? arg : arg?.url;
    const raw = given ? fromPathOrUrl(given) : await this.askUrl();
    if (!raw) return undefined;
    let url: string;
    try {
      url = normalizeExplorerUrl(raw);
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Not an explorer URL: {0}', String((e as Error).message)));
      return undefined;
    }
    const risk = assessUrl(url);
    if (risk.exposed && !(typeof arg === 'object' && arg.skipWarning)) {
      const go = vscode.l10n.t('Connect anyway');
      const copy = vscode.l10n.t('Copy SSH tunnel command');
      const pick = await vscode.window.showWarningMessage(
        vscode.l10n.t(
          '{0} is plain http off this machine. A serve-mode explorer has no authentication: anyone who can reach it can chat, send rewards and commit, and the traffic is unencrypted. Prefer an SSH tunnel: {1}',
          url,
          risk.tunnelCommand ?? '',
        ),
        { modal: true },
        go,
        copy,
      );
      if (pick === copy && risk.tunnelCommand) {
        await vscode.env.clipboard.writeText(risk.tunnelCommand);
        void vscode.window.showInformationMessage(vscode.l10n.t('Copied. Run it in a terminal, then connect to {0}.', risk.tunnelUrl ?? ''));
        return undefined;
      }
      if (pick !== go) return undefined;
    }
    const client = new ExplorerClient(url, { timeoutMs: vscode.workspace.getConfiguration('agentrl.online').get<number>('timeoutSeconds', 120) * 1000 });
    try {
      await client.health();
      const models = await client.models();
      const generation = await client.generation();
      // an explorer older than 0.4 may lack /metrics too: connect anyway, chat still works
      const m = generation === 'pre-0.4' ? await client.metrics().catch(() => undefined) : await client.metrics();
      this.connection = { client, models, generation };
      await this.context.workspaceState.update(LAST_URL_KEY, url);
      this.controller.setConnection({ client, models, canReward: generation !== 'pre-0.4' });
      this.log.info(`online: connected to ${url} (${generation}); models ${models.join(', ')}; explore step ${m?.exploreStep ?? '?'}`);
      if (generation === 'pre-0.4')
        void vscode.window.showWarningMessage(vscode.l10n.t('This explorer is older than Trinity-RFT 0.4: rewards and commits are not available.'));
      else
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Connected to the explorer at {0}: model {1}, explore step {2}.', url, models[0] ?? '?', m?.exploreStep ?? 0),
        );
      void this.controller.refreshMetrics();
      return this.connection;
    } catch (e) {
      const msg = describeError(e);
      this.log.warn(`online: ${msg}`);
      void vscode.window.showErrorMessage(msg);
      return undefined;
    }
  }

  /** Opens (or reveals) the playground; connects first when not connected. */
  async show(): Promise<vscode.WebviewPanel> {
    if (!this.connection) await this.connect(this.context.workspaceState.get<string>(LAST_URL_KEY));
    if (this.panel) {
      this.panel.reveal();
      return this.panel;
    }
    return this.adopt(
      vscode.window.createWebviewPanel(ONLINE_VIEW_TYPE, vscode.l10n.t('Online Training Playground'), vscode.ViewColumn.Active, { enableScripts: true }),
    );
  }

  adopt(panel: vscode.WebviewPanel): vscode.WebviewPanel {
    this.panel = panel;
    const media = vscode.Uri.joinPath(this.context.extensionUri, 'media');
    panel.webview.options = { enableScripts: true, localResourceRoots: [media] };
    panel.webview.html = playgroundHtml(panel.webview, media, vscode.env.language, vscode.l10n.t('Online Training Playground'));
    const subs = [
      panel.webview.onDidReceiveMessage((raw) => {
        const m = parseWebviewMessage(raw);
        if (m) void this.controller.receive(m);
      }),
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.controller.detach();
      }),
      panel.onDidDispose(() => {
        this.controller.detach();
        clearInterval(this.poll);
        this.poll = undefined;
        this.panel = undefined;
        for (const s of subs) s.dispose();
      }),
    ];
    clearInterval(this.poll);
    this.poll = setInterval(() => {
      if (panel.visible && this.connection) void this.controller.refreshMetrics();
    }, METRICS_POLL_MS);
    return panel;
  }

  insertClient(kindArg?: SnippetKind): Promise<boolean> {
    return insertClient(this.connection, kindArg);
  }

  private async pickTools(): Promise<void> {
    const tools = await pickTools();
    if (tools) this.controller.setTools(tools);
  }

  private async askUrl(): Promise<string | undefined> {
    // Explorers the metrics view's relays poll (a run watched on a GPU node): offered by URL.
    const viaRelays = await METRICS_EXPLORERS.run(vscode.commands).catch(() => undefined);
    return askExplorerUrl(this.context.workspaceState.get<string>(LAST_URL_KEY), viaRelays ?? []);
  }

  dispose(): void {
    clearInterval(this.poll);
    this.panel?.dispose();
  }
}

/** Tells the metrics view (when it offers the command) to mark a commit; never fails the commit. */
async function markOnMetrics(mark: RunEventMark): Promise<void> {
  const commands = await vscode.commands.getCommands(true);
  if (commands.includes(METRICS_MARK_EVENT.id)) await METRICS_MARK_EVENT.run(vscode.commands, mark).catch(() => undefined);
}

function onlineDir(context: vscode.ExtensionContext): string {
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return ws ? path.join(ws, '.agentrl', 'online') : path.join(context.globalStorageUri.fsPath, 'online');
}
