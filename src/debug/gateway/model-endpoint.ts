// Where the gateway gets completions from: a live OpenAI-compatible endpoint over the
// gateway's one pooled HTTP client (http-client.ts), or (replay.ts) a recorded run. Errors
// come back as values, never thrown, so the runtime can record them and stop on them. The
// `openai` SDK only parses streamed replies (server-sent events); it sends nothing.
import * as http from 'http';
import { Readable, Transform } from 'stream';
import { APIError } from 'openai';
import { Stream } from 'openai/core/streaming';
import type { CallError, ChatCompletion, ChatCompletionRequest } from '../trajectory/trajectory';
import { assembleChunks } from './chat';
import { maskUrl } from '../../base/url-secrets';
import { abortError, createPooledHttp, readText, ReplyTooLargeError, type HttpCall, type PooledHttp } from './http-client';

/** Default cap on one reply's body (model.maxReplyMB): far above a real completion with
 *  logprobs, far below what an endless or runaway reply would cost the gateway and the runner. */
const DEFAULT_MAX_REPLY_MB = 32;

/** Nesting a reply may have: a completion is a few levels deep; thousands overflow the stack of
 *  every recursive step after (JSON.stringify in the recorder, the runner's json). */
const MAX_REPLY_DEPTH = 256;

/** Whether `value` nests deeper than `max` (iterative: it must not overflow the stack itself). */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d >= max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) if (x && typeof x === 'object') stack.push([x, d + 1]);
  }
  return false;
}

/** A call that failed: why, and the endpoint's error object when it sent one. */
export type UpstreamFailure = { ok: false; error: CallError; body?: unknown };

export type UpstreamResult = { ok: true; response: ChatCompletion; chunks?: unknown[] } | UpstreamFailure;

export interface CallContext {
  episode: string;
  /** Index of the call within its episode and role. */
  index: number;
  /** `auxiliary/<i>` for an auxiliary model's call. */
  role?: string;
  /** The request as the workflow sent it (replay compares against this one). */
  original: ChatCompletionRequest;
  signal: AbortSignal;
}

export interface ChatUpstream {
  readonly label: string;
  /** A live endpoint's address and key (its tokenizer routes are beside /v1); none for a recording. */
  readonly endpoint?: { baseUrl: string; apiKey?: string };
  complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult>;
  models(): Promise<unknown>;
  /** POSTs `body` to a tokenizer route at the endpoint's root (/tokenize, /detokenize…). */
  tokenizer?(route: string, body: string): Promise<{ status: number; text: string }>;
  /** Releases pooled connections (the run has ended). */
  close?(): void;
}

export interface OpenAIUpstreamOptions {
  baseUrl: string;
  apiKey?: string;
  /** Seconds before a call counts as stalled (default 60): the whole call, a stream included. */
  timeoutSec?: number;
  /** MB of reply body read before the call fails (default DEFAULT_MAX_REPLY_MB). */
  maxReplyMB?: number;
}

export class OpenAIUpstream implements ChatUpstream {
  readonly label: string;
  readonly endpoint: { baseUrl: string; apiKey?: string };
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly http: PooledHttp = createPooledHttp();
  private readonly chatUrl: URL;
  private readonly modelsUrl: URL;
  /** The headers of JSON calls and of streamed ones (the key as a bearer token). */
  private readonly headers: { json: Record<string, string>; stream: Record<string, string> };

  constructor(opts: OpenAIUpstreamOptions) {
    this.label = maskUrl(opts.baseUrl); // logged and in errors: a `?api_key=` never shows
    this.endpoint = { baseUrl: opts.baseUrl, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}) };
    this.timeoutMs = Math.max(0.05, opts.timeoutSec ?? 60) * 1000;
    this.maxBytes = Math.max(1024, Math.round((opts.maxReplyMB ?? DEFAULT_MAX_REPLY_MB) * 1024 * 1024));
    const base = opts.baseUrl.replace(/\/+$/, '');
    this.chatUrl = new URL(base + '/chat/completions');
    this.modelsUrl = new URL(base + '/models');
    const common = { authorization: `Bearer ${opts.apiKey || 'EMPTY'}`, 'user-agent': 'agentrl-gateway' };
    this.headers = { json: { ...common, accept: 'application/json' }, stream: { ...common, accept: 'text/event-stream' } };
  }

  close(): void {
    this.http.close();
  }

  async tokenizer(route: string, body: string): Promise<{ status: number; text: string }> {
    const url = new URL(this.chatUrl.href.replace(/\/v1\/chat\/completions$/, '').replace(/\/chat\/completions$/, '') + route);
    const r = await this.withDeadline(new AbortController().signal, (signal) =>
      this.http.fetchText({
        method: 'POST',
        url,
        headers: { ...this.headers.json, 'content-type': 'application/json' },
        body,
        signal,
        maxBytes: this.maxBytes,
      }),
    );
    if ('ok' in r) return { status: r.error.status, text: JSON.stringify({ error: { message: r.error.message, type: 'server_error' } }) };
    return r;
  }

  async complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    return this.withDeadline(ctx.signal, async (signal): Promise<UpstreamResult> => {
      const json = JSON.stringify(body);
      if (body.stream) return this.streamed({ method: 'POST', url: this.chatUrl, headers: this.headers.stream, body: json, signal, maxBytes: this.maxBytes });
      const reply = await this.http.fetchText({ method: 'POST', url: this.chatUrl, headers: this.headers.json, body: json, signal, maxBytes: this.maxBytes });
      if (reply.status < 200 || reply.status > 299) return this.statusError(reply.status, reply.text);
      const response = JSON.parse(reply.text) as ChatCompletion;
      if (nestsDeeper(response, MAX_REPLY_DEPTH)) return this.tooDeep();
      if (!response || typeof response !== 'object' || !Array.isArray(response.choices)) {
        return {
          ok: false,
          error: { kind: 'malformed', status: 502, message: `upstream returned a reply without choices: ${JSON.stringify(response).slice(0, 300)}` },
        };
      }
      return { ok: true, response };
    });
  }

  /** A streamed call: the reply's server-sent events, parsed by the SDK, assembled into one completion. */
  private async streamed(call: HttpCall): Promise<UpstreamResult> {
    const res = await this.http.request(call);
    const status = res.statusCode ?? 502;
    if (status < 200 || status > 299) return this.statusError(status, await readText(res, call.signal, call.maxBytes));
    // The SDK aborts this when it stops reading early (an error event): the rest of the reply is dropped.
    const stop = new AbortController();
    stop.signal.addEventListener('abort', () => res.destroy());
    // Bytes are counted before the SDK parses them: an endless stream is cut at the cap.
    let size = 0;
    let tooLarge = false;
    const counted = new Transform({
      transform(b: Buffer, _enc, next) {
        size += b.length;
        if (call.maxBytes !== undefined && size > call.maxBytes) {
          tooLarge = true;
          res.destroy();
          return next(new ReplyTooLargeError(call.maxBytes));
        }
        next(null, b);
      },
    });
    res.on('error', (e) => counted.destroy(e));
    res.on('aborted', () => counted.destroy(Object.assign(new Error('the connection closed before the reply was complete'), { code: 'ECONNRESET' })));
    const events = Stream.fromSSEResponse<unknown>(new Response(Readable.toWeb(res.pipe(counted)) as ReadableStream), stop);
    const chunks: unknown[] = [];
    try {
      for await (const chunk of events) chunks.push(chunk);
    } catch (e) {
      if (tooLarge) throw new ReplyTooLargeError(call.maxBytes!);
      throw e;
    }
    if (tooLarge) throw new ReplyTooLargeError(call.maxBytes!);
    // The SDK ends a stream quietly when it is aborted: a stream cut by the deadline is no reply.
    if (call.signal.aborted) throw abortError();
    if (nestsDeeper(chunks, MAX_REPLY_DEPTH + 1)) return this.tooDeep();
    return { ok: true, response: assembleChunks(chunks), chunks };
  }

  /** Runs `call` under one deadline for the whole call, streams included, also cancelled
   *  with `outer`; what it throws becomes the call's error. */
  private async withDeadline<T>(outer: AbortSignal, call: (signal: AbortSignal) => Promise<T>): Promise<T | UpstreamFailure> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const onAbort = () => deadline.abort();
    outer.addEventListener('abort', onAbort);
    try {
      return await call(deadline.signal);
    } catch (e) {
      return { ok: false, ...this.toError(e, outer.aborted, deadline.signal.aborted && !outer.aborted) };
    } finally {
      clearTimeout(timer);
      outer.removeEventListener('abort', onAbort);
    }
  }

  private tooDeep(): UpstreamFailure {
    return {
      ok: false,
      error: {
        kind: 'malformed',
        status: 502,
        message: `${this.label} sent a reply nested deeper than ${MAX_REPLY_DEPTH} levels: not a completion, not recorded`,
      },
    };
  }

  /** A non-2xx reply: its `error` object (OpenAI's shape) when it has one, else its text. */
  private statusError(status: number, text: string): UpstreamFailure {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const body = parsed && typeof parsed === 'object' && 'error' in parsed ? parsed.error : parsed;
    const fromBody = (body as { message?: unknown } | undefined)?.message;
    const msg = typeof fromBody === 'string' ? fromBody : text.trim().slice(0, 300) || http.STATUS_CODES[status] || 'no details';
    return { ok: false, error: { kind: 'upstream', status, message: `${this.label} answered ${status}: ${msg}` }, body };
  }

  private toError(e: unknown, cancelled: boolean, timedOut: boolean): { error: CallError; body?: unknown } {
    if (cancelled) return { error: { kind: 'cancelled', status: 499, message: 'the call was cancelled (session stopped)' } };
    if (e instanceof ReplyTooLargeError) {
      return {
        error: {
          kind: 'malformed',
          status: 502,
          message: `${this.label} sent a reply over ${formatMB(e.maxBytes)} MB (model.maxReplyMB): the call was cut off there`,
        },
      };
    }
    if (timedOut) return { error: { kind: 'timeout', status: 504, message: `${this.label} did not answer within ${this.timeoutMs / 1000} s (model.timeout)` } };
    const code = (e as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) {
      return { error: { kind: 'connection', status: 502, message: `cannot reach ${this.label}: ${code}` } };
    }
    if (e instanceof APIError) {
      // An error event inside a stream that had started with 200.
      return {
        error: { kind: 'upstream', status: typeof e.status === 'number' ? e.status : 502, message: `${this.label} sent an error in its stream: ${e.message}` },
        body: e.error as unknown,
      };
    }
    if (e instanceof SyntaxError) {
      return { error: { kind: 'malformed', status: 502, message: `${this.label} returned malformed JSON: ${e.message}` } };
    }
    const err = e as Error;
    return { error: { kind: 'connection', status: 502, message: `${this.label}: ${err?.message ?? String(e)}` } };
  }

  /** GET /models under the same deadline; throws the same messages a chat call would report. */
  async models(): Promise<unknown> {
    const result = await this.withDeadline(new AbortController().signal, async (signal): Promise<{ ok: true; list: unknown } | UpstreamFailure> => {
      const reply = await this.http.fetchText({ method: 'GET', url: this.modelsUrl, headers: this.headers.json, signal, maxBytes: this.maxBytes });
      if (reply.status < 200 || reply.status > 299) return this.statusError(reply.status, reply.text);
      const page = JSON.parse(reply.text) as { data?: unknown };
      return { ok: true, list: { object: 'list', data: Array.isArray(page?.data) ? page.data : [] } };
    });
    if (!result.ok) throw new Error(result.error.message);
    return result.list;
  }
}

const formatMB = (bytes: number): string => String(Math.round((bytes / 1024 / 1024) * 100) / 100);
