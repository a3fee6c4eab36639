// Writing exports to files the user picks (vscode glue over export.ts).
import * as vscode from 'vscode';
import type { Logger } from '../base/log';
import { exportCsv, exportJson } from './view/export';
import type { MetricsStore } from './store/store';

function defaultUri(name: string): vscode.Uri | undefined {
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri;
  return ws ? vscode.Uri.joinPath(ws, name) : undefined;
}

/** Writes the file; a failure (a read-only folder, a full disk) is told to the user, not thrown:
 *  the view's export buttons do not wait for the result. */
async function write(uri: vscode.Uri, bytes: Uint8Array, log: Logger): Promise<boolean> {
  try {
    await vscode.workspace.fs.writeFile(uri, bytes);
    return true;
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    log.warn(`metrics: could not write ${uri.fsPath}: ${why}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not write {0}: {1}', uri.fsPath, why));
    return false;
  }
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
  if (!(await write(uri, Buffer.from(text, 'utf8'), log))) return undefined;
  log.info(`metrics: exported ${keys.length} series to ${uri.fsPath}`);
  warnEnvelopeOnly(store, keys);
  return uri;
}

/**
 * A series opened by its envelope (a large finished event file) holds only the points that
 * came live after it, not the file's: say so, with the way to get every point, rather than
 * hand over a partial file as "full resolution".
 */
function warnEnvelopeOnly(store: MetricsStore, keys: string[]): void {
  const partial = keys.filter((k) => store.envelopes.has(k));
  if (!partial.length) return;
  const first = store.get(partial[0]);
  void vscode.window.showWarningMessage(
    vscode.l10n.t(
      '{0} of the exported series (e.g. {1}) were opened from a large event file by their min/max envelope: the export holds only the points that arrived live after it ({2} of {3}). For every point, run `agentrl tail --json --until-idle 5 <relay URL>`.',
      partial.length,
      first?.tag ?? partial[0],
      first?.length ?? 0,
      (first?.length ?? 0) + store.envelopes.points(partial[0]),
    ),
  );
}

export async function exportPng(chart: string, dataUrl: string, target: vscode.Uri | undefined, log: Logger): Promise<vscode.Uri | undefined> {
  const uri =
    target ??
    (await vscode.window.showSaveDialog({
      defaultUri: defaultUri(`${safe(chart)}.png`),
      filters: { PNG: ['png'] },
      title: vscode.l10n.t('Export chart as PNG'),
    }));
  if (!uri) return undefined;
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
  if (!(await write(uri, bytes, log))) return undefined;
  log.info(`metrics: saved ${chart} as ${uri.fsPath}`);
  return uri;
}
