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
export function sequenceMask(e: ExperienceTokens): Uint8Array | undefined {
  const mask = e.actionMask;
  if (!mask) return undefined;
  if (mask.length === e.tokens.length) return Uint8Array.from(mask, (x) => (x ? 1 : 0));
  const promptLength = e.promptLength ?? e.tokens.length - mask.length;
  if (promptLength < 0 || promptLength + mask.length !== e.tokens.length) return undefined;
  const out = new Uint8Array(e.tokens.length);
  mask.forEach((x, i) => (out[promptLength + i] = x ? 1 : 0));
  return out;
}

/** Warnings for each experience whose mask trains tokens no assistant generated, and how many
 *  experiences got a verdict (a mask, messages, a template that renders them). */
export function maskWarnings(tok: RunTokenizer, exps: readonly ExperienceTokens[]): { checked: number; warnings: ExperienceMaskWarning[] } {
  const out: ExperienceMaskWarning[] = [];
  let checked = 0;
  if (!tok.chatTemplate) return { checked, warnings: out };
  for (const e of exps) {
    const trained = sequenceMask(e);
    if (!trained || !Array.isArray(e.messages) || !e.messages.length) continue;
    try {
      const tools = Array.isArray(e.tools) && e.tools.length ? e.tools : undefined;
      const check = checkMask(tok, e.tokens, trained, e.messages as ChatMessage[], tools);
      for (const warning of check.warnings) out.push({ experience: e.index, warning });
      checked++;
    } catch {
      // a template that cannot render these messages: no verdict, not a finding
    }
  }
  return { checked, warnings: out };
}
