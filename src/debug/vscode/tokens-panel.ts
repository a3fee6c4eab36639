// "Show tokens" on an LLM call in the Variables view: asks the debug session for that call as
// tokens (the custom request agentrl.callTokens, answered by protocol/session.ts) and shows them
// in one token view panel beside the editor, reused for the next call.
import * as vscode from 'vscode';
import type { ExperienceWire } from '../../tokens/experience-wire';
import { tokenViewStrings } from '../../tokens/view-strings';
import { webviewHtml } from '../../webview-shell/webview-html';
import { CALL_TOKENS_REQUEST } from '../protocol/session';
import type { TokensHostMessage, TokensWebviewMessage } from '../protocol/token-panel-protocol';

const VIEW_TYPE = 'agentrl.callTokens';

/** What VS Code passes a `debug/variables/context` command. */
export interface VariableMenuArg {
  sessionId?: string;
  container?: { variablesReference?: number };
}

let panel: vscode.WebviewPanel | undefined;
let ready: Promise<void> | undefined;

function openPanel(extensionUri: vscode.Uri): { panel: vscode.WebviewPanel; ready: Promise<void> } {
  if (panel && ready) {
    panel.reveal(vscode.ViewColumn.Beside, true);
    return { panel, ready };
  }
  const media = vscode.Uri.joinPath(extensionUri, 'media');
  const p = vscode.window.createWebviewPanel(VIEW_TYPE, vscode.l10n.t('Tokens'), { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: true });
  p.webview.html = webviewHtml(p.webview, { script: vscode.Uri.joinPath(media, 'debug-tokens.js'), style: vscode.Uri.joinPath(media, 'debug-tokens.css'), lang: vscode.env.language, title: vscode.l10n.t('Tokens') });
  ready = new Promise<void>((resolve) => {
    p.webview.onDidReceiveMessage((m: TokensWebviewMessage) => {
      if (m?.type === 'ready') resolve();
      else if (m?.type === 'copy' && typeof m.json === 'string') void vscode.env.clipboard.writeText(m.json);
    });
  });
  p.onDidDispose(() => {
    panel = undefined;
    ready = undefined;
  });
  panel = p;
  return { panel: p, ready };
}

export async function showCallTokens(arg: VariableMenuArg | undefined, extensionUri: vscode.Uri): Promise<void> {
  const session = (arg?.sessionId && vscode.debug.activeDebugSession?.id !== arg.sessionId ? undefined : vscode.debug.activeDebugSession) ?? vscode.debug.activeDebugSession;
  const ref = arg?.container?.variablesReference;
  if (!session || session.type !== 'agentrl' || typeof ref !== 'number') {
    void vscode.window.showInformationMessage(vscode.l10n.t('Right-click a variable of an LLM call\'s Response in the Variables view to show its tokens.'));
    return;
  }
  let body: { experience: ExperienceWire; notes: string[]; title: string };
  try {
    body = (await session.customRequest(CALL_TOKENS_REQUEST, { variablesReference: ref })) as typeof body;
  } catch (e) {
    void vscode.window.showWarningMessage((e as Error).message);
    return;
  }
  const view = openPanel(extensionUri);
  view.panel.title = vscode.l10n.t('Tokens: {0}', body.title);
  await view.ready;
  const message: TokensHostMessage = { type: 'show', experience: body.experience, notes: body.notes, strings: tokenViewStrings(vscode.l10n) };
  await view.panel.webview.postMessage(message);
}
