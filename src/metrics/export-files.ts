// Writing exports to files the user picks (vscode glue over export.ts).
import * as vscode from 'vscode';
import type { Logger } from '../shared/log';
import { exportCsv, exportJson } from './view/export';
import type { MetricsStore } from './store/store';

function defaultUri(name: string): vscode.Uri | undefined {
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri;
  return ws ? vscode.Uri.joinPath(ws, name) : undefined;
}

const safe = (s: string) => s.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'metrics';

/** Writes full-resolution series to `target` (asks for a file when undefined); returns the file. */
export async function exportSeriesTo(
  store: MetricsStore,
  keys: string[],
  format: 'csv' | 'json',
  target: vscode.Uri | undefined,
  log: Logger,
): Promise<vscode.Uri | undefined> {
  const first = store.get(keys[0] ?? '');
  const name = `${safe(keys.length === 1 && first ? first.tag : 'metrics')}.${format}`;
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      defaultUri: defaultUri(name),
      filters: format === 'csv' ? { CSV: ['csv'] } : { JSON: ['json'] },
      title: vscode.l10n.t('Export metrics (full resolution)'),
    }));
  if (!uri) return undefined;
  const text = format === 'csv' ? exportCsv(store, keys) : exportJson(store, keys);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
  log.info(`metrics: exported ${keys.length} series to ${uri.fsPath}`);
  return uri;
}

export async function exportPng(chart: string, dataUrl: string, target: vscode.Uri | undefined, log: Logger): Promise<vscode.Uri | undefined> {
  const uri =
    target ??
    (await vscode.window.showSaveDialog({ defaultUri: defaultUri(`${safe(chart)}.png`), filters: { PNG: ['png'] }, title: vscode.l10n.t('Export chart as PNG') }));
  if (!uri) return undefined;
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
  await vscode.workspace.fs.writeFile(uri, bytes);
  log.info(`metrics: saved ${chart} as ${uri.fsPath}`);
  return uri;
}
