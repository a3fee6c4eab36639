// ComparisonsTree: the "Model Comparisons" view, the comparisons saved under each workspace
// folder's .agentrl/eval/, newest first; one opens in the comparison view.
import * as path from 'path';
import * as vscode from 'vscode';
import { listSaved, type SavedComparison } from './run/eval-record';
import { compareModels } from './report/table';

export type ComparisonNode = SavedComparison;

export class ComparisonsTree implements vscode.TreeDataProvider<ComparisonNode> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: ComparisonNode): ComparisonNode[] {
    if (node) return [];
    return (vscode.workspace.workspaceFolders ?? []).flatMap((f) => listSaved(f.uri.fsPath));
  }

  getTreeItem(node: ComparisonNode): vscode.TreeItem {
    const r = node.record;
    const item = new vscode.TreeItem(r.models.map((m) => m.name).join(' ↔ '), vscode.TreeItemCollapsibleState.None);
    item.id = node.dir;
    item.description = `${path.basename(r.config)} · ${r.tasks} × ${r.repeat} · ${node.id}`;
    // The verdicts against the baseline: what the comparison concluded, without opening it.
    item.tooltip = [node.dir, ...compareModels(r, { l10n: vscode.l10n }).map((c) => c.verdict.text)].join('\n');
    item.iconPath = new vscode.ThemeIcon('git-compare');
    item.contextValue = 'agentrl.comparison';
    item.command = { command: 'agentrl.eval.compare', title: vscode.l10n.t('Open'), arguments: [node.dir] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
