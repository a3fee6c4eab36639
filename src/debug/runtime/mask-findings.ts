// The action masks of the experiences a workflow returned, checked against their messages: a
// workflow that builds Experience(tokens=…, action_mask=…) itself can mark tool output, a user
// turn or the system prompt as trained, and training then teaches the model text it never
// generated. Which message each token belongs to comes from the run's chat template.
import type { ChatMessage } from '../../tokens/chat-template';
import { checkMask, type MaskWarning } from '../../tokens/mask-check';
import type { RunTokenizer } from '../../tokens/tokenizer';
import type { ExperienceTokens } from '../trajectory/runner-protocol';

export interface ExperienceMaskWarning {
  /** The experience's index in what the workflow returned. */
  experience: number;
  warning: MaskWarning;
}

/** The whole sequence's mask (1 = trained): Trinity keeps it for the response only. */
function sequenceMask(e: ExperienceTokens): Uint8Array | undefined {
  const mask = e.actionMask;
  if (!mask) return undefined;
  if (mask.length === e.tokens.length) return Uint8Array.from(mask, (x) => (x ? 1 : 0));
  const promptLength = e.promptLength ?? e.tokens.length - mask.length;
  if (promptLength < 0 || promptLength + mask.length !== e.tokens.length) return undefined;
  const out = new Uint8Array(e.tokens.length);
  mask.forEach((x, i) => (out[promptLength + i] = x ? 1 : 0));
  return out;
}

/** Why an experience got no verdict: no mask that fits its tokens, no messages to locate the
 *  turns with (neither its own nor, for one Trinity's Workflow.process_messages_to_experience
 *  rebuilt without them, those the runner found by its ids among the model's conversions), no
 *  chat template, or a template that cannot render the messages. */
export type UncheckedReason = 'no-mask' | 'no-messages' | 'no-template' | 'template-error';

/** Warnings for each experience whose mask trains tokens no assistant generated, how many
 *  experiences got a verdict, and why the others did not (a note, not silence). */
export function maskWarnings(
  tok: RunTokenizer,
  exps: readonly ExperienceTokens[],
): { checked: number; warnings: ExperienceMaskWarning[]; unchecked: { experience: number; reason: UncheckedReason }[] } {
  const out: ExperienceMaskWarning[] = [];
  const unchecked: { experience: number; reason: UncheckedReason }[] = [];
  let checked = 0;
  for (const e of exps) {
    const trained = sequenceMask(e);
    const reason: UncheckedReason | undefined = !tok.chatTemplate
      ? 'no-template'
      : !trained
        ? 'no-mask'
        : !Array.isArray(e.messages) || !e.messages.length
          ? 'no-messages'
          : undefined;
    if (reason || !trained) {
      unchecked.push({ experience: e.index, reason: reason ?? 'no-mask' });
      continue;
    }
    try {
      const tools = Array.isArray(e.tools) && e.tools.length ? e.tools : undefined;
      const check = checkMask(tok, e.tokens, trained, e.messages as ChatMessage[], tools);
      for (const warning of check.warnings) out.push({ experience: e.index, warning });
      checked++;
    } catch {
      unchecked.push({ experience: e.index, reason: 'template-error' });
    }
  }
  return { checked, warnings: out, unchecked };
}
