// The Ray view's TreeDataProvider: maps the pure rows of cluster-model.ts to TreeItems.
import * as vscode from 'vscode';
import { jobDetails, jobRow, nodeRow, type ClusterSnapshot, type Row } from './cluster/cluster-model';

export type Element = Row & { cluster: string };

export class RayTree implements vscode.TreeDataProvider<Element> {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly snapshots: () => ClusterSnapshot[]) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getChildren(e?: Element): Element[] {
    const all = this.snapshots();
    if (!e) {
      return all.map((s) => ({
        type: 'cluster',
        cluster: s.url,
        id: s.url,
        label: s.name,
        description: s.error
          ? vscode.l10n.t('unreachable')
          : vscode.l10n.t('Ray {0} · {1}/{2} nodes alive', s.rayVersion ?? '?', String(s.nodes.filter((n) => n.state === 'ALIVE').length), String(s.nodes.length)),
        error: s.error,
      }));
    }
    const s = all.find((x) => x.url === e.cluster);
    if (!s) return [];
    const at = (r: Row): Element => ({ ...r, cluster: s.url });
    if (e.type === 'cluster') {
      const rows: Element[] = [];
      if (s.error) rows.push(at({ type: 'info', id: `${s.url}:error`, label: s.error, description: '', severity: 'error' }));
      rows.push(at({ type: 'group', id: `${s.url}:nodes`, label: vscode.l10n.t('Nodes'), description: String(s.nodes.length), group: 'nodes' }));
      rows.push(at({ type: 'group', id: `${s.url}:jobs`, label: vscode.l10n.t('Jobs'), description: String(s.jobs.length), group: 'jobs' }));
      return rows;
    }
    if (e.type === 'group' && e.group === 'nodes') return s.nodes.map((n) => at(nodeRow(n, s.usage, s.nodes.length)));
    if (e.type === 'group' && e.group === 'jobs') return s.jobs.map((j) => at(jobRow(j, Date.now(), !!s.stalls[j.submission_id ?? j.job_id ?? ''])));
    if (e.type === 'job') return jobDetails(s, e.submissionId).map(at);
    return [];
  }

  getTreeItem(e: Element): vscode.TreeItem {
    const expandable = e.type === 'cluster' || e.type === 'group' || (e.type === 'job' && this.hasDetails(e));
    const item = new vscode.TreeItem(e.label, expandable ? (e.type === 'job' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded) : vscode.TreeItemCollapsibleState.None);
    item.id = `${e.cluster}|${e.type}|${e.id}`;
    item.description = e.description;
    // Screen readers (and UI tests) get the row as shown, not the tooltip VS Code would use.
    item.accessibilityInformation = { label: e.description ? `${e.label} ${e.description}` : e.label };
    switch (e.type) {
      case 'cluster':
        item.iconPath = new vscode.ThemeIcon(e.error ? 'debug-disconnect' : 'server-environment');
        item.contextValue = 'agentrl.ray.cluster';
        item.tooltip = e.error ?? e.id;
        break;
      case 'node':
        item.iconPath = new vscode.ThemeIcon(e.alive ? (e.head ? 'star-full' : 'vm-running') : 'vm-outline', e.alive ? undefined : new vscode.ThemeColor('errorForeground'));
        item.tooltip = e.tooltip;
        break;
      case 'job':
        item.iconPath = new vscode.ThemeIcon(
          e.stalled ? 'warning' : e.status === 'RUNNING' ? 'sync~spin' : e.status === 'SUCCEEDED' ? 'pass' : e.status === 'FAILED' ? 'error' : e.status === 'STOPPED' ? 'circle-slash' : 'clock',
          e.stalled ? new vscode.ThemeColor('editorWarning.foreground') : undefined,
        );
        item.tooltip = e.tooltip;
        item.contextValue = `agentrl.ray.job.${e.status === 'RUNNING' || e.status === 'PENDING' ? 'active' : 'ended'}`;
        item.command = { command: 'agentrl.ray.showLogs', title: vscode.l10n.t('Show Logs'), arguments: [{ cluster: e.cluster, id: e.submissionId }] };
        break;
      case 'actor':
        item.iconPath = new vscode.ThemeIcon(e.alive ? 'symbol-class' : 'error');
        break;
      case 'info':
        item.iconPath = new vscode.ThemeIcon(e.severity === 'error' ? 'error' : e.severity === 'warning' ? 'warning' : 'output');
        break;
    }
    return item;
  }

  private hasDetails(e: Element & { type: 'job' }): boolean {
    const s = this.snapshots().find((x) => x.url === e.cluster);
    return !!s && jobDetails(s, e.submissionId).length > 0;
  }
}
