// The model's tokenizer as its server offers it, for when the model's files are not on this
// machine (a hosted model, a checkpoint on the cluster): POST /tokenize and /detokenize, which
// vLLM, SGLang and llama.cpp servers all serve at their root (beside /v1). Their bodies differ
// by a field name, so each request carries the names of all three and each reply is read by
// any of them: vLLM `{prompt}` → `{tokens}`, `{tokens}` → `{prompt}`; SGLang `{prompt}` →
// `{tokens}`, `{tokens}` → `{text}`; llama.cpp `{content}` → `{tokens}`, `{tokens}` → `{content}`.
import { FLAG_PARTIAL, FLAG_SPECIAL, type TokenTexts } from '../../tokens/experience';
import { maskUrl } from '../../base/url-secrets';

export class EndpointTokenizerError extends Error {}

export interface TokenizeEndpointOptions {
  /**
   * The OpenAI base URL (`http://host:port/v1`): the tokenizer routes are at its root. Its query
   * (`?api_key=…`) is kept on each route's URL, after the route.
   */
  baseUrl: string;
  apiKey?: string;
  /** The served model's name (vLLM picks the tokenizer by it). */
  model?: string;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A UTF-8 character is at most 4 bytes: a byte-level token completes one within 4 tokens. */
const MAX_HELD = 4;
const REPLACEMENT = '\ufffd';
const PARALLEL = 8;
/** Token ids asked for at once, so a 32k-token prompt is not one huge request per piece. */
const MAX_IDS = 65_536;
// The server does not say which tokens are special; its detokenize renders them as their text.
// Chat-template markers (`<|im_start|>`, `<|eot_id|>`) and `<s>`/`</s>` are shown as specials.
const SPECIAL_TEXT = /^(<\|[^|\s]{1,40}\|>|<\/?s>)$/;

/**
 * The URL of `route` at the root of the OpenAI base URL `baseUrl`: its path without a trailing
 * `/v1`, then the route, then its query (`http://h/v1?api_key=x` → `http://h/tokenize?api_key=x`).
 * A fragment is never sent. Text that is not a URL is joined as it is (fetch reports it).
 */
function routeUrl(baseUrl: string, route: string): string {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '') + route;
  }
  u.pathname = u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') + route;
  u.hash = '';
  return u.toString();
}

export class TokenizeEndpoint {
  /** The server's root as shown (credentials masked), for messages. */
  private readonly root: string;
  private readonly fetch: typeof fetch;
  private readonly pieces = new Map<number, string>();

  constructor(private readonly opts: TokenizeEndpointOptions) {
    this.root = maskUrl(routeUrl(opts.baseUrl, '').replace(/\/(?=$|\?)/, ''));
    this.fetch = opts.fetch ?? fetch;
  }

  get label(): string {
    return this.root;
  }

  /** The ids of `text`, special tokens in it matched, none added. */
  async tokenize(text: string): Promise<number[]> {
    const r = await this.post('/tokenize', { content: text, prompt: text, add_special: false, add_special_tokens: false });
    const tokens = r.tokens;
    if (!Array.isArray(tokens)) throw new EndpointTokenizerError(`${this.shown('/tokenize')} answered without a list of tokens`);
    return tokens.map((t: unknown) => {
      const id = typeof t === 'object' && t !== null ? (t as { id?: unknown }).id : t;
      if (!Number.isInteger(id))
        throw new EndpointTokenizerError(`${this.shown('/tokenize')} answered a token that is not an id: ${JSON.stringify(t).slice(0, 80)}`);
      return id as number;
    });
  }

  /** The text of `ids`, special tokens kept. */
  async detokenize(ids: readonly number[]): Promise<string> {
    if (ids.length > MAX_IDS) throw new EndpointTokenizerError(`${ids.length} tokens are more than ${MAX_IDS} to detokenize at once`);
    const r = await this.post('/detokenize', { tokens: ids });
    const text = [r.content, r.prompt, r.text].find((x) => typeof x === 'string');
    if (typeof text !== 'string') throw new EndpointTokenizerError(`${this.shown('/detokenize')} answered without text`);
    return text;
  }

  /**
   * The text of each token, joined equal to the endpoint's detokenize of them all when the server
   * decodes piece by piece (checked: `exact`). Each distinct id is asked for once; a byte-level
   * token holding part of a character is decoded together with the tokens that complete it, and
   * gets no text and FLAG_PARTIAL (its character goes to the token that completes it).
   */
  async tokenTexts(ids: ArrayLike<number>): Promise<{ texts: TokenTexts; exact: boolean }> {
    const list = Array.from(ids);
    await this.loadPieces(list);
    const n = list.length;
    const parts: string[] = [];
    const flags = new Uint8Array(n);
    for (let i = 0; i < n;) {
      const piece = this.pieces.get(list[i])!;
      if (!piece.includes(REPLACEMENT)) {
        if (SPECIAL_TEXT.test(piece)) flags[i] = FLAG_SPECIAL;
        parts.push(piece);
        i++;
        continue;
      }
      let k = 1;
      let text = piece;
      for (; k < MAX_HELD && i + k < n; k++) {
        text = await this.detokenize(list.slice(i, i + k + 1));
        if (!text.endsWith(REPLACEMENT)) break;
      }
      const last = Math.min(i + k, n - 1);
      for (let j = i; j < last; j++) {
        parts.push('');
        flags[j] = FLAG_PARTIAL;
      }
      parts.push(last === i ? piece : text);
      i = last + 1;
    }
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + parts[i].length;
    const joined = parts.join('');
    const whole = n ? await this.detokenize(list) : '';
    return { texts: { joined, offsets, flags, partialBytes: {} }, exact: whole === joined };
  }

  private async loadPieces(ids: number[]): Promise<void> {
    const todo = [...new Set(ids)].filter((id) => !this.pieces.has(id));
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const id = todo[next++];
        this.pieces.set(id, await this.detokenize([id]));
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, todo.length) }, worker));
  }

  /** The URL of `route` as shown in messages (credentials masked). */
  private shown(route: string): string {
    return maskUrl(routeUrl(this.opts.baseUrl, route));
  }

  private async post(route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const url = routeUrl(this.opts.baseUrl, route);
    const shown = this.shown(route);
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${this.opts.apiKey || 'EMPTY'}` };
    let res: Response;
    try {
      res = await this.fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(this.opts.model ? { model: this.opts.model, ...body } : body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
      });
    } catch (e) {
      throw new EndpointTokenizerError(`${shown}: ${(e as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    if (res.status === 404) throw new EndpointTokenizerError(`${shown} does not exist: this server does not tokenize (vLLM, SGLang and llama.cpp servers do)`);
    if (!res.ok) throw new EndpointTokenizerError(`${shown} answered ${res.status}: ${text.slice(0, 200)}`);
    try {
      const json = JSON.parse(text) as unknown;
      if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
    } catch {
      // reported below
    }
    throw new EndpointTokenizerError(`${shown} answered something that is not a JSON object: ${text.slice(0, 120)}`);
  }
}
