// The JSON form of one experience's tokens: what `agentrl tokens --json` prints and the view's
// "Copy as JSON" copies, for scripts and CI. The per-token shape is the one Trinity's own
// experience visualizer builds (id, text, logprob, action) with our names: absent values are
// null, never left out, so every token has the same keys. An infinite value (a logprob of
// -inf, a token the sampler could not have drawn) is the string "-Infinity" or "Infinity",
// as Python's json and JavaScript's Number() read it: JSON has no infinities, and null already
// means absent. Two top-level keys beyond
// prompt_length / truncated / tokens say what a reader needs to trust the numbers: `source`
// (buffer, retokenized, endpoint) and `missing` (what could not be filled, and why).
import { type MissingPart, type TokenExperience, type TokenSource, tokenText } from './experience';

/** A stored value: a number, an infinity by name, or null when absent. */
type ValueJson = number | 'Infinity' | '-Infinity' | null;

export interface TokenJson {
  id: number;
  /** null without a tokenizer. */
  text: string | null;
  logprob: ValueJson;
  trained: boolean;
  advantage: ValueJson;
}

export interface TokensJson {
  prompt_length: number;
  truncated: boolean;
  tokens: TokenJson[];
  source: TokenSource['kind'];
  missing: MissingPart[];
}

const num = (a: Float32Array | undefined, i: number): ValueJson => {
  if (!a) return null;
  const v = a[i];
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return Number.isFinite(v) ? shortestFloat32(v) : null; // NaN: absent (the prompt's part)
};

/** The shortest decimal that reads back as the same float32 (0.1f prints as 0.1, not 0.10000000149011612, as numpy prints it). */
function shortestFloat32(v: number): number {
  for (let p = 1; p <= 9; p++) {
    const x = Number(v.toPrecision(p));
    if (Math.fround(x) === v) return x;
  }
  return v;
}

export function toTokensJson(e: TokenExperience): TokensJson {
  const tokens: TokenJson[] = new Array<TokenJson>(e.ids.length);
  for (let i = 0; i < e.ids.length; i++) {
    tokens[i] = {
      id: e.ids[i],
      text: tokenText(e.texts, i) ?? null,
      logprob: num(e.logprobs, i),
      trained: e.trained[i] === 1,
      advantage: num(e.advantages, i),
    };
  }
  return { prompt_length: e.promptLength, truncated: e.truncated, tokens, source: e.source.kind, missing: e.missing };
}
