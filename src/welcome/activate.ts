// The first screen: in the `npm start` sandbox (its `.agentrl/sandbox.json` marker) the
// "Get started with Agent RL" walkthrough opens once, and its "Fix a config error" step ticks
// when a config that had Agent RL errors has none left (context key for the completion event).
import * as vscode from 'vscode';
import { readSandboxMarker } from '../workspace-files/sandbox';

const WALKTHROUGH_ID = 'agentrl.agent-rl-studio#getStarted';
const SHOWN_KEY = 'agentrl.walkthrough.shownInSandbox';
/** The context key of the "Fix a config error" step's completion event. */
const CONFIG_FIXED_CONTEXT = 'agentrl.walkthrough.configFixed';
/** Diagnostics of the config language server carry this source. */
const CONFIG_SOURCE = 'Agent RL';

export function activateWelcome(context: vscode.ExtensionContext): void {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const marker = folder ? readSandboxMarker(folder) : undefined;
  const copy = marker?.created ?? 'sandbox';
  if (marker && context.globalState.get<string>(SHOWN_KEY) !== copy) {
    void context.globalState.update(SHOWN_KEY, copy);
    setTimeout(() => void vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH_ID, false), 0);
  }
  // Files that had an error from our checks; one of them clean again = a config error fixed.
  const broken = new Set<string>();
  context.subscriptions.push(
    vscode.languages.onDidChangeDiagnostics((e) => {
      for (const uri of e.uris) {
        const key = uri.toString();
        const errors = vscode.languages
          .getDiagnostics(uri)
          .some((d) => d.severity === vscode.DiagnosticSeverity.Error && String(d.source ?? '').startsWith(CONFIG_SOURCE));
        if (errors) broken.add(key);
        else if (broken.delete(key)) void vscode.commands.executeCommand('setContext', CONFIG_FIXED_CONTEXT, true);
      }
    }),
  );
}
