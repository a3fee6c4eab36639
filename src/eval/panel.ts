// ComparePanel: the comparison view of a saved comparison (.agentrl/eval/<id>/) in a webview
// panel: a new one, or one VS Code restores after a reload (the serializer hands it over). What
// it answers the page is computed by view/comparison-session.ts; transcripts are read through
// the rollout service.
import * as vscode from 'vscode';
import type { RolloutService } from '../feature-api/rollouts';
import { webviewHtml } from '../webview-shell/webview-html';
import { loadEval, type EvalRecord } from './run/eval-record';
import { ComparisonSession } from './view/comparison-session';
import { EVAL_VIEW_TYPE, type FromView } from './protocol/messages';
import { evalStrings } from './strings';

export class ComparePanel implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private readonly subs: vscode.Disposable[] = [];
  private readonly session: ComparisonSession;

  /** `panel`: one VS Code restored after a reload, with the pair its page showed; else a new one. */
  constructor(
    extensionUri: vscode.Uri,
    readonly dir: string,
    record: EvalRecord,
    rollouts: () => RolloutService,
    panel?: vscode.WebviewPanel,
    pair?: { a?: string; b?: string },
  ) {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.session = new ComparisonSession(record, dir, (runDir, episode) => rollouts().transcript(runDir, episode), evalStrings, pair, vscode.l10n);
    this.panel =
      panel ??
      vscode.window.createWebviewPanel(EVAL_VIEW_TYPE, '', vscode.ViewColumn.Active, {
        enableScripts: true,
        localResourceRoots: [media],
        retainContextWhenHidden: true,
      });
    this.panel.title = vscode.l10n.t('Model comparison {0}', record.id);
    this.panel.webview.options = { enableScripts: true, localResourceRoots: [media] };
    this.panel.webview.html = webviewHtml(this.panel.webview, {
      script: vscode.Uri.joinPath(media, 'eval.js'),
      style: vscode.Uri.joinPath(media, 'eval.css'),
      lang: vscode.env.language,
      title: vscode.l10n.t('Model comparison'),
    });
    this.subs.push(
      this.panel.webview.onDidReceiveMessage((m: FromView) => {
        const answer = this.session.answer(m);
        if (answer) void this.panel.webview.postMessage(answer);
      }),
      this.panel.onDidDispose(() => this.dispose()),
    );
  }

  static open(extensionUri: vscode.Uri, dir: string, rollouts: () => RolloutService): ComparePanel {
    return new ComparePanel(extensionUri, dir, loadEval(dir), rollouts);
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    this.panel.dispose();
  }
}
