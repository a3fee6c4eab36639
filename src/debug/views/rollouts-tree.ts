// The "Rollouts" view (Run and Debug side bar): saved runs → episodes → turns. Selecting a
// turn opens the workflow line that made it; runs can be replayed or opened.
import * as path from 'path';
import * as vscode from 'vscode';
import type { EpisodeTrajectory, ForkInfo, TrajectoryTurn } from '../../shared/trajectory';
import { describeRun, listForks, listRuns, readEpisodes, type RunInfo } from '../results/run-store';

export type RolloutNode =
  | { kind: 'run'; run: RunInfo; folder: vscode.WorkspaceFolder }
  | { kind: 'episode'; run: RunInfo; episode: EpisodeTrajectory }
  /** The original branch of an edited episode, beside the run (edit = fork). */
  | { kind: 'fork'; run: RunInfo; dir: string; info: ForkInfo }
  | { kind: 'turn'; run: RunInfo; episode: EpisodeTrajectory; turn: TrajectoryTurn };

const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n)}…` : s);

export function turnLabel(t: TrajectoryTurn): string {
  if (t.type === 'tool') return `tool ${t.name}(${short(t.arguments, 40)})`;
  const msg = t.response?.choices?.[0]?.message;
  const what = t.error ? `✗ ${t.error.kind}` : msg?.tool_calls?.length ? `→ ${msg.tool_calls.map((c) => c.function.name).join(', ')}` : `→ ${short(JSON.stringify(msg?.content ?? ''))}`;
  return `llm #${t.index + 1} ${what}${t.edited ? ' (edited)' : ''}`;
}

export class RolloutsTreeProvider implements vscode.TreeDataProvider<RolloutNode> {
  private readonly changed = new vscode.EventEmitter<RolloutNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: RolloutNode): RolloutNode[] {
    if (!node) {
      return (vscode.workspace.workspaceFolders ?? []).flatMap((folder) => listRuns(folder.uri.fsPath).map((run) => ({ kind: 'run' as const, run, folder })));
    }
    if (node.kind === 'run') {
      const episodes: RolloutNode[] = readEpisodes(node.run.dir).map((episode) => ({ kind: 'episode' as const, run: node.run, episode }));
      return [...episodes, ...listForks(node.run.dir).map((f) => ({ kind: 'fork' as const, run: node.run, ...f }))];
    }
    if (node.kind === 'fork') return readEpisodes(node.dir).map((episode) => ({ kind: 'episode' as const, run: { id: node.run.id, dir: node.dir }, episode }));
    if (node.kind === 'episode') return node.episode.turns.map((turn) => ({ kind: 'turn' as const, run: node.run, episode: node.episode, turn }));
    return [];
  }

  getTreeItem(node: RolloutNode): vscode.TreeItem {
    if (node.kind === 'run') {
      const item = new vscode.TreeItem(node.run.id, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = describeRun(node.run);
      item.contextValue = 'agentrl.run';
      item.iconPath = new vscode.ThemeIcon(node.run.summary?.status === 'completed' && !node.run.summary.errors ? 'pass' : node.run.summary ? 'warning' : 'loading~spin');
      item.tooltip = `${node.run.dir}${node.run.summary?.config ? `\n${node.run.summary.config}` : ''}`;
      item.resourceUri = vscode.Uri.file(node.run.dir);
      return item;
    }
    if (node.kind === 'fork') {
      const f = node.info;
      const item = new vscode.TreeItem(vscode.l10n.t('fork of {0}: original branch', f.episode), vscode.TreeItemCollapsibleState.Collapsed);
      item.description = vscode.l10n.t('reward {0} without the edit · {1} with it', String(f.rewardOriginal ?? 'none'), String(f.rewardEdited ?? 'none'));
      item.tooltip = vscode.l10n.t('The episode re-run without your edit (calls before the edited one replayed, the rest live). Click to compare both branches.');
      item.iconPath = new vscode.ThemeIcon('git-compare');
      item.contextValue = 'agentrl.fork';
      item.command = { command: 'agentrl.rollouts.compareFork', title: vscode.l10n.t('Compare the branches'), arguments: [node] };
      return item;
    }
    if (node.kind === 'episode') {
      const e = node.episode;
      const item = new vscode.TreeItem(e.episode, e.turns.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.description = e.error ? `${e.error.phase} error: ${e.error.type}` : `reward ${e.reward ?? 'none'}`;
      item.iconPath = new vscode.ThemeIcon(e.error ? 'error' : e.reward !== null && e.reward > 0 ? 'pass' : 'circle-outline');
      item.tooltip = JSON.stringify(e.task, null, 2).slice(0, 2000);
      item.contextValue = 'agentrl.episode';
      return item;
    }
    const t = node.turn;
    const item = new vscode.TreeItem(turnLabel(t), vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon(t.type === 'tool' ? 'tools' : 'comment-discussion');
    item.contextValue = 'agentrl.turn';
    if (t.source) {
      item.command = { command: 'vscode.open', title: 'Open source', arguments: [vscode.Uri.file(t.source.path), { selection: new vscode.Range(t.source.line - 1, 0, t.source.line - 1, 0) }] };
      item.tooltip = `${path.basename(t.source.path)}:${t.source.line}`;
    }
    return item;
  }
}
