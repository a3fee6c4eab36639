// The experiences an episode returned as the token view shows them: the ids and action mask the
// workflow built (what the trainer will learn from), which message each token belongs to (from the
// run's chat template), and the mask warnings on their spans. Past the point where the ids stop
// following the template, the turns are not located and a note says so.
import type { ChatMessage } from '../../tokens/chat-template';
import { fromTensors, type TokenExperience, type TokenTexts } from '../../tokens/experience';
import { locateTurns, type MaskWarning, type TurnSpan } from '../../tokens/mask-check';
import { describeMaskWarning, describeMissing, type TokenL10n } from '../../tokens/strings';
import type { RunTokenizer } from '../../tokens/tokenizer';
import type { ExperienceTokens } from '../trajectory/runner-protocol';

export interface ReturnedTokens {
  /** The experience's index in what the workflow returned. */
  index: number;
  experience: TokenExperience;
  turns: TurnSpan[];
  warnings: MaskWarning[];
  /** Where the mask and the turns come from, the warnings worded, and what is missing: one line each. */
  notes: string[];
}

/** One returned experience with its turns and mask warnings; `tok` undefined: ids and mask only,
 *  with `texts` when the run's tokenizer is its endpoint's (/detokenize). */
export function returnedTokens(e: ExperienceTokens, tok: RunTokenizer | undefined, l10n: TokenL10n, texts?: TokenTexts): ReturnedTokens {
  const n = e.tokens.length;
  const promptLength = e.promptLength ?? (e.actionMask ? n - e.actionMask.length : n);
  // A response-length or whole-sequence mask, spread by fromTensors(); without one Trinity trains
  // the whole response, as fromTensors() marks it.
  const base = fromTensors({
    tokens: e.tokens,
    prompt_length: promptLength,
    ...(e.actionMask ? { action_mask: e.actionMask } : {}),
    ...(e.logprobs ? { logprobs: e.logprobs } : {}),
  });
  const found = tok ? tok.tokenTexts(base.ids) : texts;
  const experience: TokenExperience = found ? { ...base, texts: found, missing: base.missing.filter((m) => m.part !== 'text') } : base;
  const notes = [l10n.t('The tokens and action mask the workflow returned (experience {0}): what training learns from', e.index)];
  if (!e.actionMask) notes.push(l10n.t('The experience has no action mask: training learns from its whole response.'));
  const messages = Array.isArray(e.messages) ? (e.messages as ChatMessage[]) : [];
  const tools = Array.isArray(e.tools) && e.tools.length ? e.tools : undefined;
  let turns: TurnSpan[] = [];
  let warnings: MaskWarning[] = [];
  if (!tok?.chatTemplate) notes.push(l10n.t('No chat template: the turns are not shown and the mask is not checked.'));
  else if (!messages.length) notes.push(l10n.t('The experience carries no messages: the turns are not shown and the mask is not checked.'));
  else {
    try {
      const check = locateTurns(tok, e.tokens, experience.trained, messages, tools);
      turns = check.turns;
      warnings = check.warnings;
      if (check.divergesAt !== undefined)
        notes.push(l10n.t('From token {0} on, the tokens do not follow the chat template: the turns after it are not located.', check.divergesAt));
    } catch (err) {
      notes.push(l10n.t('The chat template cannot render these messages: {0}', (err as Error).message));
    }
  }
  notes.push(...warnings.map((w) => describeMaskWarning(w, l10n)), ...experience.missing.map((m) => describeMissing(m, l10n)));
  return { index: e.index, experience, turns, warnings, notes };
}
