// What the token library's findings say to a person, through an injected `l10n.t` (vscode.l10n
// in the extension, plain English in the CLI and tests; every literal has its zh-cn entry in
// l10n/bundle.l10n.zh-cn.json). The findings themselves are data (kinds, counts, spans), so a
// view can also draw them; these functions only word them.
import type { DriftFinding } from './drift';
import type { MissingPart, TokenSource } from './experience';
import type { GroupFlag } from './group-health';
import type { MaskWarning } from './mask-check';

/** VS Code's l10n shape: `{0}` placeholders. */
export interface TokenL10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** A reward as people write it: 1.0, 0.5, 0.3333. */
function formatReward(r: number | null): string {
  if (r === null || !Number.isFinite(r)) return String(r);
  return Number.isInteger(r) ? r.toFixed(1) : String(Number(r.toPrecision(4)));
}

/** Text shown inline: at most `max` characters, newlines as ↵. */
function snippet(text: string, max = 40): string {
  const flat = text.replace(/\r?\n/g, '↵');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function describeGroupFlag(f: GroupFlag, l10n: TokenL10n): string {
  switch (f.kind) {
    case 'no-gradient':
      return f.why === 'equal-rewards'
        ? l10n.t('All {0} rewards are {1}: this group contributes nothing', f.size, formatReward(f.reward))
        : l10n.t('All {0} advantages are zero: this group contributes nothing', f.size);
    case 'truncated':
      return l10n.t('{0} of {1} responses truncated', f.count, f.size);
    case 'empty':
      return l10n.t('{0} of {1} responses empty', f.count, f.size);
    case 'nothing-trained':
      return l10n.t('{0} of {1} experiences have no trained token (mask all zero)', f.count, f.size);
  }
}

function roleWhere(role: string | undefined, l10n: TokenL10n): string {
  if (role === 'tool') return l10n.t('after the tool result');
  if (role === 'user') return l10n.t('after the user message');
  if (role === 'system') return l10n.t('in the system prompt');
  if (role === 'assistant') return l10n.t('in the assistant message');
  return l10n.t('in the conversation');
}

export function describeDrift(f: DriftFinding, l10n: TokenL10n): string {
  const where = f.part === 'completion' ? l10n.t('in the completion') : roleWhere(f.afterRole, l10n);
  // The same text split otherwise: the engine sampled a split the tokenizer never produces.
  if (f.engineText === f.templateText) {
    return l10n.t(
      'Turn {0}: `{1}` {2} is {3} engine tokens where re-tokenizing gives {4} (same text, another split)',
      f.turn,
      snippet(f.engineText),
      where,
      f.engineIds.length,
      f.templateIds.length,
    );
  }
  return l10n.t('Turn {0}: {1} tokens differ {2}: engine `{3}` vs template `{4}`', f.turn, f.count, where, snippet(f.engineText), snippet(f.templateText));
}

export function describeMaskWarning(w: MaskWarning, l10n: TokenL10n): string {
  if (w.message < 0)
    return l10n.t(
      '{0} tokens the chat template puts before the first message (tokens {1}–{2}) are trained: `{3}`',
      w.end - w.start,
      w.start,
      w.end,
      snippet(w.text),
    );
  const what = w.role === 'tool' ? l10n.t('tool output') : w.role === 'user' ? l10n.t('user message') : w.role === 'system' ? l10n.t('system prompt') : w.role;
  return l10n.t('{0} tokens of {1} (message {2}, tokens {3}–{4}) are trained: `{5}`', w.end - w.start, what, w.message, w.start, w.end, snippet(w.text));
}

export function describeSource(s: TokenSource, l10n: TokenL10n): string {
  if (s.kind === 'buffer') return l10n.t('from the experience buffer');
  if (s.kind === 'endpoint') return l10n.t('from the inference endpoint');
  return s.from === 'messages'
    ? l10n.t("re-tokenized from the messages with the run's tokenizer: no logprobs, mask from the chat template")
    : l10n.t("re-tokenized from the text with the run's tokenizer: no logprobs");
}

export function describeMissing(m: MissingPart, l10n: TokenL10n): string {
  const detail = m.detail ? ` (${m.detail})` : '';
  switch (m.reason) {
    case 'no-tokenizer':
      return l10n.t("No tokenizer found: ids and the experience's own response text only") + detail;
    case 'bad-tokenizer':
      return l10n.t('The tokenizer could not be loaded') + detail;
    case 'not-stored':
      return l10n.t('{0} not stored in this experience', m.part);
    case 'retokenized':
      return l10n.t('{0} not available for re-tokenized text', m.part);
    case 'length-mismatch':
      return l10n.t('{0} has a length that does not fit the tokens', m.part) + detail;
  }
}
