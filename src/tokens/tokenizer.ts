// The run's own tokenizer, through @huggingface/tokenizers (pure JS): encode, decode, and the text
// of each token such that the texts joined are exactly the decode of the ids. Decoding one token at
// a time does not give that: a byte-level BPE token may hold part of a character's UTF-8 bytes
// ("é" is two tokens in small vocabularies, most CJK characters three), and decoding it alone
// gives U+FFFD. So the texts are cut the way streaming detokenizers do (vLLM's
// detokenize_incrementally): decode a short window ending at token i and the same window without
// it; token i's text is the difference once it no longer ends in an incomplete character; the
// tokens held until then get no text and are marked partial, with their raw bytes for the view.
import { ByteFallbackDecoder, ByteLevelDecoder, Tokenizer } from '@huggingface/tokenizers';
import { byteLevelTexts } from './byte-texts';
import { FLAG_PARTIAL, FLAG_SPECIAL, type TokenTexts } from './experience';

export interface RunTokenizer {
  /** Where it was loaded from (a folder, a model id): shown by the view. */
  readonly name: string;
  /** The model's chat template (tokenizer_config.json or chat_template.jinja), when it has one. */
  readonly chatTemplate?: string;
  /** bos_token, eos_token, pad_token… as the template sees them. */
  readonly specialTokens: Readonly<Record<string, string>>;
  /** The ids of `text`, special tokens in it matched, none added (add_special_tokens=False). */
  encode(text: string): Int32Array;
  /** Special tokens kept (skip_special_tokens=False). */
  decode(ids: ArrayLike<number>): string;
  isSpecial(id: number): boolean;
  tokenTexts(ids: ArrayLike<number>): TokenTexts;
}

/** A tokenizer that could not be built from its files: the message says which and why. */
export class TokenizerError extends Error {}

/** A UTF-8 character is at most 4 bytes and a byte-level token holds at least one: hold no longer. */
const MAX_HELD = 4;
const REPLACEMENT = '\ufffd';

type ByteOf = (id: number) => string | undefined;

/** Hex bytes of a token, for the byte-level and byte-fallback vocabularies; undefined for others. */
function byteReader(tok: Tokenizer): ByteOf {
  const decoders = [tok.decoder, ...((tok.decoder as unknown as { decoders?: unknown[] } | null)?.decoders ?? [])];
  const byteLevel = decoders.find((d): d is ByteLevelDecoder => d instanceof ByteLevelDecoder);
  const fallback = decoders.some((d) => d instanceof ByteFallbackDecoder);
  const hex = (b: number) => b.toString(16).padStart(2, '0');
  return (id) => {
    const piece = tok.id_to_token(id);
    if (piece === undefined) return undefined;
    if (fallback) {
      const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
      if (m) return m[1].toLowerCase();
    }
    if (!byteLevel) return undefined;
    const bytes: string[] = [];
    for (const ch of piece) {
      const b = byteLevel.byte_decoder[ch] as number | string | undefined; // the table holds numbers as strings in some builds
      if (b === undefined) return undefined;
      bytes.push(hex(Number(b)));
    }
    return bytes.join(' ');
  };
}

/**
 * The bytes of each token when the decoder is byte-level alone (then the decoded text is exactly
 * the UTF-8 of the tokens' bytes, a piece that is an added token's text as that text — the
 * decoder matches added tokens by their text), cached per id; undefined otherwise. A model with an
 * end-of-word suffix has it replaced by spaces after decoding: not byte-level alone.
 */
function byteLevelBytes(tok: Tokenizer): ((id: number) => Uint8Array | undefined) | undefined {
  if (!(tok.decoder instanceof ByteLevelDecoder) || tok.decoder.end_of_word_suffix) return undefined;
  const table = tok.decoder.byte_decoder as Record<string, number | string>;
  const added = new Set<string>();
  for (const t of tok.get_added_tokens_decoder().values()) added.add(t.content);
  const utf8 = new TextEncoder();
  const cache = new Map<number, Uint8Array | undefined>();
  return (id) => {
    if (cache.has(id)) return cache.get(id);
    let out: Uint8Array | undefined;
    const piece = tok.id_to_token(id);
    if (piece !== undefined && added.has(piece)) out = utf8.encode(piece);
    else if (piece !== undefined) {
      const chars = [...piece];
      out = new Uint8Array(chars.length);
      for (let k = 0; k < chars.length && out; k++) {
        const b = table[chars[k]];
        if (b === undefined) out = undefined;
        else out[k] = Number(b);
      }
    }
    cache.set(id, out);
    return out;
  };
}

function templateOf(config: Record<string, unknown>, file: string | undefined): string | undefined {
  if (file !== undefined) return file;
  const t = config.chat_template;
  if (typeof t === 'string') return t;
  // A list of named templates: the one named "default" (transformers' choice), else the first.
  if (Array.isArray(t)) {
    const named = t.filter(
      (x): x is { name: string; template: string } => typeof x === 'object' && x !== null && typeof (x as { template?: unknown }).template === 'string',
    );
    return (named.find((x) => x.name === 'default') ?? named[0])?.template;
  }
  return undefined;
}

/** The special-token strings of tokenizer_config.json (a string, or an AddedToken dict with `content`). */
function specialsOf(config: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(config)) {
    if (!k.endsWith('_token')) continue;
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'object' && v !== null && typeof (v as { content?: unknown }).content === 'string') out[k] = (v as { content: string }).content;
  }
  return out;
}

/** A RunTokenizer from the parsed tokenizer.json and tokenizer_config.json (and chat_template.jinja's text, if any). */
export function createTokenizer(tokenizerJson: unknown, config: unknown, opts: { name: string; chatTemplate?: string }): RunTokenizer {
  if (typeof tokenizerJson !== 'object' || tokenizerJson === null || typeof (tokenizerJson as { model?: unknown }).model !== 'object') {
    throw new TokenizerError(`${opts.name}: tokenizer.json has no "model": not a Hugging Face tokenizer`);
  }
  const cfg = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const risky = backtrackingPatterns(tokenizerJson).at(0);
  if (risky !== undefined) {
    throw new TokenizerError(
      `${opts.name}: tokenizer.json has a regex that can backtrack without end (${JSON.stringify(risky.slice(0, 80))}: a repeated group that holds a repeat or an alternative): not used, so texts cannot hang the encoder`,
    );
  }
  let tok: Tokenizer;
  try {
    tok = new Tokenizer(tokenizerJson, cfg);
  } catch (e) {
    throw new TokenizerError(`${opts.name}: the tokenizer could not be built: ${e instanceof Error ? e.message : String(e)}`);
  }
  const special = new Set<number>();
  for (const [id, t] of tok.get_added_tokens_decoder()) if (t.special) special.add(id);
  const bytesOf = byteReader(tok);
  const rawBytes = byteLevelBytes(tok);
  const wholeText = new Map<number, string>();
  const decode = (ids: ArrayLike<number>): string =>
    ids.length ? tok.decode(Array.from(ids), { skip_special_tokens: false, clean_up_tokenization_spaces: false }) : '';
  return {
    name: opts.name,
    chatTemplate: templateOf(cfg, opts.chatTemplate),
    specialTokens: specialsOf(cfg),
    encode: (text) => Int32Array.from(tok.encode(text, { add_special_tokens: false }).ids),
    decode,
    isSpecial: (id) => special.has(id),
    tokenTexts: (ids) => {
      const isSpecial = (id: number): boolean => special.has(id);
      const fast = rawBytes ? byteLevelTexts(ids, rawBytes, isSpecial, wholeText) : undefined;
      // Exact by construction (byte-texts.ts says why); decoding the whole again is needed only
      // after a cut forced inside a character — a 32 k-token decode costs more than the texts.
      if (fast && (fast.exact || fast.texts.joined === decode(ids))) return fast.texts;
      return cutTexts(ids, decode, isSpecial, bytesOf);
    },
  };
}

/**
 * The `Regex` patterns of tokenizer.json (pre-tokenizer splits, normalizer replaces) that can
 * backtrack exponentially, as `(a+)+$` or `(a|a)*` do: JavaScript's regex engine cannot be
 * interrupted, so such a pattern is refused before the tokenizer runs it. Conservative: a
 * repeated group that holds a repeat or an alternative; the pre-tokenizer patterns of real
 * models (GPT-2, Llama 3, Qwen, DeepSeek) repeat only single atoms and classes.
 */
export function backtrackingPatterns(tokenizerJson: unknown): string[] {
  const found: string[] = [];
  const seen = new Set<unknown>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 64 || typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'Regex' && typeof x === 'string' && nestedRepeat(x)) found.push(x);
      else if (k !== 'model' && k !== 'added_tokens') walk(x, depth + 1); // the vocabulary holds no patterns
    }
  };
  walk(tokenizerJson, 0);
  return found;
}

function nestedRepeat(pattern: string): boolean {
  const groups: { repeats: boolean; alternates: boolean }[] = [{ repeats: false, alternates: false }];
  const isRepeat = (i: number): boolean =>
    pattern[i] === '*' ||
    pattern[i] === '+' ||
    (pattern[i] === '{' && /^\{\d*,\d*\}|^\{\d+\}/.test(pattern.slice(i)) && !/^\{(0|1)\}|^\{0?,1\}/.test(pattern.slice(i)));
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const top = groups[groups.length - 1];
    if (c === '\\') i++;
    else if (c === '[') {
      // A class is one atom: skip to its end (a ] first in the class is literal).
      i++;
      if (pattern[i] === '^') i++;
      if (pattern[i] === ']') i++;
      while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
    } else if (c === '(') groups.push({ repeats: false, alternates: false });
    else if (c === '|') top.alternates = true;
    else if (c === ')' && groups.length > 1) {
      const inner = groups.pop()!;
      if (isRepeat(i + 1) && (inner.repeats || inner.alternates)) return true;
      if (inner.repeats || isRepeat(i + 1)) groups[groups.length - 1].repeats = true;
    } else if (isRepeat(i)) top.repeats = true;
  }
  return false;
}

/** Token texts whose join is decode(ids) — see the module comment for how. */
function cutTexts(ids: ArrayLike<number>, decode: (ids: ArrayLike<number>) => string, isSpecial: (id: number) => boolean, bytesOf: ByteOf): TokenTexts {
  const n = ids.length;
  const pieces: string[] = new Array<string>(n).fill('');
  const flags = new Uint8Array(n);
  const partialBytes: Record<number, string> = {};
  let prefix = 0; // window start: one token of context before `read`, so decoders that strip a leading space see the same context
  let read = 0; // first token not yet given text
  const slice = (a: number, b: number): number[] => Array.prototype.slice.call(ids, a, b) as number[];
  for (let i = 0; i < n; i++) {
    if (isSpecial(ids[i])) flags[i] |= FLAG_SPECIAL;
    const before = decode(slice(prefix, read));
    const now = decode(slice(prefix, i + 1));
    const complete = now.length > before.length && !now.endsWith(REPLACEMENT) && now.startsWith(before);
    if (!complete && i + 1 - read < MAX_HELD && i + 1 < n) continue;
    pieces[i] = now.startsWith(before) ? now.slice(before.length) : now;
    for (let j = read; j < i; j++) {
      flags[j] |= FLAG_PARTIAL;
      partialBytes[j] = bytesOf(ids[j]) ?? '?';
    }
    prefix = read;
    read = i + 1;
  }
  let joined = pieces.join('');
  const whole = decode(ids);
  if (joined !== whole) {
    // A decoder whose output depends on more context than the window (rare): keep the exact whole,
    // give the difference to the last token rather than show text that does not add up.
    let same = 0;
    while (same < joined.length && same < whole.length && joined[same] === whole[same]) same++;
    let at = 0;
    let k = 0;
    while (k < n && at + pieces[k].length <= same) at += pieces[k++].length;
    for (let j = k; j < n; j++) pieces[j] = '';
    if (k < n) pieces[k] = whole.slice(at);
    joined = pieces.join('');
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + pieces[i].length;
  return { joined, offsets, flags, partialBytes };
}
