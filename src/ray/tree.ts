// The Ray view's TreeDataProvider: maps the pure rows of cluster-model.ts to TreeItems.
import * as vscode from 'vscode';
import { jobDetails, jobRow, nodeRow, type ClusterSnapshot, type Row } from './cluster/cluster-model';
import type { CollectedStacks } from './diagnostics/collect';
import type { PausedTask } from './paused/paused';
import { pausedRow, type PausedRow } from './paused/rows';
import { PAUSED_SINCE } from './paused/support';
import { pausedOfJob } from './paused/watch';
import { actorLabel, frameText, type StackFailureKind } from './diagnostics/stacks';

export type Element = (Row | PausedRow) & { cluster: string };

export class RayTree implements vscode.TreeDataProvider<Element> {
  private readonly changed = new vscode.EventEmitter<Element | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly snapshots: () => ClusterSnapshot[],
    /** The stacks last taken of a job, if any. */
    private readonly stacks: (cluster: string, id: string) => { result?: CollectedStacks; error?: string } | undefined = () => undefined,
    /** The tasks of a cluster paused at a breakpoint() or post-mortem. */
    private readonly paused: (cluster: string) => PausedTask[] = () => [],
    /** Whether the cluster's Ray cannot say which tasks are paused (no num_paused_threads). */
    private readonly pausedUnsupported: (cluster: string) => boolean = () => false,
  ) {}

  /** Rows of a job's paused tasks (by submission id, or the Ray job id of a driver run by hand). */
  private pausedRows(s: ClusterSnapshot, id: string): PausedRow[] {
    const job = s.jobs.find((j) => (j.submission_id ?? j.job_id) === id);
    return pausedOfJob(this.paused(s.url), job ?? { submission_id: id, job_id: null }).map((t) => pausedRow(t, id, s.fetchedAt || Date.now(), vscode.l10n));
  }

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
          : vscode.l10n.t(
              'Ray {0} · {1}/{2} nodes alive',
              s.rayVersion ?? '?',
              String(s.nodes.filter((n) => n.state === 'ALIVE').length),
              String(s.nodes.length),
            ),
        error: s.error,
      }));
    }
    const s = all.find((x) => x.url === e.cluster);
    if (!s) return [];
    const at = (r: Row | PausedRow): Element => ({ ...r, cluster: s.url });
    if (e.type === 'cluster') {
      const rows: Element[] = [];
      if (s.error) rows.push(at({ type: 'info', id: `${s.url}:error`, label: s.error, description: '', severity: 'error' }));
      if (this.pausedUnsupported(s.url))
        rows.push(
          at({
            type: 'info',
            id: `${s.url}:no-paused`,
            label: vscode.l10n.t(
              'Ray {0} does not report paused tasks: a breakpoint() pauses the job, but this view cannot list it (Ray {1} and later do).',
              s.rayVersion ?? '?',
              PAUSED_SINCE,
            ),
            description: '',
            severity: 'warning',
          }),
        );
      rows.push(at({ type: 'group', id: `${s.url}:nodes`, label: vscode.l10n.t('Nodes'), description: String(s.nodes.length), group: 'nodes' }));
      rows.push(at({ type: 'group', id: `${s.url}:jobs`, label: vscode.l10n.t('Jobs'), description: String(s.jobs.length), group: 'jobs' }));
      return rows;
    }
    if (e.type === 'group' && e.group === 'nodes') return s.nodes.map((n) => at(nodeRow(n, s.usage, s.nodes.length)));
    if (e.type === 'group' && e.group === 'jobs') return s.jobs.map((j) => at(jobRow(j, Date.now(), !!s.stalls[j.submission_id ?? j.job_id ?? ''])));
    if (e.type === 'job')
      return [...this.pausedRows(s, e.submissionId), ...jobDetails(s, e.submissionId, vscode.l10n), ...this.stackRows(s.url, e.submissionId)].map(at);
    return [];
  }

  getTreeItem(e: Element): vscode.TreeItem {
    const expandable = e.type === 'cluster' || e.type === 'group' || (e.type === 'job' && this.hasDetails(e));
    // a job with a paused task opens by itself: the paused row is what the user looks for
    const snap = this.snapshots().find((s) => s.url === e.cluster);
    const pausedJob = e.type === 'job' && !!snap && this.pausedRows(snap, e.submissionId).length > 0;
    const item = new vscode.TreeItem(
      e.label,
      expandable
        ? e.type === 'job' && !pausedJob
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `${e.cluster}|${e.type}|${e.id}${pausedJob ? '|paused' : ''}`;
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
        item.iconPath = new vscode.ThemeIcon(
          e.alive ? (e.head ? 'star-full' : 'vm-running') : 'vm-outline',
          e.alive ? undefined : new vscode.ThemeColor('errorForeground'),
        );
        item.tooltip = e.tooltip;
        break;
      case 'job':
        item.iconPath = new vscode.ThemeIcon(
          e.stalled
            ? 'warning'
            : e.status === 'RUNNING'
              ? 'sync~spin'
              : e.status === 'SUCCEEDED'
                ? 'pass'
                : e.status === 'FAILED'
                  ? 'error'
                  : e.status === 'STOPPED'
                    ? 'circle-slash'
                    : 'clock',
          e.stalled ? new vscode.ThemeColor('editorWarning.foreground') : undefined,
        );
        item.tooltip = e.tooltip;
        item.contextValue = `agentrl.ray.job.${e.status === 'RUNNING' || e.status === 'PENDING' ? 'active' : 'ended'}`;
        item.command = { command: 'agentrl.ray.showLogs', title: vscode.l10n.t('Show Logs'), arguments: [{ cluster: e.cluster, id: e.submissionId }] };
        break;
      case 'actor':
        item.iconPath = new vscode.ThemeIcon(e.alive ? 'symbol-class' : 'error');
        item.contextValue = `agentrl.ray.actor.${e.alive ? 'alive' : 'dead'}`;
        break;
      case 'paused':
        item.iconPath = new vscode.ThemeIcon(
          e.task.post_mortem ? 'bug' : 'debug-pause',
          new vscode.ThemeColor(e.task.post_mortem ? 'errorForeground' : 'debugIcon.pauseForeground'),
        );
        item.tooltip = e.tooltip;
        item.contextValue = 'agentrl.ray.paused';
        item.command = {
          command: 'agentrl.ray.attach',
          title: vscode.l10n.t('Attach Debugger'),
          arguments: [{ cluster: e.cluster, job: e.job, task: e.task }],
        };
        break;
      case 'info':
        item.iconPath = new vscode.ThemeIcon(e.severity === 'error' ? 'error' : e.severity === 'warning' ? 'warning' : 'output');
        break;
    }
    return item;
  }

  private hasDetails(e: Element & { type: 'job' }): boolean {
    const s = this.snapshots().find((x) => x.url === e.cluster);
    return (
      !!s &&
      (this.pausedRows(s, e.submissionId).length > 0 ||
        jobDetails(s, e.submissionId, vscode.l10n).length > 0 ||
        this.stackRows(s.url, e.submissionId).length > 0)
    );
  }

  /** Rows of the stacks last taken: the deadlock, who waits on whom, where each process waits. */
  private stackRows(cluster: string, id: string): Row[] {
    const taken = this.stacks(cluster, id);
    if (!taken) return [];
    const row = (key: string, label: string, severity: 'warning' | 'error' | 'info', description = ''): Row => ({
      type: 'info',
      id: `${id}:stacks:${key}`,
      label,
      description,
      severity,
    });
    if (!taken.result) return [row('error', vscode.l10n.t('Stacks could not be taken: {0}', taken.error ?? ''), 'error')];
    const { report, actors } = taken.result;
    const all = [...actors, ...report.groups.flatMap((g) => g.actors.map((a) => a.actor))];
    const name = (actorId: string) =>
      actorId === 'driver' ? vscode.l10n.t('the driver') : actorLabel(all.find((a) => a.actor_id === actorId) ?? { actor_id: actorId });
    const rows: Row[] = [];
    if (report.cycle) rows.push(row('cycle', vscode.l10n.t('Deadlock: {0}', [...report.cycle, report.cycle[0]].map(name).join(' → ')), 'error'));
    for (const w of report.waits) rows.push(row(`wait:${w.from}:${w.to}`, vscode.l10n.t('{0} waits on {1}', name(w.from), name(w.to)), 'warning', w.task));
    for (const a of report.groups.flatMap((g) => g.actors)) {
      const who = name(a.actor.actor_id);
      if (a.error) rows.push(row(`actor:${a.actor.actor_id}`, vscode.l10n.t('{0}: no stack', who), 'warning', stackFailureText(a.error.kind)));
      else if (a.wait)
        rows.push(row(`actor:${a.actor.actor_id}`, vscode.l10n.t('{0} waits in {1}', who, a.wait.call), 'info', a.wait.frame ? frameText(a.wait.frame) : ''));
      else rows.push(row(`actor:${a.actor.actor_id}`, vscode.l10n.t('{0} is idle', who), 'info'));
    }
    return rows;
  }
}

/** Why a stack is missing and how to fix it, for the user. */
export function stackFailureText(kind: StackFailureKind): string {
  switch (kind) {
    case 'profiling-disabled':
      return vscode.l10n.t('The Ray dashboard refuses to take stacks: profiling is off. Start the head node with RAY_DASHBOARD_ENABLE_PROFILING=1.');
    case 'py-spy-missing':
      return vscode.l10n.t('py-spy is not installed on the node: run "pip install py-spy" in the Python environment Ray runs from.');
    case 'not-permitted':
      return vscode.l10n.t(
        'py-spy may not attach to the process (ptrace). Allow ptrace (sysctl kernel.yama.ptrace_scope=0), or give the container CAP_SYS_PTRACE (docker run --cap-add SYS_PTRACE).',
      );
    case 'process-gone':
      return vscode.l10n.t('The process exited before its stack was taken.');
    default:
      return vscode.l10n.t('The Ray dashboard could not take the stack.');
  }
}
