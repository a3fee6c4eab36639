// One rollout of the drill-down as tokens: the relay's `tokens` reply (an SQL row's ids,
// logprobs, mask and advantages; a file-buffer or queue-backup line's texts) made into the token
// model with the run's tokenizer, and the lines the view shows about it — which tokenizer, where
// the tokens come from, what is missing and why — and, when the run's tokenizer has a chat
// template and the row its messages, which message each token belongs to (the turns the view
// labels) and the mask warnings. Pure (no vscode).
import type { TokensReply } from '../../relay-protocol/tokens-frame';
import type { TokenizerOrReason } from '../../tokens/build';
import type { ChatMessage } from '../../tokens/chat-template';
import type { TokenExperience } from '../../tokens/experience';
import { type ExperienceWire, toWire } from '../../tokens/experience-wire';
import { locateTurns } from '../../tokens/mask-check';
import { ReplyError, experienceOfReply } from '../../tokens/relay-reply';
import { describeMaskWarning, describeMissing, describeSource, type TokenL10n } from '../../tokens/strings';
import type { TokenMarks } from '../../webview-ui/token-view/marks';

export interface ExperienceTokenView {
  experience: ExperienceWire;
  notes: string[];
  /** The turns and mask warnings, when the chat template locates them. */
  marks?: TokenMarks;
}

/** The turns of `e` from the reply's messages and the tokenizer's chat template (or a note why not). */
function turnMarks(reply: TokensReply, tk: TokenizerOrReason, e: TokenExperience, notes: string[], l10n: TokenL10n): TokenMarks | undefined {
  const messages = Array.isArray(reply.messages) ? (reply.messages as ChatMessage[]) : [];
  if (!('tokenizer' in tk) || !messages.length) return undefined;
  if (!tk.tokenizer.chatTemplate) {
    notes.push(l10n.t('No chat template: the turns are not shown and the mask is not checked.'));
    return undefined;
  }
  try {
    const tools = Array.isArray(reply.tools) && reply.tools.length ? reply.tools : undefined;
    const found = locateTurns(tk.tokenizer, e.ids, e.trained, messages, tools);
    if (found.divergesAt !== undefined)
      notes.push(l10n.t('From token {0} on, the tokens do not follow the chat template: the turns after it are not located.', found.divergesAt));
    notes.push(...found.warnings.map((w) => describeMaskWarning(w, l10n)));
    return { turns: found.turns, warnings: found.warnings };
  } catch (err) {
    notes.push(l10n.t('The chat template cannot render these messages: {0}', (err as Error).message));
    return undefined;
  }
}

/** The token view of a reply; throws an Error with a message for the user when it cannot be built. */
export function experienceTokenView(reply: TokensReply, tk: TokenizerOrReason, l10n: TokenL10n): ExperienceTokenView {
  let e;
  try {
    e = experienceOfReply(reply, tk);
  } catch (err) {
    if (err instanceof ReplyError && reply.kind !== 'tensors')
      throw new Error(l10n.t('This experience keeps only texts, and there is no tokenizer to re-tokenize them: {0}', err.message), { cause: err });
    throw err;
  }
  // Without a tokenizer, the missing text part says why (its detail is the lookup's reason).
  const notes = 'tokenizer' in tk ? [l10n.t('Token texts from the tokenizer of {0}', tk.tokenizer.name)] : [];
  notes.push(describeSource(e.source, l10n), ...e.missing.map((m) => describeMissing(m, l10n)));
  const marks = turnMarks(reply, tk, e, notes, l10n);
  return { experience: toWire(e), notes, ...(marks ? { marks } : {}) };
}
