// The comparison's extension-host bundle (dist/eval-host.js), loaded on first use: the command
// flow of "Compare Models on Tasks…" (open a saved comparison or start a new one in a terminal)
// and the comparison panel.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RolloutService } from '../feature-api/rollouts';
import { EVAL_DIR, loadEval } from './run/eval-record';
import { ComparePanel } from './panel';

interface SavedItem extends vscode.QuickPickItem {
  dir?: string;
  folder?: vscode.WorkspaceFolder;
}

function savedComparisons(): SavedItem[] {
  const out: SavedItem[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const base = path.join(folder.uri.fsPath, EVAL_DIR);
    let names: string[];
    try {
      names = fs.readdirSync(base).sort().reverse();
    } catch {
      continue;
    }
    for (const id of names) {
      try {
        const r = loadEval(path.join(base, id));
        out.push({ label: id, description: r.models.map((m) => m.name).join(' ↔ '), detail: `${path.basename(r.config)} · ${r.tasks} × ${r.repeat}`, dir: path.join(base, id) });
      } catch {
        // an interrupted comparison (no eval.json yet): not offered
      }
    }
  }
  return out;
}

/** "Compare Models on Tasks…": a saved comparison opens; "New comparison…" runs `agentrl eval`. */
export async function compareModelsCommand(context: vscode.ExtensionContext, rollouts: () => RolloutService, dir?: string): Promise<ComparePanel | undefined> {
  if (dir) return ComparePanel.open(context.extensionUri, dir, rollouts);
  const items: SavedItem[] = [{ label: vscode.l10n.t('$(add) New comparison…'), folder: vscode.workspace.workspaceFolders?.[0] }, ...savedComparisons()];
  const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Compare Models on Tasks'), placeHolder: vscode.l10n.t('Open a saved comparison, or start a new one') });
  if (!pick) return undefined;
  if (pick.dir) return ComparePanel.open(context.extensionUri, pick.dir, rollouts);
  await newComparison(context, pick.folder);
  return undefined;
}

async function newComparison(context: vscode.ExtensionContext, folder: vscode.WorkspaceFolder | undefined): Promise<void> {
  if (!folder) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a workspace folder with an RL config first.'));
    return;
  }
  const configs = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*.{yaml,yml}'), '**/{node_modules,.agentrl}/**', 200);
  const config = await vscode.window.showQuickPick(configs.map((u) => ({ label: vscode.workspace.asRelativePath(u, false), uri: u })), { title: vscode.l10n.t('Workflow config') });
  if (!config) return;
  const models = await vscode.window.showInputBox({
    title: vscode.l10n.t('Models to compare (the baseline first)'),
    value: 'base=http://127.0.0.1:8000/v1 new=http://127.0.0.1:8001/v1',
    validateInput: (v) => (v.trim().split(/\s+/).filter((s) => /^[A-Za-z0-9][\w.-]*=https?:\/\/\S+$/.test(s)).length >= 2 ? undefined : vscode.l10n.t('Two or more NAME=URL pairs, separated by spaces')),
  });
  if (!models) return;
  const shape = await vscode.window.showInputBox({ title: vscode.l10n.t('Tasks × repeats'), value: '20 4', validateInput: (v) => (/^\s*\d+\s+\d+\s*$/.test(v) ? undefined : vscode.l10n.t('Two numbers: tasks and repeats')) });
  if (!shape) return;
  const [tasks, repeat] = shape.trim().split(/\s+/);
  const cli = vscode.Uri.joinPath(context.extensionUri, 'dist', 'agentrl.js').fsPath;
  const terminal = vscode.window.createTerminal({ name: vscode.l10n.t('Model comparison'), cwd: folder.uri.fsPath });
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  terminal.show();
  terminal.sendText(`node ${q(cli)} eval --config ${q(config.uri.fsPath)} --models ${models.trim().split(/\s+/).map(q).join(' ')} --tasks ${tasks} --repeat ${repeat}`);
  void vscode.window.showInformationMessage(vscode.l10n.t('The comparison runs in the terminal; run "Compare Models on Tasks…" again to open it when it is saved.'));
}
