// The token model from each place tokens come from: a buffer row's tensors (with the run's
// tokenizer for the texts, or the reason there is none), the text or messages a file buffer or
// queue backup keeps (re-tokenized: no logprobs, the mask from the chat template), and one LLM
// call as the endpoint reported it.
import { type ChatMessage, ChatTemplateError, tokenizeAndMask } from './chat-template';
import { type ExperienceTensors, fromTensors, type MissingPart, type TokenExperience } from './experience';
import type { RunTokenizer } from './tokenizer';

/** A tokenizer, or why there is none (shown next to the bare ids). */
export type TokenizerOrReason = { tokenizer: RunTokenizer } | { reason: string };

/** A buffer row: its own ids, logprobs and mask; texts from the tokenizer when there is one. */
export function fromBuffer(t: ExperienceTensors, tk: TokenizerOrReason): TokenExperience {
  if ('tokenizer' in tk) {
    const e = fromTensors(t);
    return { ...e, texts: tk.tokenizer.tokenTexts(e.ids), missing: e.missing.filter((m) => m.part !== 'text') };
  }
  const e = fromTensors(t);
  return { ...e, missing: e.missing.map((m): MissingPart => (m.part === 'text' ? { ...m, detail: tk.reason } : m)) };
}

const retokenizedNotes: MissingPart[] = [
  { part: 'logprobs', reason: 'retokenized' },
  { part: 'advantages', reason: 'retokenized' },
];

/** What a file buffer / queue backup line keeps (Experience.to_dict): messages, or prompt and response text. */
export interface StoredTexts {
  messages?: ChatMessage[] | null;
  tools?: unknown[] | null;
  prompt_text?: string | null;
  response_text?: string | null;
  truncate_status?: string | null;
}

/**
 * Re-tokenized with the run's tokenizer: from the messages through the chat template (Trinity's
 * mask) when there are messages and a template, else prompt + response text (the response trained).
 */
export function retokenize(s: StoredTexts, tok: RunTokenizer): TokenExperience {
  const status = s.truncate_status ?? null;
  const base = { truncateStatus: status, truncated: !!status, responseText: s.response_text ?? undefined };
  let templateFailed: string | undefined;
  if (s.messages?.length && tok.chatTemplate) {
    let t;
    try {
      t = tokenizeAndMask(tok, s.messages, s.tools ?? undefined);
    } catch (e) {
      // A template that fails (or goes over its budget) costs the mask only: the texts are still tokenized.
      if (!(e instanceof ChatTemplateError)) throw e;
      templateFailed = e.message;
    }
    if (t)
      return {
        ...base,
        ids: t.ids,
        promptLength: t.promptLength,
        trained: t.mask,
        texts: tok.tokenTexts(t.ids),
        source: { kind: 'retokenized', from: 'messages' },
        missing: retokenizedNotes,
      };
  }
  const prompt = tok.encode(s.prompt_text ?? '');
  const response = tok.encode(s.response_text ?? '');
  const ids = new Int32Array(prompt.length + response.length);
  ids.set(prompt);
  ids.set(response, prompt.length);
  const trained = new Uint8Array(ids.length).fill(1, prompt.length);
  return {
    ...base,
    ids,
    promptLength: prompt.length,
    trained,
    texts: tok.tokenTexts(ids),
    source: { kind: 'retokenized', from: 'text' },
    missing: [
      ...retokenizedNotes,
      ...(s.messages?.length ? [{ part: 'mask', reason: 'retokenized', detail: templateFailed ?? 'no chat template' } satisfies MissingPart] : []),
    ],
  };
}

/** One LLM call: the prompt ids, the completion ids and their logprobs as the endpoint returned them. */
export interface EndpointTokens {
  promptIds: ArrayLike<number>;
  completionIds: ArrayLike<number>;
  /** Per completion token, when the call asked for logprobs. */
  logprobs?: ArrayLike<number> | null;
  finishReason?: string | null;
  responseText?: string;
}

export function fromEndpoint(c: EndpointTokens, tk: TokenizerOrReason): TokenExperience {
  const truncated = c.finishReason === 'length';
  const e = fromTensors({
    tokens: [...Array.from(c.promptIds), ...Array.from(c.completionIds)],
    prompt_length: c.promptIds.length,
    logprobs: c.logprobs ?? undefined,
    truncate_status: truncated ? 'response_truncated' : null,
    response_text: c.responseText,
  });
  const texts = 'tokenizer' in tk ? tk.tokenizer.tokenTexts(e.ids) : undefined;
  const missing = e.missing
    .filter((m) => m.part !== 'text' || !texts)
    .map((m): MissingPart => (m.part === 'text' && 'reason' in tk ? { ...m, detail: tk.reason } : m));
  return { ...e, texts, source: { kind: 'endpoint' }, missing };
}
