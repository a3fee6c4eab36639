// One playground reply as tokens: the prompt and completion ids and logprobs the explorer passed
// through (its engine returns them so that Trinity can record the experience), their texts from
// the model's tokenizer, the completion marked as what training learns from. A reply without ids
// (an explorer whose engine returned none, a conversation reopened later) is re-tokenized from
// its messages with the tokenizer, and the notes say so.
import { fromEndpoint, retokenize, type TokenizerOrReason } from '../../tokens/build';
import type { ChatMessage } from '../../tokens/chat-template';
import type { TokenExperience } from '../../tokens/experience';
import { describeMissing, describeSource, type TokenL10n } from '../../tokens/strings';
import type { ReplyTokenIds } from '../explorer/reply-token-ids';

export interface ReplyRecord {
  /** The messages the reply answered. */
  prompt: ChatMessage[];
  tools?: unknown[];
  content: string;
  toolCalls?: { name: string; arguments: string }[];
  finishReason?: string | null;
  /** What the explorer returned of the reply's tokens, when it did. */
  ids?: ReplyTokenIds;
}

export class NoReplyTokens extends Error {}

export function replyTokens(r: ReplyRecord, tk: TokenizerOrReason, l10n: TokenL10n): { experience: TokenExperience; notes: string[] } {
  const notes = ['tokenizer' in tk ? l10n.t('Token texts from the tokenizer of {0}', tk.tokenizer.name) : l10n.t('No tokenizer: {0}', tk.reason)];
  let e: TokenExperience;
  if (r.ids) {
    e = fromEndpoint(
      {
        promptIds: r.ids.promptIds,
        completionIds: r.ids.completionIds,
        logprobs: r.ids.logprobs ?? null,
        finishReason: r.finishReason,
        responseText: r.content,
      },
      tk,
    );
    notes.push(l10n.t('Token ids and logprobs as the explorer returned them.'));
    if (!r.ids.promptIds.length) notes.push(l10n.t('The endpoint returned no prompt token ids: the completion only.'));
  } else if ('tokenizer' in tk) {
    const reply: ChatMessage = { role: 'assistant', content: r.content };
    if (r.toolCalls?.length)
      reply.tool_calls = r.toolCalls.map((c, i) => ({ id: `call_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    e = retokenize(
      {
        messages: [...r.prompt, reply],
        tools: r.tools ?? null,
        response_text: r.content,
        truncate_status: r.finishReason === 'length' ? 'response_truncated' : null,
      },
      tk.tokenizer,
    );
    notes.push(
      l10n.t('The explorer returned no token ids for this reply: re-tokenized from the messages with the tokenizer of {0} (no logprobs).', tk.tokenizer.name),
    );
  } else {
    throw new NoReplyTokens(l10n.t('The explorer returned no token ids for this reply, and there is no tokenizer to re-tokenize it: {0}', tk.reason));
  }
  notes.push(describeSource(e.source, l10n), ...e.missing.map((m) => describeMissing(m, l10n)));
  return { experience: e, notes };
}
