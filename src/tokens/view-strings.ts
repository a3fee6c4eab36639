// The token view's words, localized on the extension host (a webview has no vscode.l10n): a
// feature passes vscode.l10n here and sends the result to its webview with the data. `{n}`
// placeholders are filled in the webview (fillString).
import type { TokenL10n } from './strings';

export interface TokenViewStrings {
  searchPlaceholder: string;
  previousMatch: string;
  nextMatch: string;
  matches: string;
  noMatch: string;
  lowest: string;
  copyJson: string;
  copied: string;
  colourBy: string;
  byLogprob: string;
  byMask: string;
  byAdvantage: string;
  summaryTokens: string;
  summaryTrained: string;
  summaryMeanLogprob: string;
  truncated: string;
  emptyResponse: string;
  prompt: string;
  trained: string;
  notTrained: string;
  token: string;
  id: string;
  logprob: string;
  probability: string;
  advantage: string;
  returnValue: string;
  tokenReward: string;
  special: string;
  partial: string;
  noText: string;
  turn: string;
  /** `{0}` the message's index, `{1}` its role. */
  turnValue: string;
  /** The label of what the template puts before the first message (its default system prompt, a BOS). */
  templateTurn: string;
  maskWarning: string;
}

export function tokenViewStrings(l10n: TokenL10n): TokenViewStrings {
  return {
    searchPlaceholder: l10n.t('Search tokens (text or #id)'),
    previousMatch: l10n.t('Previous match'),
    nextMatch: l10n.t('Next match'),
    matches: l10n.t('{0} of {1}'),
    noMatch: l10n.t('No match'),
    lowest: l10n.t('Lowest logprob'),
    copyJson: l10n.t('Copy as JSON'),
    copied: l10n.t('Copied'),
    colourBy: l10n.t('Colour by'),
    byLogprob: l10n.t('logprob'),
    byMask: l10n.t('mask'),
    byAdvantage: l10n.t('advantage'),
    summaryTokens: l10n.t('{0} tokens'),
    summaryTrained: l10n.t('{0} trained'),
    summaryMeanLogprob: l10n.t('mean logprob {0}'),
    truncated: l10n.t('truncated'),
    emptyResponse: l10n.t('empty response'),
    prompt: l10n.t('prompt'),
    trained: l10n.t('trained'),
    notTrained: l10n.t('not trained'),
    token: l10n.t('token {0}'),
    id: l10n.t('id'),
    logprob: l10n.t('logprob'),
    probability: l10n.t('probability'),
    advantage: l10n.t('advantage'),
    returnValue: l10n.t('return'),
    tokenReward: l10n.t('token reward'),
    special: l10n.t('special token'),
    partial: l10n.t('part of a character: bytes {0}'),
    noText: l10n.t('no tokenizer: ids only'),
    turn: l10n.t('message'),
    turnValue: l10n.t('{0} ({1})'),
    templateTurn: l10n.t('added by the chat template'),
    maskWarning: l10n.t('trained, but the model did not generate it'),
  };
}

/** `{0}`, `{1}`… filled in (the webview's side of the placeholders). */
export function fillString(s: string, ...args: Array<string | number>): string {
  return s.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}
