// The online feature's user-visible text, localized here (the webview and the pure modules
// have no vscode.l10n): the playground's strings and a sentence for every ExplorerError kind.
import * as vscode from 'vscode';
import { ExplorerError } from './explorer/errors';
import type { PlaygroundTexts } from './playground/playground-controller';

export function describeError(e: unknown): string {
  if (!(e instanceof ExplorerError)) return e instanceof Error ? e.message : String(e);
  switch (e.kind) {
    case 'unreachable':
      return vscode.l10n.t('The explorer at {0} cannot be reached. Is the serve-mode explorer running (and the SSH tunnel open)? ({1})', e.url, e.detail);
    case 'bad-gateway':
      return vscode.l10n.t(
        'The explorer at {0} answered 502: it cannot reach its inference engine (engines still starting, or being reloaded with new weights). ({1})',
        e.url,
        e.detail,
      );
    case 'gateway-timeout':
      return vscode.l10n.t('The explorer at {0} answered 504: its inference engine did not answer within synchronizer.sync_timeout. ({1})', e.url, e.detail);
    case 'timeout':
      return vscode.l10n.t('The explorer at {0} did not answer in time. ({1})', e.url, e.detail);
    case 'pre-0.4':
      return vscode.l10n.t(
        'The explorer at {0} has no /feedback or /commit: it is older than Trinity-RFT 0.4. Chat works; rewards and commits need Trinity-RFT 0.4 or newer.',
        e.url,
      );
    case 'protocol':
      return vscode.l10n.t('The explorer at {0} answered something unexpected. ({1})', e.url, e.detail);
    default:
      return vscode.l10n.t('The explorer at {0} answered with an error. ({1})', e.url, e.detail);
  }
}

export function playgroundTexts(): PlaygroundTexts {
  return {
    strings: {
      title: vscode.l10n.t('Online Training Playground'),
      connect: vscode.l10n.t('Connect to Online Explorer…'),
      notConnected: vscode.l10n.t('Not connected to an explorer.'),
      model: vscode.l10n.t('Model'),
      send: vscode.l10n.t('Send'),
      placeholder: vscode.l10n.t('Message the model being trained…'),
      alternatives: vscode.l10n.t('Alternatives'),
      maxTokens: vscode.l10n.t('Max tokens'),
      topP: vscode.l10n.t('Top p'),
      temperature: vscode.l10n.t('Temperature'),
      temperatureNote: vscode.l10n.t('Serve mode uses the config’s model.temperature: the explorer overrides this value.'),
      stream: vscode.l10n.t('Stream'),
      tools: vscode.l10n.t('Tools…'),
      toolsCount: vscode.l10n.t('{0} tools'),
      regenerate: vscode.l10n.t('Regenerate'),
      thumbUp: vscode.l10n.t('Good (reward 1)'),
      thumbDown: vscode.l10n.t('Bad (reward 0)'),
      good: vscode.l10n.t('Good'),
      bad: vscode.l10n.t('Bad'),
      score: vscode.l10n.t('Reward'),
      sendScore: vscode.l10n.t('Send reward'),
      rewardGroup: vscode.l10n.t('All good'),
      rewardGroupTitle: vscode.l10n.t('Reward every alternative 1'),
      choose: vscode.l10n.t('Prefer this one'),
      chosen: vscode.l10n.t('Preferred'),
      commit: vscode.l10n.t('Commit'),
      retry: vscode.l10n.t('Retry unsent'),
      unsent: vscode.l10n.t('unsent'),
      sent: vscode.l10n.t('sent'),
      sending: vscode.l10n.t('sending'),
      latency: vscode.l10n.t('latency'),
      tokens: vscode.l10n.t('tokens'),
      showTokens: vscode.l10n.t('Tokens'),
      showTokensTitle: vscode.l10n.t('This reply as tokens: ids, logprobs, what training learns from'),
      close: vscode.l10n.t('Close'),
      version: vscode.l10n.t('model version'),
      totalExp: vscode.l10n.t('Experiences'),
      readyExp: vscode.l10n.t('Rewarded (ready)'),
      step: vscode.l10n.t('Explore step'),
      requests: vscode.l10n.t('requests'),
      engine: vscode.l10n.t('engine'),
      newConversation: vscode.l10n.t('New conversation'),
      conversations: vscode.l10n.t('Saved conversations'),
      task: vscode.l10n.t('task'),
      refresh: vscode.l10n.t('Refresh'),
      noReward: vscode.l10n.t('This explorer is older than Trinity-RFT 0.4: rewards and commits are not available.'),
      you: vscode.l10n.t('You'),
      assistant: vscode.l10n.t('Model'),
    },
    l10n: vscode.l10n,
    describeError,
  };
}
