// "Show Stacks" and "Copy Diagnostics for an Issue" on a Ray job (or one actor): the stacks and
// the report open in an untitled Markdown editor; the report also goes to the clipboard. Both
// take arguments ({cluster, id, actor?}) so tests and keybindings need no UI.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { META } from './api/api-types';
import { describeError } from './commands';
import { collectCluster, collectLogs, runActors, trinityVersion } from './diagnostics/collect';
import { probeTrinityVersion } from './diagnostics/trinity-probe';
import { renderDiagnostics, renderStacks } from './diagnostics/report';
import type { StackFailureKind, StacksReport } from './diagnostics/stacks';
import type { RayHost } from './ray-host';
import { stackFailureText } from './tree';

export interface DiagnoseArgs {
  cluster?: string;
  id?: string;
  /** An actor row: its stacks alone. */
  actor?: string;
  /** The config to put in the report (default: the one the job was submitted from, in this workspace). */
  config?: string;
}

async function openMarkdown(content: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** One message for the refusals that stopped every stack (profiling off, no py-spy, no ptrace). */
function warnRefusals(report: StacksReport): void {
  const all = report.groups.flatMap((g) => g.actors);
  const kinds = new Set<StackFailureKind>(all.flatMap((a) => (a.error ? [a.error.kind] : [])));
  for (const k of ['profiling-disabled', 'py-spy-missing', 'not-permitted'] as const) {
    if (kinds.has(k)) {
      void vscode.window.showWarningMessage(stackFailureText(k));
      return;
    }
  }
}

export interface ShowStacksResult {
  report?: StacksReport;
  markdown?: string;
}

export async function showStacks(host: RayHost, a: DiagnoseArgs = {}): Promise<ShowStacksResult | undefined> {
  const c = host.get(a.cluster);
  if (!c || !a.id) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Pick a Ray job or actor in the Ray view to show its stacks.'));
    return undefined;
  }
  const taken = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Taking the stacks of {0}…', a.id) },
    () => host.takeStacks(c.monitor.client.url, a.id!, a.actor),
  );
  if (!taken.result) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not take the stacks of {0}: {1}', a.id, taken.error ?? ''));
    return {};
  }
  warnRefusals(taken.result.report);
  const markdown = `# ${a.id}\n\n${renderStacks(taken.result.report, taken.result.actors)}`;
  await openMarkdown(markdown);
  return { report: taken.result.report, markdown };
}

/** The config the job was submitted from, read from the workspace folder it was packed from. */
function submittedConfig(rel: string | undefined, given: string | undefined): { path: string; text: string } | undefined {
  const candidates = given ? [given] : rel ? (vscode.workspace.workspaceFolders ?? []).map((f) => path.join(f.uri.fsPath, rel)) : [];
  for (const file of candidates) {
    try {
      return { path: given ? vscode.workspace.asRelativePath(file) : rel!, text: fs.readFileSync(file, 'utf8') };
    } catch {
      /* not in this folder */
    }
  }
  return undefined;
}

export async function copyDiagnostics(host: RayHost, a: DiagnoseArgs = {}): Promise<string | undefined> {
  const c = host.get(a.cluster);
  if (!c || !a.id) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Pick a Ray job in the Ray view to copy its diagnostics.'));
    return undefined;
  }
  const client = c.monitor.client;
  const id = a.id;
  let markdown: string;
  try {
    markdown = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Collecting the diagnostics of {0}…', id) },
      async () => {
        const job = await client.job(id);
        const facts = await collectCluster(client);
        const actors = await runActors(client, job).catch((e: Error) => {
          facts.errors.push(`actors: ${e.message}`);
          return [];
        });
        const taken = await host.takeStacks(client.url, id);
        const logs = await collectLogs(client, job, actors);
        const driverLog = logs[0]?.lines.join('\n') ?? '';
        const said = trinityVersion(job, driverLog);
        // Not pinned and not logged: ask the cluster (a tiny job in the run's Python).
        const trinityProbe = said ? undefined : await probeTrinityVersion(client, job, { log: host.log }).catch((e: Error) => ({ error: e.message }));
        return renderDiagnostics({
          takenAt: new Date().toISOString(),
          job,
          rayVersion: facts.rayVersion,
          trinityVersion: said,
          trinityProbe,
          clusterStatus: facts.status,
          nodes: facts.nodes,
          actors,
          stacks: taken.result?.report,
          stacksError: taken.error,
          logs,
          config: submittedConfig(job.metadata?.[META.config], a.config),
          stall: c.monitor.snapshot.stalls[id],
          errors: facts.errors,
        });
      },
    );
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not collect the diagnostics of {0}: {1}', id, describeError(e)));
    return undefined;
  }
  await vscode.env.clipboard.writeText(markdown);
  await openMarkdown(markdown);
  void vscode.window.showInformationMessage(vscode.l10n.t('The diagnostics of {0} are on the clipboard (secrets masked): paste them into the issue.', id));
  return markdown;
}
