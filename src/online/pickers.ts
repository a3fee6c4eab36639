// The online feature's pickers: which explorer (URL files found in the workspace, the last one,
// a typed URL, a job dir), which tools to offer the model (a workflow's recorded tools, a JSON
// file, none) and which client snippet to insert. VS Code UI only; the logic is in the subfolders.
import * as fs from 'node:fs';
import type OpenAI from 'openai';
import * as vscode from 'vscode';
import type { RelayExplorer } from '../feature-api/commands';
import { findServerUrlFiles, readServerUrlFile } from './explorer/discover';
import { kindsFor, snippet, SnippetKind } from './playground/snippets';
import { workflowToolsFromRuns } from './playground/workflow-tools';

export async function insertClient(connection: { client: { url: string }; models: string[] } | undefined, kindArg?: SnippetKind): Promise<boolean> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Open a Python or Java file to insert the online-training client.'));
    return false;
  }
  const kinds = kindsFor(editor.document.languageId);
  let kind = kindArg ?? kinds[0];
  if (!kindArg && kinds.length > 1) {
    const labels: Record<SnippetKind, string> = {
      'python-openai': vscode.l10n.t('Python: openai + requests'),
      'python-trinity': vscode.l10n.t("Python: Trinity-RFT's TrinityClient"),
      java: vscode.l10n.t('Java: AgentScope-Java TrainingRunner style'),
    };
    const pick = await vscode.window.showQuickPick(
      kinds.map((k) => ({ label: labels[k], snippetKind: k })),
      { placeHolder: vscode.l10n.t('Which client?') },
    );
    if (!pick) return false;
    kind = pick.snippetKind;
  }
  const text = snippet(kind, { explorerUrl: connection?.client.url ?? 'http://127.0.0.1:8010', model: connection?.models[0] ?? '<model.model_path>' });
  return editor.edit((b) => b.insert(editor.selection.active, text));
}

/** Tools for the chat: the ones a workflow of this workspace really sent (recorded by the
 *  rollout debugger), a JSON file, or none. */
export async function pickTools(): Promise<OpenAI.Chat.ChatCompletionTool[] | undefined> {
  const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const recorded = roots.flatMap((r) => workflowToolsFromRuns(r));
  type Item = vscode.QuickPickItem & { tools?: OpenAI.Chat.ChatCompletionTool[]; file?: boolean };
  const items: Item[] = [
    ...recorded.map((w) => ({
      label: w.names.join(', '),
      description: w.source ? vscode.l10n.t('from {0}', w.source) : undefined,
      detail: vscode.l10n.t('sent by the workflow in debug run {0}', w.run),
      tools: w.tools,
    })),
    { label: vscode.l10n.t('From a JSON file…'), file: true },
    { label: vscode.l10n.t('No tools'), tools: [] },
  ];
  const pick = recorded.length
    ? await vscode.window.showQuickPick(items, {
        title: vscode.l10n.t('Tools offered to the model'),
        placeHolder: vscode.l10n.t("A workflow's tools (from its debug runs), a JSON file, or none"),
      })
    : items[recorded.length];
  if (!pick) return undefined;
  return pick.tools ?? pickToolsFile();
}

async function pickToolsFile(): Promise<OpenAI.Chat.ChatCompletionTool[] | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] }, openLabel: vscode.l10n.t('Use these tools') });
  if (!picked?.[0]) return undefined;
  try {
    const j = JSON.parse(fs.readFileSync(picked[0].fsPath, 'utf8')) as unknown;
    const list = Array.isArray(j) ? j : (j as { tools?: unknown }).tools;
    if (!Array.isArray(list) || !list.every((t) => t && typeof t === 'object' && (t as { type?: string }).type === 'function')) {
      throw new Error(vscode.l10n.t('expected a JSON list of OpenAI tools ({"type": "function", "function": {…}})'));
    }
    return list as OpenAI.Chat.ChatCompletionTool[];
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Cannot use {0} as tools: {1}', picked[0].fsPath, String((e as Error).message)));
    return undefined;
  }
}

export async function askExplorerUrl(last: string | undefined, viaRelays: readonly RelayExplorer[] = []): Promise<string | undefined> {
  const found = await vscode.workspace.findFiles('**/*_server_url.txt', '**/node_modules/**', 20);
  const items: (vscode.QuickPickItem & { value?: string; action?: 'type' | 'dir' })[] = [];
  for (const f of found) {
    const u = readServerUrlFile(f.fsPath);
    if (u) items.push({ label: u, description: vscode.workspace.asRelativePath(f), value: u });
  }
  for (const r of viaRelays) {
    if (!items.some((i) => i.value === r.url))
      items.push({ label: r.url, description: vscode.l10n.t('run {0}, via the relay {1}', r.run, r.endpoint), value: r.url });
  }
  if (last && !items.some((i) => i.value === last)) items.push({ label: last, description: vscode.l10n.t('last used'), value: last });
  items.push({ label: vscode.l10n.t('Enter the explorer URL…'), action: 'type' }, { label: vscode.l10n.t('From a job directory…'), action: 'dir' });
  const pick = await vscode.window.showQuickPick(items, { placeHolder: vscode.l10n.t('Serve-mode explorer (explorer_server_url.txt in the job dir)') });
  if (!pick) return undefined;
  if (pick.value) return pick.value;
  if (pick.action === 'dir') {
    const dir = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: vscode.l10n.t('Job directory') });
    if (!dir?.[0]) return undefined;
    const u = fromPathOrUrl(dir[0].fsPath);
    if (!u) void vscode.window.showErrorMessage(vscode.l10n.t('No *_server_url.txt in {0}: is the explorer running with mode: serve?', dir[0].fsPath));
    return u;
  }
  return vscode.window.showInputBox({ prompt: vscode.l10n.t('Explorer URL (http://host:8010)'), value: last ?? 'http://127.0.0.1:8010' });
}

/** A URL as is; a job dir or URL file read for the URL Trinity wrote. */
export function fromPathOrUrl(s: string): string | undefined {
  if (/^https?:\/\//i.test(s)) return s;
  try {
    const st = fs.statSync(s);
    if (st.isDirectory()) {
      const f = findServerUrlFiles(s)[0];
      return f ? readServerUrlFile(f) : undefined;
    }
    if (st.isFile()) return readServerUrlFile(s);
  } catch {
    /* not a path: treat as host:port */
  }
  return s;
}
