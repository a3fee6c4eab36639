// ComparePanel: the comparison view of a saved comparison (.agentrl/eval/<id>/) in a webview
// panel. Reads the record, computes the view's data (view/comparison-view.ts) and, when a task is
// opened, the two models' first episodes of it turn by turn, read through the rollout service.
import * as path from 'path';
import * as vscode from 'vscode';
import type { RolloutService } from '../feature-api/rollouts';
import { webviewHtml } from '../webview-shell/webview-html';
import { compareModels } from './report/table';
import { loadEval, type EvalRecord, type ModelRun } from './run/eval-record';
import { comparisonData, pairTurns } from './view/comparison-view';
import { EVAL_VIEW_TYPE, type FromView, type ToView } from './protocol/messages';
import { evalStrings } from './strings';

/** The reward parts of each task's first scored episode. */
function partsByTask(m: ModelRun): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const e of m.episodes) if (e.reward !== null && !out.has(e.taskId)) out.set(e.taskId, e.parts);
  return out;
}

/** The episode of `task` shown for a model: its first scored repeat, else its first. */
function episodeOf(m: ModelRun, task: string): string | undefined {
  const eps = m.episodes.filter((e) => e.taskId === task);
  return (eps.find((e) => e.reward !== null) ?? eps[0])?.episode;
}

export class ComparePanel implements vscode.Disposable {
  private readonly panel: vscode.WebviewPanel;
  private readonly subs: vscode.Disposable[] = [];

  constructor(extensionUri: vscode.Uri, private readonly dir: string, private readonly record: EvalRecord, private readonly rollouts: () => RolloutService) {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    this.panel = vscode.window.createWebviewPanel(EVAL_VIEW_TYPE, vscode.l10n.t('Model comparison {0}', record.id), vscode.ViewColumn.Active, { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: true });
    this.panel.webview.html = webviewHtml(this.panel.webview, { script: vscode.Uri.joinPath(media, 'eval.js'), style: vscode.Uri.joinPath(media, 'eval.css'), lang: vscode.env.language, title: vscode.l10n.t('Model comparison') });
    this.subs.push(
      this.panel.webview.onDidReceiveMessage((m: FromView) => this.onMessage(m)),
      this.panel.onDidDispose(() => this.dispose()),
    );
  }

  static open(extensionUri: vscode.Uri, dir: string, rollouts: () => RolloutService): ComparePanel {
    return new ComparePanel(extensionUri, dir, loadEval(dir), rollouts);
  }

  private post(m: ToView): void {
    void this.panel.webview.postMessage(m);
  }

  private onMessage(m: FromView): void {
    const [a, b] = this.record.models;
    if (!a || !b) return;
    if (m.type === 'ready') {
      const [c] = compareModels(this.record);
      this.post({ type: 'comparison', data: comparisonData(`${b.name} ↔ ${a.name} · ${path.basename(this.record.config)}`, c, { a: partsByTask(a), b: partsByTask(b) }), strings: evalStrings() });
    } else if (m.type === 'openTask') {
      const side = (run: ModelRun) => {
        const ep = episodeOf(run, m.task);
        return ep ? this.rollouts().transcript(path.resolve(this.dir, run.runDir), ep) ?? [] : [];
      };
      this.post({ type: 'pair', task: m.task, a: a.name, b: b.name, rows: pairTurns(side(a), side(b)) });
    }
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
    this.panel.dispose();
  }
}
