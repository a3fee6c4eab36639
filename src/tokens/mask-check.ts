// The mask check of an experience a workflow built itself (Experience(tokens=…, action_mask=…)):
// tokens of a tool result, a user turn or the system prompt marked as trained teach the model to
// produce text it never generated — the bug upstream trackers keep finding in agent frameworks.
// Which message each token belongs to comes from the chat template (the same rendering Trinity's
// mask uses); each run of wrongly trained tokens is one warning with its span and text.
import { type ChatMessage, type MessageSpan, TEMPLATE_ROLE, messageSpans, renderChat } from './chat-template';
import type { RunTokenizer } from './tokenizer';

export interface MaskWarning {
  /** The message whose tokens are trained (-1: what the template adds before the first). */
  message: number;
  role: string;
  /** Token span [start, end) in the experience's sequence. */
  start: number;
  end: number;
  text: string;
}

export interface MaskCheck {
  warnings: MaskWarning[];
  /**
   * The experience's tokens do not follow the template from this index on (another template, or
   * drift), so the messages are not located past it; undefined when they follow it throughout.
   */
  divergesAt?: number;
}

/** Roles whose tokens a policy never generates. */
const NOT_GENERATED = new Set(['tool', 'user', 'system', 'function', 'ipython', TEMPLATE_ROLE]);

/**
 * Warnings for tokens of non-assistant messages that `trained` marks (1 = trained), per token of
 * `ids` (the whole sequence; a response-only mask is spread by the token model first).
 */
export function checkMask(
  tok: RunTokenizer,
  ids: ArrayLike<number>,
  trained: ArrayLike<number>,
  messages: readonly ChatMessage[],
  tools?: readonly unknown[],
): MaskCheck {
  const spans: MessageSpan[] = withPreamble(messageSpans(tok, messages, tools));
  const full = tok.encode(renderChat(tok, messages, { tools }));
  let same = 0;
  while (same < ids.length && same < full.length && ids[same] === full[same]) same++;
  const divergesAt = same < Math.max(ids.length, full.length) ? same : undefined;
  const warnings: MaskWarning[] = [];
  for (const s of spans) {
    if (!NOT_GENERATED.has(s.role)) continue;
    const end = Math.min(s.end, same);
    let i = s.start;
    while (i < end) {
      if (!trained[i]) {
        i++;
        continue;
      }
      let j = i;
      while (j < end && trained[j]) j++;
      warnings.push({ message: s.index, role: s.role, start: i, end: j, text: tok.decode(Array.prototype.slice.call(ids, i, j) as number[]) });
      i = j;
    }
  }
  return { warnings, divergesAt };
}

/** The tokens [start, end) of one message of an experience (message -1: what the template adds before the first). */
export interface TurnSpan {
  message: number;
  role: string;
  start: number;
  end: number;
}

/**
 * Which message each token belongs to (the turns a token view labels) and the mask warnings,
 * for the whole sequence `ids`; past the token where the ids stop following the template, the
 * turns are not located (`divergesAt`). Throws when the template cannot render the messages.
 */
export function locateTurns(
  tok: RunTokenizer,
  ids: ArrayLike<number>,
  trained: ArrayLike<number>,
  messages: readonly ChatMessage[],
  tools?: readonly unknown[],
): MaskCheck & { turns: TurnSpan[] } {
  const check = checkMask(tok, ids, trained, messages, tools);
  const upTo = check.divergesAt ?? ids.length;
  const turns = withPreamble(messageSpans(tok, messages, tools))
    .filter((s) => s.start < upTo)
    .map((s) => ({ message: s.index, role: s.role, start: s.start, end: Math.min(s.end, upTo) }));
  return { ...check, turns };
}

/** The spans with what the template puts before the first message as one of their own (index -1). */
function withPreamble(spans: MessageSpan[]): MessageSpan[] {
  const preamble = spans[0]?.start ?? 0;
  return preamble > 0 ? [{ index: -1, role: TEMPLATE_ROLE, start: 0, end: preamble }, ...spans] : spans;
}
