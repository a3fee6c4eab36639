// The turns of an experience that keeps only tokens (Trinity 0.5.2's multi-turn workflows:
// MultiTurnWorkflow.process_messages_to_experience keeps the tokens, the prompt length and the
// action mask, and drops the messages), rebuilt with the run's tokenizer. Trinity's mask
// (trinity/common/models/utils.py, tokenize_and_mask_messages_default; mirrored in
// src/tokens/chat-template.ts) marks, for each assistant message, the tokens between the
// conversation before it rendered with the generation prompt and the conversation with it: the
// message's content and what the template closes its turn with (Qwen's <|im_end|> and newline).
// So each run of the mask, decoded, less that closing, is one assistant turn's text; the tokens
// before the run, decoded, are exactly what the model was prompted with for it, which the
// workflow's request rendered through the chat template must equal. The first user message (what
// stands in for a task that cannot be found) is read back out of the first prompt between what
// the template writes around a user message. Pure.
import { renderChat, type ChatMessage } from '../../tokens/chat-template';
import type { RunTokenizer } from '../../tokens/tokenizer';
import type { RecordedExperience } from './recorded';

/** Each recorded assistant turn: its text, and the rendered prompt the model answered it to. */
export interface TokenTurns {
  texts: string[];
  prompts: string[];
  /** The first user message's text, read out of the first prompt (undefined: the template's frame around it not found there). */
  firstUser?: string;
  /** The chat template's rendering of a request, with the generation prompt (what `prompts` hold). */
  render(messages: readonly ChatMessage[]): string;
}

const SENTINEL = '\u2063agentrl-turn\u2063';

/** What the template writes around an assistant message's content: [before, after]. */
function assistantFrame(tok: RunTokenizer): [string, string] | undefined {
  const user: ChatMessage = { role: 'user', content: 'x' };
  const prompt = renderChat(tok, [user], { addGenerationPrompt: true });
  const full = renderChat(tok, [user, { role: 'assistant', content: SENTINEL }]);
  if (!full.startsWith(prompt)) return undefined;
  const tail = full.slice(prompt.length);
  const at = tail.indexOf(SENTINEL);
  return at < 0 ? undefined : [tail.slice(0, at), tail.slice(at + SENTINEL.length)];
}

const longestCommonSuffix = (a: string, b: string): string => {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return a.slice(a.length - n);
};
const longestCommonPrefix = (a: string, b: string): string => {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
};

/** What the template writes around a user message's content: [opening, closing]. The opening is
 *  what precedes it after a system message and without one (a default system prompt is not part
 *  of it); the closing, what follows it whether the next message is the assistant's or the user's. */
function userFrame(tok: RunTokenizer): [string, string] | undefined {
  const split = (messages: ChatMessage[], gen: boolean): [string, string] | undefined => {
    const text = renderChat(tok, messages, { addGenerationPrompt: gen });
    const at = text.indexOf(SENTINEL);
    return at < 0 ? undefined : [text.slice(0, at), text.slice(at + SENTINEL.length)];
  };
  const user: ChatMessage = { role: 'user', content: SENTINEL };
  const alone = split([user], true);
  const afterSystem = split([{ role: 'system', content: '\u2063' }, user], true);
  const beforeUser = split([user, { role: 'user', content: 'x' }], false);
  if (!alone || !afterSystem || !beforeUser) return undefined;
  const open = longestCommonSuffix(alone[0], afterSystem[0]);
  const close = longestCommonPrefix(alone[1], beforeUser[1]);
  return open && close ? [open, close] : undefined;
}

/** The first user message's text in `prompt` (a rendered conversation), or undefined. */
function firstUserIn(prompt: string, tok: RunTokenizer): string | undefined {
  let frame: [string, string] | undefined;
  try {
    frame = userFrame(tok);
  } catch {
    return undefined;
  }
  if (!frame) return undefined;
  const start = prompt.indexOf(frame[0]);
  if (start < 0) return undefined;
  const from = start + frame[0].length;
  const end = prompt.indexOf(frame[1], from);
  return end < 0 ? undefined : prompt.slice(from, end);
}

/** The turns of `x` (which keeps tokens), or why they cannot be rebuilt with `tok`. */
export function tokenTurns(x: RecordedExperience, tok: RunTokenizer): TokenTurns | { error: string } {
  if (!x.tokens) return { error: `experience ${x.id} keeps no tokens` };
  if (!tok.chatTemplate) return { error: `the tokenizer ${tok.name} has no chat template to render the workflow's requests with` };
  let frame: [string, string] | undefined;
  try {
    frame = assistantFrame(tok);
  } catch (e) {
    return { error: (e as Error).message };
  }
  if (!frame) return { error: `${tok.name}'s chat template does not render an assistant message after its generation prompt` };
  const [before, after] = frame;
  const { ids, spans } = x.tokens;
  const texts: string[] = [];
  const prompts: string[] = [];
  for (const [start, end] of spans) {
    let text = tok.decode(ids.slice(start, end));
    if (before && text.startsWith(before)) text = text.slice(before.length);
    // The closing; a last turn cut at max_model_len may keep only part of it.
    for (let k = after.length; k > (end === ids.length ? 0 : after.length - 1); k--) {
      if (text.endsWith(after.slice(0, k))) {
        text = text.slice(0, text.length - k);
        break;
      }
    }
    texts.push(text);
    prompts.push(tok.decode(ids.slice(0, start)));
  }
  const firstUser = prompts.length ? firstUserIn(prompts[0], tok) : undefined;
  return { texts, prompts, ...(firstUser !== undefined ? { firstUser } : {}), render: (messages) => renderChat(tok, messages, { addGenerationPrompt: true }) };
}
