// The Pipeline view's ties to the editor and the relay (its PipelinePort): the run's config copy
// in a local job dir, opened at a key with its current value selected (where the key is
// written is found by the config engine, injected as a ConfigChecker: features never import
// each other), the quick fix when the engine finds no new error with the suggestion applied,
// and Ray's timeline windows through the run's relay.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Logger } from '../base/log';
import type { ConfigChecker, KeyLocation, Range } from '../feature-api/config-checker';
import { type RunConfig, readRunConfig } from '../pipeline/advice';
import type { Connections } from './connect/connections';
import type { PipelineAdvice } from './protocol/pipeline-protocol';
import type { PipelinePort } from './view/pipeline-feed';

const toRange = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

/** The offset of a line/character position in `text`. */
function offsetOf(text: string, p: Range['start']): number {
  let off = 0;
  for (let line = 0; line < p.line; line++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off + p.character;
}

/** The suggestion written as the value it replaces is written (quoted when that one is). */
function written(old: string, value: string): string {
  const q = old.startsWith('"') ? '"' : old.startsWith("'") ? "'" : '';
  if (q) return `${q}${value}${q}`;
  return /^(-?\d+(\.\d+)?|true|false|null)$/.test(value) ? value : JSON.stringify(value);
}

/** The text with `value` in place of the key's value, or undefined when the key is not written. */
function applied(text: string, at: KeyLocation | undefined, value: string): string | undefined {
  if (!at || at.text === undefined) return undefined;
  const a = offsetOf(text, at.range.start);
  const b = offsetOf(text, at.range.end);
  return text.slice(0, a) + written(text.slice(a, b), value) + text.slice(b);
}

export class PipelineLinks implements PipelinePort {
  /** The endpoint each run came from (the view controller's batches say). */
  readonly runEndpoints = new Map<string, string>();

  constructor(
    private readonly connections: Connections,
    private readonly checker: (() => ConfigChecker) | undefined,
    private readonly log: Logger,
  ) {}

  private dir(run: string): string | undefined {
    const ep = this.runEndpoints.get(run);
    return ep === undefined ? undefined : this.connections.localDir(ep);
  }

  config(run: string): RunConfig | { reason: string } {
    const dir = this.dir(run);
    if (!dir) return { reason: vscode.l10n.t('the run is read through a relay URL: its config is not on this machine') };
    return readRunConfig(dir);
  }

  openConfigKey(run: string, key: string, value?: string): void {
    void this.open(run, key, value).catch((e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e);
      this.log.warn(`pipeline: open ${key}: ${msg}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Agent RL: could not open the run config at {0}: {1}', key, msg));
    });
  }

  private async open(run: string, key: string, value?: string): Promise<void> {
    const cfg = this.config(run);
    if ('reason' in cfg || !cfg.file) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Agent RL: no run config to open: {0}', 'reason' in cfg ? cfg.reason : run));
      return;
    }
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(cfg.file));
    const at = this.checker ? await this.checker().locate?.(cfg.file, key, doc.getText()) : undefined;
    const editor = await vscode.window.showTextDocument(doc, {
      preview: false,
      ...(at ? { selection: toRange(at.range) } : {}),
    });
    if (!at) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t('Agent RL: {0} is not set in this config: Trinity-RFT uses its default. Add it to change it.', key),
      );
      return;
    }
    editor.revealRange(toRange(at.range), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    if (value !== undefined && at.text !== undefined) {
      const old = doc.getText(toRange(at.range));
      await editor.edit((b) => b.replace(toRange(at.range), written(old, value)));
    }
  }

  /** The suggestions whose value the config engine accepts: the file checked with it applied, no new error, and a config it knows. */
  async proveFixes(run: string, advice: PipelineAdvice[]): Promise<string[]> {
    const cfg = this.config(run);
    if (!this.checker || 'reason' in cfg || !cfg.file) return [];
    const checker = this.checker();
    const file = cfg.file;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
    const text = doc?.getText() ?? fs.readFileSync(file, 'utf8');
    const before = await checker.check(file, text);
    if (!before.kind) return [];
    const errors = (r: typeof before) => new Set(r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.path}`));
    const had = errors(before);
    const out: string[] = [];
    for (const a of advice) {
      const next = applied(text, await checker.locate?.(file, a.key, text), a.suggest);
      if (next === undefined) continue;
      const after = await checker.check(file, next);
      if ([...errors(after)].every((e) => had.has(e))) out.push(a.key);
    }
    return out;
  }

  readTimeline(run: string, from: number | null, to: number | null, maxEvents: number) {
    const ep = this.runEndpoints.get(run);
    if (ep === undefined) return Promise.reject(new Error(vscode.l10n.t('no relay delivers run {0}', run)));
    return this.connections.requestTimeline(ep, { run, from, to, maxEvents });
  }
}
