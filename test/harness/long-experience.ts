// A long multi-turn experience on the fixture tokenizer, for the token view's test and bench:
// tool-calling episodes (user question, assistant tool call, tool result, assistant answer) one
// after another until `target` tokens, each with Trinity's mask for its turns, deterministic
// logprobs (one planted lowest), and advantages of alternating sign per episode.
import { tokenizeAndMask } from '../../src/tokens/chat-template';
import type { TokenTexts } from '../../src/tokens/experience';
import type { RunTokenizer } from '../../src/tokens/tokenizer';
import { rng } from './rng';
import { TOOLS } from './tiny-tokenizer';

export interface LongExperience {
  tokens: Int32Array;
  prompt_length: number;
  logprobs: Float32Array;
  action_mask: Uint8Array;
  advantages: Float32Array;
  truncate_status: string | null;
  response_text: string;
  texts: TokenTexts;
  /** The token the planted lowest logprob is on. */
  lowest: number;
}

const CITIES = ['Paris', 'Kyoto', 'Tokyo', 'Berlin', 'Oslo'];

export function longExperience(tok: RunTokenizer, target = 32_768): LongExperience {
  const ids: number[] = [];
  const mask: number[] = [];
  const blocks: { start: number; end: number }[] = [];
  for (let k = 0; ids.length < target; k++) {
    const city = CITIES[k % CITIES.length];
    const msgs = [
      { role: 'user', content: `What is the weather in ${city}? (${k})` },
      { role: 'assistant', content: '', tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'get_weather', arguments: { city } } }] },
      { role: 'tool', tool_call_id: `c${k}`, content: `{"city": "${city}", "temp_c": ${k % 30}, "condition": "sunny"}` },
      { role: 'assistant', content: `It is sunny and ${k % 30} degrees C in ${city}. 中文 é` },
    ];
    const t = tokenizeAndMask(tok, msgs, k === 0 ? TOOLS : undefined);
    blocks.push({ start: ids.length, end: ids.length + t.ids.length });
    ids.push(...t.ids);
    mask.push(...t.mask);
  }
  const tokens = Int32Array.from(ids.slice(0, target));
  const promptLength = mask.indexOf(1);
  const respLen = tokens.length - promptLength;
  const r = rng(25);
  const logprobs = new Float32Array(respLen);
  for (let i = 0; i < respLen; i++) logprobs[i] = -Math.pow(r(), 3) * 4;
  const lowest = promptLength + Math.floor(respLen * 0.61);
  logprobs[lowest - promptLength] = -12.5;
  const action_mask = Uint8Array.from(mask.slice(promptLength, target));
  const advantages = new Float32Array(respLen);
  for (let i = 0; i < respLen; i++) {
    const block = blocks.findIndex((b) => promptLength + i < b.end);
    advantages[i] = action_mask[i] ? (block % 2 ? -0.5 : 0.8) : 0;
  }
  const texts = tok.tokenTexts(tokens);
  return {
    tokens,
    prompt_length: promptLength,
    logprobs,
    action_mask,
    advantages,
    truncate_status: null,
    response_text: texts.joined.slice(texts.offsets[promptLength]),
    texts,
    lowest,
  };
}
