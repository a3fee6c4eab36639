// The "Rollouts" view (Run and Debug side bar): saved runs → episodes → turns. A run reads
// "launch name — reward · age"; selecting an episode or a turn opens the episode as a chat
// transcript (Markdown preview, written next to the run as transcripts/<episode>.md); the
// transcript links each turn to the workflow line that made it. Runs can be replayed or opened.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { EpisodeTrajectory, ForkInfo, TrajectoryTurn } from '../trajectory/trajectory';
import { listForks, listRuns, readEpisodes, type RunInfo } from '../results/run-store';
import { ageRefreshDelay, runRow } from '../results/run-label';
import { episodeMarkdown, mdText, runMarkdown } from '../results/transcript';

/** The episode's transcript file (written on demand; the run folder is git-ignored .agentrl/). */
export function transcriptFile(run: RunInfo, episode: EpisodeTrajectory): string {
  const file = path.join(run.dir, 'transcripts', `${episode.episode.replace(/[^\w.-]/g, '_')}.md`);
  const title = `${runRow(run).label} · ${run.id}`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `# ${mdText(title)}\n\n${episodeMarkdown(episode, path.dirname(file))}`);
  return file;
}

/** The whole run as one transcript (Open Trajectories). */
export function runTranscriptFile(run: RunInfo): string {
  const file = path.join(run.dir, 'transcript.md');
  fs.writeFileSync(file, runMarkdown(`${runRow(run).label} · ${run.id}`, readEpisodes(run.dir), run.dir));
  return file;
}

function openTranscript(run: RunInfo, episode: EpisodeTrajectory, title: string): vscode.Command {
  // Written when clicked, so it reflects the run as saved now.
  return { command: 'agentrl.rollouts.transcript', title, arguments: [{ run, episode }] };
}

export type RolloutNode =
  | { kind: 'run'; run: RunInfo; folder: vscode.WorkspaceFolder }
  | { kind: 'episode'; run: RunInfo; episode: EpisodeTrajectory }
  /** The original branch of an edited episode, beside the run (edit = fork). */
  | { kind: 'fork'; run: RunInfo; dir: string; info: ForkInfo }
  | { kind: 'turn'; run: RunInfo; episode: EpisodeTrajectory; turn: TrajectoryTurn };

const short = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n)}…` : s);

function turnLabel(t: TrajectoryTurn): string {
  if (t.type === 'tool') return `tool ${t.name}(${short(t.arguments, 40)})`;
  const msg = t.response?.choices?.[0]?.message;
  const what = t.error
    ? `✗ ${t.error.kind}`
    : msg?.tool_calls?.length
      ? `→ ${msg.tool_calls.map((c) => c.function.name).join(', ')}`
      : `→ ${short(JSON.stringify(msg?.content ?? ''))}`;
  return `llm #${t.index + 1} ${what}${t.edited ? ' (edited)' : ''}`;
}

export class RolloutsTree implements vscode.TreeDataProvider<RolloutNode> {
  private readonly changed = new vscode.EventEmitter<RolloutNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  /** Redraws the runs when one's age would read differently ("3 min ago" once stayed for hours). */
  private ageTimer: NodeJS.Timeout | undefined;

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(node?: RolloutNode): RolloutNode[] {
    if (!node) {
      const runs = (vscode.workspace.workspaceFolders ?? []).flatMap((folder) =>
        listRuns(folder.uri.fsPath).map((run) => ({ kind: 'run' as const, run, folder })),
      );
      clearTimeout(this.ageTimer);
      const delay = ageRefreshDelay(runs.map((r) => r.run));
      if (delay !== undefined) {
        this.ageTimer = setTimeout(() => this.refresh(), delay);
        this.ageTimer.unref?.();
      }
      return runs;
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
      const row = runRow(node.run);
      const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.description = row.description;
      item.contextValue = 'agentrl.run';
      item.iconPath = new vscode.ThemeIcon(
        node.run.summary?.status === 'completed' && !node.run.summary.errors ? 'pass' : node.run.summary ? 'warning' : 'loading~spin',
      );
      item.tooltip = `${row.label} — ${row.description}\n${node.run.dir}${node.run.summary?.config ? `\n${node.run.summary.config}` : ''}`;
      item.resourceUri = vscode.Uri.file(node.run.dir);
      return item;
    }
    if (node.kind === 'fork') {
      const f = node.info;
      const item = new vscode.TreeItem(vscode.l10n.t('fork of {0}: original branch', f.episode), vscode.TreeItemCollapsibleState.Collapsed);
      item.description = vscode.l10n.t('reward {0} without the edit · {1} with it', String(f.rewardOriginal ?? 'none'), String(f.rewardEdited ?? 'none'));
      item.tooltip = vscode.l10n.t(
        'The episode re-run without your edit (calls before the edited one replayed, the rest live). Click to compare both branches.',
      );
      item.iconPath = new vscode.ThemeIcon('git-compare');
      item.contextValue = 'agentrl.fork';
      item.command = { command: 'agentrl.rollouts.compareFork', title: vscode.l10n.t('Compare the branches'), arguments: [node] };
      return item;
    }
    if (node.kind === 'episode') {
      const e = node.episode;
      const item = new vscode.TreeItem(e.episode, e.turns.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.description = e.error ? vscode.l10n.t('{0} error: {1}', e.error.phase, e.error.type) : vscode.l10n.t('reward {0}', String(e.reward ?? 'none'));
      item.iconPath = new vscode.ThemeIcon(e.error ? 'error' : e.reward !== null && e.reward > 0 ? 'pass' : 'circle-outline');
      item.tooltip = JSON.stringify(e.task, null, 2).slice(0, 2000);
      item.contextValue = 'agentrl.episode';
      item.command = openTranscript(node.run, e, vscode.l10n.t('Open transcript'));
      return item;
    }
    const t = node.turn;
    const item = new vscode.TreeItem(turnLabel(t), vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon(t.type === 'tool' ? 'tools' : 'comment-discussion');
    item.contextValue = 'agentrl.turn';
    item.command = openTranscript(node.run, node.episode, vscode.l10n.t('Open transcript'));
    if (t.source) item.tooltip = `${path.basename(t.source.path)}:${t.source.line}`;
    return item;
  }
}
