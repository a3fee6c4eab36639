// "Show tokens" on an LLM call in the Variables view: asks the debug session for that call as
// tokens (the custom request agentrl.callTokens, answered by dap/session.ts) and shows them
// in one token view panel beside the editor, reused for the next call.
import * as vscode from 'vscode';
import type { ExperienceWire } from '../../tokens/experience-wire';
import { tokenViewStrings } from '../../tokens/view-strings';
import { webviewHtml } from '../../webview-shell/webview-html';
import { CALL_TOKENS_REQUEST, EXPERIENCE_TOKENS_REQUEST } from '../dap/session';
import type { TokensHostMessage, TokensWebviewMessage } from '../protocol/token-panel-protocol';
import type { TokenMarks } from '../../webview-ui/token-view/marks';

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
  const p = vscode.window.createWebviewPanel(
    VIEW_TYPE,
    vscode.l10n.t('Tokens'),
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    { enableScripts: true, localResourceRoots: [media], retainContextWhenHidden: true },
  );
  p.webview.html = webviewHtml(p.webview, {
    script: vscode.Uri.joinPath(media, 'debug-tokens.js'),
    style: vscode.Uri.joinPath(media, 'debug-tokens.css'),
    lang: vscode.env.language,
    title: vscode.l10n.t('Tokens'),
  });
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

/** The agentrl session and scope reference a Variables menu command was given, or a hint shown. */
function target(arg: VariableMenuArg | undefined, hint: string): { session: vscode.DebugSession; ref: number } | undefined {
  const session =
    (arg?.sessionId && vscode.debug.activeDebugSession?.id !== arg.sessionId ? undefined : vscode.debug.activeDebugSession) ?? vscode.debug.activeDebugSession;
  const ref = arg?.container?.variablesReference;
  if (!session || session.type !== 'agentrl' || typeof ref !== 'number') {
    void vscode.window.showInformationMessage(hint);
    return undefined;
  }
  return { session, ref };
}

async function ask<T>(session: vscode.DebugSession, request: string, ref: number): Promise<T | undefined> {
  try {
    return (await session.customRequest(request, { variablesReference: ref })) as T;
  } catch (e) {
    void vscode.window.showWarningMessage((e as Error).message);
    return undefined;
  }
}

async function show(extensionUri: vscode.Uri, title: string, experience: ExperienceWire, notes: string[], marks?: TokenMarks): Promise<void> {
  const view = openPanel(extensionUri);
  view.panel.title = vscode.l10n.t('Tokens: {0}', title);
  await view.ready;
  const message: TokensHostMessage = { type: 'show', experience, notes, strings: tokenViewStrings(vscode.l10n), ...(marks ? { marks } : {}) };
  await view.panel.webview.postMessage(message);
}

export async function showCallTokens(arg: VariableMenuArg | undefined, extensionUri: vscode.Uri): Promise<void> {
  const t = target(arg, vscode.l10n.t("Right-click a variable of an LLM call's Response in the Variables view to show its tokens."));
  const body = t && (await ask<{ experience: ExperienceWire; notes: string[]; title: string }>(t.session, CALL_TOKENS_REQUEST, t.ref));
  if (body) await show(extensionUri, body.title, body.experience, body.notes);
}

/** What agentrl.experienceTokens answers: each experience the episode returned, with its turns and warnings. */
interface ReturnedBody {
  title: string;
  experiences: { index: number; experience: ExperienceWire; notes: string[]; turns: TokenMarks['turns']; warnings: TokenMarks['warnings'] }[];
}

/** "Show tokens training learns from" on an ended episode's experiences: one of them (picked when several) with its turns. */
export async function showExperienceTokens(arg: VariableMenuArg | undefined, extensionUri: vscode.Uri): Promise<void> {
  const t = target(
    arg,
    vscode.l10n.t(
      'Stop where an episode returns (Step Out of it, or a reward breakpoint), then right-click its experiences (Episode scope in the Variables view) to show the tokens training learns from.',
    ),
  );
  const body = t && (await ask<ReturnedBody>(t.session, EXPERIENCE_TOKENS_REQUEST, t.ref));
  if (!body?.experiences.length) return;
  const items = body.experiences.map((x) => ({
    label: vscode.l10n.t('experience {0}', x.index),
    description: vscode.l10n.t('{0} tokens, {1} mask warning(s)', x.experience.ids.length, x.warnings.length),
    x,
  }));
  const picked =
    items.length === 1 ? items[0] : await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Which experience of {0}?', body.title) });
  if (!picked) return;
  const { x } = picked;
  await show(extensionUri, `${body.title} #${x.index}`, x.experience, x.notes, { turns: x.turns, warnings: x.warnings });
}
