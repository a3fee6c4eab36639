// One rollout of the drill-down as tokens: the relay's `tokens` reply (an SQL row's ids,
// logprobs, mask and advantages; a file-buffer or queue-backup line's texts) made into the token
// model with the run's tokenizer, and the lines the view shows about it — which tokenizer, where
// the tokens come from, what is missing and why. Pure (no vscode).
import type { TokensReply } from '../../relay-protocol/tokens-frame';
import type { TokenizerOrReason } from '../../tokens/build';
import { type ExperienceWire, toWire } from '../../tokens/experience-wire';
import { ReplyError, experienceOfReply } from '../../tokens/relay-reply';
import { describeMissing, describeSource, type TokenL10n } from '../../tokens/strings';

export interface ExperienceTokenView {
  experience: ExperienceWire;
  notes: string[];
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
  return { experience: toWire(e), notes };
}
