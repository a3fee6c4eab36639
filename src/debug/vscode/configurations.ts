// The `agentrl` debug configuration provider: one entry per RL config in the workspace
// (dynamic), F5 without launch.json on an open RL config, and resolution that fills in the
// interpreter and refuses to start on config errors, pointing at them.
import * as path from 'path';
import * as vscode from 'vscode';
import type { ConfigChecker } from '../../feature-api/config-checker';
import type { Logger } from '../../base/log';
import { formatConfigErrors } from '../dap/launch';
import { pythonDebuggerAvailable, resolveInterpreter } from './python';

const EXCLUDE = '**/{node_modules,.git,.venv,venv,.agentrl,checkpoints,saved_experiments,.cache,dist,out}/**';
/** Cheap text sniff before asking the engine (Trinity sections or an astuner:/ajet: root). */
const LOOKS_RL = /^(astuner|ajet):|^buffer:|^explorer:/m;

export class RolloutConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly checker: () => ConfigChecker,
    private readonly log: Logger,
  ) {}

  /** Dynamic: one launch entry per RL config found in the folder. */
  async provideDebugConfigurations(folder: vscode.WorkspaceFolder | undefined): Promise<vscode.DebugConfiguration[]> {
    const pattern = folder ? new vscode.RelativePattern(folder, '**/*.{yaml,yml}') : '**/*.{yaml,yml}';
    const files = await vscode.workspace.findFiles(pattern, EXCLUDE, 200);
    const out: vscode.DebugConfiguration[] = [];
    for (const uri of files.sort((a, b) => a.fsPath.localeCompare(b.fsPath))) {
      const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
      if (!LOOKS_RL.test(text)) continue;
      const result = await this.checker()
        .check(uri.fsPath, text)
        .catch(() => undefined);
      if (!result?.kind) continue;
      const ws = vscode.workspace.getWorkspaceFolder(uri);
      out.push(configFor(uri, ws));
    }
    return out;
  }

  /** F5 with no launch.json: debug the RL config in the active editor. */
  resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!config.type && !config.request && !config.name) {
      const doc = vscode.window.activeTextEditor?.document;
      if (doc && /\.ya?ml$/i.test(doc.fileName) && LOOKS_RL.test(doc.getText()))
        return configFor(doc.uri, vscode.workspace.getWorkspaceFolder(doc.uri) ?? folder);
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Open a Trinity-RFT, ASTuner or AgentJet config to debug its rollouts, or add an "agentrl" entry to launch.json.'),
      );
      return undefined;
    }
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Rollout debugging runs the workflow code: trust this workspace first.'));
      return undefined;
    }
    const root = folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (typeof config.config !== 'string' || !config.config) {
      void vscode.window.showErrorMessage(
        vscode.l10n.t('The agentrl launch configuration needs "config": the path of a Trinity-RFT, ASTuner or AgentJet YAML.'),
      );
      return undefined;
    }
    const file = path.resolve(root ?? '', config.config);
    const result = await this.checker()
      .check(file)
      .catch((e: Error) => {
        void vscode.window.showErrorMessage(vscode.l10n.t('Cannot check {0}: {1}', file, e.message));
        return undefined;
      });
    if (!result) return undefined;
    const errors = formatConfigErrors(file, result);
    if (errors) {
      this.log.warn(errors);
      const first = result.diagnostics.find((d) => d.severity === 'error')!;
      const open = vscode.l10n.t('Open the error');
      const pick = await vscode.window.showErrorMessage(
        vscode.l10n.t(
          '{0} has {1} config error(s); fix them before debugging. First: line {2}: {3}',
          path.basename(file),
          result.diagnostics.filter((d) => d.severity === 'error').length,
          first.range.start.line + 1,
          first.message,
        ),
        open,
      );
      if (pick === open) {
        const r = first.range;
        await vscode.window.showTextDocument(vscode.Uri.file(file), {
          selection: new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character),
        });
      }
      return undefined;
    }
    const resolved: vscode.DebugConfiguration = { ...config, workspaceRoot: (config.workspaceRoot as string | undefined) ?? root };
    if (!resolved.python) resolved.python = await resolveInterpreter(folder);
    if (resolved.pythonDebugger === undefined) {
      resolved.pythonDebugger = pythonDebuggerAvailable();
      if (!resolved.pythonDebugger && !config.noDebug) {
        resolved.__pythonDebuggerNote = vscode.l10n.t(
          'Python breakpoints in workflow code need the Python Debugger extension (ms-python.debugpy); rollout breakpoints (llm, tool, reward…) work without it.',
        );
      }
    }
    return resolved;
  }
}

function configFor(uri: vscode.Uri, folder: vscode.WorkspaceFolder | undefined): vscode.DebugConfiguration {
  const rel = folder ? path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/') : uri.fsPath;
  return {
    type: 'agentrl',
    request: 'launch',
    name: vscode.l10n.t('Debug {0}', rel),
    config: folder ? `\${workspaceFolder}/${rel}` : uri.fsPath,
    tasks: 1,
  };
}
