// The token model of a relay's `tokens` reply. Token texts come from the run's tokenizer on this
// side (the editor, `agentrl tokens`), not from the relay: the Python relay runs where only the
// standard library may be, the ids are all a view needs from the node, and the model folder or
// the HF cache is usually here too. An SQL row brings its own ids, logprobs and mask; a
// file-buffer / queue-backup line brings only texts, re-tokenized here and marked so.
import type { TokensReply } from '../relay-protocol/tokens-frame';
import { type StoredTexts, type TokenizerOrReason, fromBuffer, retokenize } from './build';
import type { ChatMessage } from './chat-template';
import type { TokenExperience } from './experience';

/** Why a reply cannot become a token view (a texts row without a tokenizer). */
export class ReplyError extends Error {}

/** The experience a reply holds; throws ReplyError when it cannot be built. */
export function experienceOfReply(r: TokensReply, tk: TokenizerOrReason): TokenExperience {
  if (r.kind === 'tensors') {
    const a = r.arrays;
    if (!a.tokens) throw new ReplyError('the relay sent no token ids');
    return fromBuffer(
      {
        tokens: a.tokens,
        prompt_length: r.prompt_length ?? 0,
        logprobs: a.logprobs,
        action_mask: a.action_mask,
        advantages: a.advantages,
        returns: a.returns,
        token_level_reward: a.token_level_reward,
        truncate_status: r.truncate_status,
        response_text: r.response_text,
      },
      tk,
    );
  }
  if (!('tokenizer' in tk)) throw new ReplyError(tk.reason);
  const texts: StoredTexts = {
    messages: (r.messages as ChatMessage[] | null | undefined) ?? null,
    tools: r.tools ?? null,
    prompt_text: r.prompt_text ?? null,
    response_text: r.response_text ?? null,
    truncate_status: r.truncate_status,
  };
  return retokenize(texts, tk.tokenizer);
}
