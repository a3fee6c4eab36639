// Activation-time glue for config intelligence: stays tiny (activation ≤ 50 ms). It watches
// for a YAML document that looks like an RL config and only then loads the client bundle
// (dist/config-host.js, with vscode-languageclient) and starts the language server.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import type { Logger } from '../base/log';
import type * as HostModule from './host';
import { looksLikeRlConfig } from './core/looks-like-config';

export interface ConfigFeature {
  /** Starts the language server now (tests; normally it starts on the first RL config). */
  start(): Promise<HostModule.ConfigClient>;
  /** Whether the server has been started. */
  readonly started: boolean;
}

const KINDS = ['trinity', 'astuner', 'ajet', 'none'] as const;

export function activateConfig(context: vscode.ExtensionContext, log: Logger): ConfigFeature {
  const load = lazyBundle<typeof HostModule>('config-host');
  let client: Promise<HostModule.ConfigClient> | undefined;
  const start = () => {
    client ??= load()
      .startConfigClient(context, log)
      .then((c) => {
        context.subscriptions.push({ dispose: () => void c.dispose() });
        return c;
      })
      .catch((err: unknown) => {
        client = undefined;
        log.error(`Config language server failed to start: ${err instanceof Error ? err.message : String(err)}`);
        throw err;
      });
    return client;
  };
  const globMatch = (doc: vscode.TextDocument) => {
    const files = vscode.workspace.getConfiguration('agentrl.config').get<Record<string, string>>('files', {});
    return Object.entries(files).some(([glob, kind]) => kind !== 'none' && vscode.languages.match({ pattern: glob }, doc) > 0);
  };
  const consider = (doc: vscode.TextDocument) => {
    if (client || doc.languageId !== 'yaml') return;
    if (!vscode.workspace.getConfiguration('agentrl.config').get<boolean>('enable', true)) return;
    if (looksLikeRlConfig(doc.getText()) || globMatch(doc)) void start().catch(() => undefined);
  };
  vscode.workspace.textDocuments.forEach(consider);
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(consider),
    vscode.workspace.onDidChangeTextDocument((e) => consider(e.document)),
    vscode.commands.registerCommand('agentrl.config.selectKind', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.languageId !== 'yaml') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Open a YAML file first.'));
        return;
      }
      const labels: Record<(typeof KINDS)[number], string> = {
        trinity: vscode.l10n.t('Trinity-RFT config'),
        astuner: vscode.l10n.t('ASTuner config (astuner:)'),
        ajet: vscode.l10n.t('AgentJet config (ajet:)'),
        none: vscode.l10n.t('Not an RL config (do not check)'),
      };
      const pick = await vscode.window.showQuickPick(
        KINDS.map((k) => ({ label: labels[k], value: k })),
        { placeHolder: vscode.l10n.t('Check this file as… (adds a `# agentrl:` comment)') },
      );
      if (!pick) return;
      const doc = editor.document;
      const first = doc.lineAt(0).text;
      const line = `# agentrl: ${pick.value}`;
      await editor.edit((b) => {
        if (/^#\s*agentrl\s*:/.test(first)) b.replace(doc.lineAt(0).range, line);
        else b.insert(new vscode.Position(0, 0), `${line}\n`);
      });
      if (pick.value !== 'none') await start();
    }),
    vscode.commands.registerCommand('agentrl.config.restart', async () => {
      const c = await start();
      await c.restart();
    }),
  );
  return {
    start,
    get started() {
      return client !== undefined;
    },
  };
}
