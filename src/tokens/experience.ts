// One experience as training sees it, token by token: the ids of the whole sequence (prompt then
// response) with, per token, the logprob, whether it is trained (the action mask), the advantage,
// return and token-level reward when there are any. Everything is a typed array of the sequence's
// length, so a 32 k-token experience is a few hundred KB that crosses a binary frame or a
// postMessage as is. Trinity-RFT stores the per-token tensors for the response only
// ([resp_length], prompt_length tokens into `tokens`); fromTensors() spreads them over the
// whole sequence, NaN / 0 in the prompt. Pure data: no tokenizer, no DOM, no node.

/** Where the ids and numbers came from, as the view must say it. */
export type TokenSource =
  /** The experience's own tensors (Trinity's SQL buffer): real ids, logprobs and mask. */
  | { kind: 'buffer' }
  /** Re-tokenized from the stored text or messages with the run's tokenizer: no logprobs, the mask from the chat template. */
  | { kind: 'retokenized'; from: 'messages' | 'text' }
  /** Ids (and logprobs when asked) the inference endpoint returned for one call. */
  | { kind: 'endpoint' };

/** A part of the view that could not be filled, and why (a code the view words; `detail` is shown as is). */
export interface MissingPart {
  part: 'text' | 'logprobs' | 'mask' | 'advantages' | 'ids';
  reason: 'no-tokenizer' | 'not-stored' | 'retokenized' | 'length-mismatch' | 'bad-tokenizer';
  detail?: string;
}

/** Per-token text from the run's tokenizer, packed: token i's text is joined.slice(offsets[i], offsets[i + 1]). */
export interface TokenTexts {
  /** All token texts joined: equals the tokenizer's decode of the ids (specials included). */
  joined: string;
  /** n + 1 offsets into `joined` (UTF-16 code units). */
  offsets: Uint32Array;
  /** Per token: FLAG_SPECIAL, FLAG_PARTIAL. */
  flags: Uint8Array;
  /**
   * Tokens holding only part of a character's UTF-8 bytes (byte-level BPE), as hex ("e4 b8"): their
   * text is empty, the character goes to the token that completes it — so the join stays exact
   * and the view shows these bytes instead.
   */
  partialBytes: Record<number, string>;
}

export const FLAG_SPECIAL = 1;
export const FLAG_PARTIAL = 2;

export interface TokenExperience {
  ids: Int32Array;
  /** The first `promptLength` ids are the prompt. */
  promptLength: number;
  /** Per token; NaN where absent (the prompt, a re-tokenized experience). */
  logprobs?: Float32Array;
  /** Per token: 1 trained on (the action mask), 0 not (prompt, tool output, masked turn). */
  trained: Uint8Array;
  advantages?: Float32Array;
  returns?: Float32Array;
  tokenLevelReward?: Float32Array;
  /** Trinity's truncate_status ("response_truncated", "prompt_truncated") or null. */
  truncateStatus: string | null;
  truncated: boolean;
  responseText?: string;
  texts?: TokenTexts;
  source: TokenSource;
  missing: MissingPart[];
}

/** The per-token tensors of one experience as decoded from a buffer row (Trinity's field names and shapes). */
export interface ExperienceTensors {
  /** [seq]: int64 in the buffer; any integer array. */
  tokens: ArrayLike<number> | BigInt64Array;
  prompt_length: number;
  /** [resp] (or [seq]) */
  logprobs?: ArrayLike<number>;
  /** [resp] (or [seq]); booleans as 0/1. */
  action_mask?: ArrayLike<number>;
  advantages?: ArrayLike<number>;
  returns?: ArrayLike<number>;
  token_level_reward?: ArrayLike<number>;
  truncate_status?: string | null;
  response_text?: string | null;
}

function toIds(a: ArrayLike<number> | BigInt64Array): Int32Array {
  const out = new Int32Array(a.length);
  if (a instanceof BigInt64Array) for (let i = 0; i < a.length; i++) out[i] = Number(a[i]);
  else for (let i = 0; i < a.length; i++) out[i] = a[i];
  return out;
}

/**
 * A response-length (or sequence-length) tensor spread over the whole sequence, `fill` in the
 * prompt; undefined with a `length-mismatch` note when it fits neither (the way Trinity's own
 * experience visualizer accepts both shapes).
 */
function spread(
  name: MissingPart['part'],
  a: ArrayLike<number> | undefined,
  n: number,
  promptLength: number,
  fill: number,
  missing: MissingPart[],
): Float32Array | undefined {
  if (!a) return undefined;
  const out = new Float32Array(n).fill(fill);
  if (a.length === n) out.set(a);
  else if (a.length === n - promptLength) out.set(a, promptLength);
  else if (a.length < n - promptLength) {
    // Trinity's prompt-truncated placeholders carry one value for a longer response: keep what is there.
    out.set(a, promptLength);
    missing.push({ part: name, reason: 'length-mismatch', detail: `${a.length} of ${n - promptLength}` });
  } else {
    missing.push({ part: name, reason: 'length-mismatch', detail: `${a.length} for ${n} tokens (prompt ${promptLength})` });
    return undefined;
  }
  return out;
}

/** The token model of a buffer row's tensors (Trinity's Experience fields). */
export function fromTensors(t: ExperienceTensors, texts?: TokenTexts): TokenExperience {
  const ids = toIds(t.tokens);
  const n = ids.length;
  const promptLength = Math.max(0, Math.min(n, Math.floor(t.prompt_length)));
  const missing: MissingPart[] = [];
  const trained = new Uint8Array(n);
  if (t.action_mask) {
    const mask = spread('mask', t.action_mask, n, promptLength, 0, missing);
    if (mask) for (let i = 0; i < n; i++) trained[i] = mask[i] ? 1 : 0;
  } else {
    // Trinity's single-turn experiences get an all-ones response mask on construction.
    trained.fill(1, promptLength);
  }
  const logprobs = spread('logprobs', t.logprobs, n, promptLength, NaN, missing);
  if (!t.logprobs) missing.push({ part: 'logprobs', reason: 'not-stored' });
  const status = t.truncate_status ?? null;
  return {
    ids,
    promptLength,
    logprobs,
    trained,
    advantages: spread('advantages', t.advantages, n, promptLength, NaN, missing),
    returns: spread('advantages', t.returns, n, promptLength, NaN, missing),
    tokenLevelReward: spread('advantages', t.token_level_reward, n, promptLength, NaN, missing),
    truncateStatus: status,
    truncated: status !== null && status !== '',
    responseText: t.response_text ?? undefined,
    texts,
    source: { kind: 'buffer' },
    missing: texts ? missing : [...missing, { part: 'text', reason: 'no-tokenizer' }],
  };
}

/** Counts and means the view's summary line shows. */
export interface TokenSummary {
  tokens: number;
  promptTokens: number;
  responseTokens: number;
  trainedTokens: number;
  /** Mean logprob over the trained tokens that have one (else over response tokens that have one); NaN when none. */
  meanLogprob: number;
  /** Mean advantage over the trained tokens; NaN when none. */
  meanAdvantage: number;
  /** Index of the lowest logprob among response tokens, -1 when none. */
  lowest: number;
  truncated: boolean;
  /** No response token, or a response text that is empty or only whitespace. */
  emptyResponse: boolean;
}

export function summarize(e: TokenExperience): TokenSummary {
  const n = e.ids.length;
  let trainedTokens = 0;
  let lpTrained = 0;
  let lpTrainedN = 0;
  let lpAll = 0;
  let lpAllN = 0;
  let adv = 0;
  let advN = 0;
  let lowest = -1;
  let lowestValue = Infinity;
  for (let i = 0; i < n; i++) {
    const t = e.trained[i] === 1;
    if (t) trainedTokens++;
    const lp = e.logprobs ? e.logprobs[i] : NaN;
    if (i >= e.promptLength && Number.isFinite(lp)) {
      lpAll += lp;
      lpAllN++;
      if (t) {
        lpTrained += lp;
        lpTrainedN++;
      }
      if (lp < lowestValue) {
        lowestValue = lp;
        lowest = i;
      }
    }
    const a = e.advantages ? e.advantages[i] : NaN;
    if (t && Number.isFinite(a)) {
      adv += a;
      advN++;
    }
  }
  const responseTokens = n - e.promptLength;
  const text = e.responseText ?? (e.texts ? e.texts.joined.slice(e.texts.offsets[e.promptLength]) : undefined);
  return {
    tokens: n,
    promptTokens: e.promptLength,
    responseTokens,
    trainedTokens,
    meanLogprob: lpTrainedN ? lpTrained / lpTrainedN : lpAllN ? lpAll / lpAllN : NaN,
    meanAdvantage: advN ? adv / advN : NaN,
    lowest,
    truncated: e.truncated,
    emptyResponse: responseTokens <= 0 || (text !== undefined && text.trim() === ''),
  };
}

/** Token i's text, or undefined without a tokenizer. */
export function tokenText(texts: TokenTexts | undefined, i: number): string | undefined {
  return texts ? texts.joined.slice(texts.offsets[i], texts.offsets[i + 1]) : undefined;
}
