// A comparison run in the window (the extension host, no terminal): started by an `agentrl`
// launch entry with `compareModels` (F5, or "Compare Models on Tasks…" picking one), with a
// cancellable progress notification counting each model's episodes. Cancelling stops every
// model's run as the debugger's Stop does; what ran is saved under .agentrl/eval/<id>/ either
// way, and the comparison view opens on it.
import * as path from 'path';
import * as vscode from 'vscode';
import type { RolloutService } from '../feature-api/rollouts';
import { evalFromLaunch } from './run/launch-spec';
import { runEval } from './run/run-eval';

export interface RunComparisonPort {
  rollouts(): RolloutService;
  /** Opens the saved comparison in the comparison view. */
  open(dir: string): void;
}

/** Runs the comparison a resolved launch configuration describes; resolves with its folder
 *  (undefined: it could not start, and the user was told why). */
export async function runComparison(
  port: RunComparisonPort,
  folder: vscode.WorkspaceFolder | undefined,
  config: vscode.DebugConfiguration,
): Promise<string | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Comparing models runs the workflow code: trust this workspace first.'));
    return undefined;
  }
  const root = (config.workspaceRoot as string | undefined) ?? folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let spec;
  try {
    spec = evalFromLaunch(config, root);
  } catch (e) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('The launch configuration "{0}" cannot compare models: {1}', String(config.name ?? ''), (e as Error).message),
    );
    return undefined;
  }
  const names = spec.models.map((m) => m.name);
  const perModel = spec.tasks * spec.repeat;
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Comparing {0} on {1}', names.join(' ↔ '), path.basename(spec.config)),
      cancellable: true,
    },
    async (progress, token) => {
      const stop = new AbortController();
      const cancelled = token.onCancellationRequested(() => stop.abort());
      const done = new Map(names.map((n) => [n, 0]));
      const report = (increment?: number) =>
        progress.report({ message: names.map((n) => vscode.l10n.t('{0}: {1} of {2} episodes', n, done.get(n) ?? 0, perModel)).join(' · '), increment });
      report();
      try {
        const { dir } = await runEval(port.rollouts(), {
          ...spec,
          signal: stop.signal,
          onEpisode: (model) => {
            done.set(model, (done.get(model) ?? 0) + 1);
            report(100 / (perModel * names.length));
          },
        });
        if (stop.signal.aborted)
          void vscode.window.showInformationMessage(
            vscode.l10n.t('The comparison was stopped; the episodes that ended are saved in {0}.', vscode.workspace.asRelativePath(dir)),
          );
        port.open(dir);
        return dir;
      } catch (e) {
        void vscode.window.showErrorMessage(vscode.l10n.t('The comparison could not run: {0}', (e as Error).message));
        return undefined;
      } finally {
        cancelled.dispose();
      }
    },
  );
}
