// The status bar item: "$(pulse) rollout/accuracy/mean 0.734 $(arrow-up)" — the active run's reward tag,
// smoothed, and its trend; a warning icon when an endpoint is stale or failing; click opens the view.
import * as vscode from 'vscode';
import type { EndpointState } from './protocol/view-protocol';
import { STATUS_SMOOTHING, type StatusSummary } from './view/status-model';

const ARROW = { up: '$(arrow-up)', down: '$(arrow-down)', flat: '$(arrow-right)' };

export class MetricsStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private last = '';

  constructor(command: string) {
    this.item = vscode.window.createStatusBarItem('agentrl.metrics', vscode.StatusBarAlignment.Left, 50);
    this.item.name = vscode.l10n.t('Agent RL Training Metrics');
    this.item.command = command;
  }

  /** The text shown now (tests read it). */
  get text(): string {
    return this.item.text;
  }

  update(s: StatusSummary): void {
    if (!s.endpoints.length && s.value === undefined) {
      this.item.hide();
      return;
    }
    const icon =
      s.state === 'error' || s.state === 'stale' ? '$(warning)' : s.state === 'live' ? '$(pulse)' : s.state === 'finished' ? '$(check)' : '$(sync~spin)';
    const text =
      s.value !== undefined
        ? `${icon} ${s.tag ?? vscode.l10n.t('reward')} ${formatValue(s.smoothed ?? s.value)} ${ARROW[s.trend ?? 'flat']}` // the tag shown, not "reward" for whatever it is
        : `${icon} ${stateText(s.state ?? 'connecting')}`;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = false;
    if (s.value !== undefined) {
      tip.appendMarkdown(`**${escape(s.run ?? '')}** · \`${escape(s.tag ?? '')}\`\n\n`);
      tip.appendMarkdown(`${vscode.l10n.t('Latest value {0} at step {1}', formatValue(s.value), String(s.step))}\n\n`);
      if (s.smoothed !== undefined) tip.appendMarkdown(`${vscode.l10n.t('Smoothed {0} (weight {1})', formatValue(s.smoothed), String(STATUS_SMOOTHING))}\n\n`);
    }
    for (const e of s.endpoints) {
      tip.appendMarkdown(`- ${escape(e.name)}: ${stateText(e.state)}${e.detail ? ` — ${escape(e.detail)}` : ''}\n`);
    }
    tip.appendMarkdown(`\n${vscode.l10n.t('Click to open the training metrics view')}`);
    const key = text + JSON.stringify(s.endpoints.map((e) => [e.state, e.detail]));
    if (key === this.last) return;
    this.last = key;
    this.item.text = text;
    this.item.tooltip = tip;
    this.item.backgroundColor =
      s.state === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : s.state === 'stale'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Number(v.toPrecision(4)).toString();
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export function stateText(s: EndpointState): string {
  switch (s) {
    case 'connecting':
      return vscode.l10n.t('connecting');
    case 'backfilling':
      return vscode.l10n.t('catching up');
    case 'live':
      return vscode.l10n.t('live');
    case 'stale':
      return vscode.l10n.t('connection lost');
    case 'error':
      return vscode.l10n.t('error');
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'finished':
      return vscode.l10n.t('finished');
  }
}
