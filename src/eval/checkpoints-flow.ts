// "Serve a Checkpoint…": a Trinity job folder's global_step_N checkpoints in a quick pick (by
// step, with the eval metrics the job logged by that step, whether each serves as is or needs
// `trinity convert` first), then for the one picked the
// commands that serve it (`trinity convert` where needed, then `vllm serve …`): copied, or run
// in a terminal the user watches, plus the `name=URL` a comparison targets it with. Running
// them needs a trusted workspace (they run code); copying does not.
import * as vscode from 'vscode';
import { listCheckpoints, serveCommands, type Checkpoint } from './checkpoints/checkpoints';
import { metricsAt, readEvalSeries } from './checkpoints/step-metrics';

interface CheckpointItem extends vscode.QuickPickItem {
  checkpoint: Checkpoint;
}

interface ActionItem extends vscode.QuickPickItem {
  act: () => Thenable<unknown> | void;
}

/** The quick pick of `jobDir`'s checkpoints (asked for when not given), then what to do with
 *  the one picked. Resolves with the serve commands shown (undefined: nothing picked). */
export async function serveCheckpoint(jobDir?: string): Promise<string[] | undefined> {
  const dir =
    jobDir ??
    (
      await vscode.window.showOpenDialog({
        canSelectFolders: true,
        canSelectFiles: false,
        title: vscode.l10n.t('A Trinity job folder (checkpoint_root_dir/project/name)'),
        defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      })
    )?.[0]?.fsPath;
  if (!dir) return undefined;
  const list = listCheckpoints(dir);
  if (!list.length) {
    void vscode.window.showErrorMessage(vscode.l10n.t('No global_step_N checkpoint in {0}.', dir));
    return undefined;
  }
  const { series } = readEvalSeries(dir);
  const items: CheckpointItem[] = list.map((c) => {
    const m = metricsAt(series, c.step);
    const evals = m
      ? vscode.l10n.t(
          'eval at step {0}: {1}',
          m.step,
          Object.entries(m.values)
            .map(([k, v]) => `${k} ${v.toFixed(3)}`)
            .join(' · '),
        )
      : vscode.l10n.t('no evaluation logged by this step');
    return {
      label: vscode.l10n.t('Step {0}', c.step),
      description: c.servable ? vscode.l10n.t('serves as is') : vscode.l10n.t('needs trinity convert first'),
      detail: `${evals} — ${c.dir}`,
      checkpoint: c,
    };
  });
  const picked = await vscode.window.showQuickPick(items.reverse(), {
    title: vscode.l10n.t('Serve a Checkpoint'),
    placeHolder: vscode.l10n.t('The checkpoint to serve (newest first)'),
  });
  if (!picked) return undefined;
  const serve = serveCommands(picked.checkpoint);
  const script = serve.commands.join(' && \\\n  ');
  const target = `${serve.name}=${serve.url}`;
  const actions: ActionItem[] = [
    { label: vscode.l10n.t('$(terminal) Run in a terminal'), detail: script, act: () => runInTerminal(serve.name, serve.commands) },
    { label: vscode.l10n.t('$(copy) Copy the commands'), detail: script, act: () => vscode.env.clipboard.writeText(serve.commands.join('\n')) },
    { label: vscode.l10n.t('$(git-compare) Copy the model for a comparison'), detail: target, act: () => vscode.env.clipboard.writeText(target) },
  ];
  const action = await vscode.window.showQuickPick(actions, {
    title: vscode.l10n.t('Serve step {0}', picked.checkpoint.step),
    placeHolder: vscode.l10n.t('Then compare it: add {0} to "compareModels"', target),
  });
  await action?.act();
  return serve.commands;
}

function runInTerminal(name: string, commands: string[]): void {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Serving a checkpoint runs commands: trust this workspace first.'));
    return;
  }
  const terminal = vscode.window.createTerminal({ name: vscode.l10n.t('Serve {0}', name) });
  terminal.show();
  terminal.sendText(commands.join(' && '));
}
