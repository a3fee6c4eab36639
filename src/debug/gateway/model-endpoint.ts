// Where the gateway gets completions from: a live OpenAI-compatible endpoint through the
// `openai` SDK, or (replay.ts) a recorded run. Errors come back as values, never thrown,
// so the runtime can record them and stop on them.
import * as http from 'http';
import OpenAI from 'openai';
import type { CallError, ChatCompletion, ChatRequest } from '../model/trajectory';
import { assembleChunks } from './chat';
import { createJsonPoster, type JsonPoster } from './json-post';

export type UpstreamResult =
  | { ok: true; response: ChatCompletion; chunks?: unknown[] }
  | { ok: false; error: CallError; body?: unknown };

export interface CallContext {
  episode: string;
  /** Index of the call within its episode and role. */
  index: number;
  /** `auxiliary/<i>` for an auxiliary model's call. */
  role?: string;
  /** The request as the workflow sent it (replay compares against this one). */
  original: ChatRequest;
  signal: AbortSignal;
}

export interface ChatUpstream {
  readonly label: string;
  complete(body: ChatRequest, ctx: CallContext): Promise<UpstreamResult>;
  models(): Promise<unknown>;
  /** Releases pooled connections (the run has ended). */
  close?(): void;
}

export interface OpenAIUpstreamOptions {
  baseUrl: string;
  apiKey?: string;
  /** Seconds before a call counts as stalled (default 60). */
  timeoutSec?: number;
}

export class OpenAIUpstream implements ChatUpstream {
  readonly label: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly poster: JsonPoster = createJsonPoster();
  private readonly chatUrl: URL;
  private readonly headers: Record<string, string>;

  constructor(opts: OpenAIUpstreamOptions) {
    this.label = opts.baseUrl;
    this.timeoutMs = Math.max(0.05, opts.timeoutSec ?? 60) * 1000;
    const apiKey = opts.apiKey || 'EMPTY';
    this.client = new OpenAI({ baseURL: opts.baseUrl, apiKey, maxRetries: 0, timeout: this.timeoutMs });
    this.chatUrl = new URL(opts.baseUrl.replace(/\/+$/, '') + '/chat/completions');
    this.headers = { authorization: `Bearer ${apiKey}`, 'user-agent': 'agentrl-gateway' };
  }

  close(): void {
    this.poster.close();
  }

  async complete(body: ChatRequest, ctx: CallContext): Promise<UpstreamResult> {
    // One deadline for the whole call, streams included (the SDK's timeout covers headers only).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const onAbort = () => deadline.abort();
    ctx.signal.addEventListener('abort', onAbort);
    try {
      if (body.stream) {
        const stream = await this.client.chat.completions.create(
          body as unknown as OpenAI.Chat.ChatCompletionCreateParamsStreaming,
          { signal: deadline.signal },
        );
        const chunks: unknown[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        return { ok: true, response: assembleChunks(chunks), chunks };
      }
      // Not streamed: the request is forwarded as JSON over a pooled connection (json-post.ts).
      const reply = await this.poster.post(this.chatUrl, this.headers, JSON.stringify(body), deadline.signal);
      if (reply.status < 200 || reply.status > 299) return this.statusError(reply.status, reply.text);
      const response = JSON.parse(reply.text) as ChatCompletion;
      if (!response || typeof response !== 'object' || !Array.isArray(response.choices)) {
        return { ok: false, error: { kind: 'malformed', status: 502, message: `upstream returned a reply without choices: ${JSON.stringify(response).slice(0, 300)}` } };
      }
      return { ok: true, response };
    } catch (e) {
      return { ok: false, ...this.toError(e, ctx.signal.aborted, deadline.signal.aborted && !ctx.signal.aborted) };
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  /** A non-2xx reply: its `error` object (OpenAI's shape) when it has one, else its text. */
  private statusError(status: number, text: string): UpstreamResult {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const body = parsed && typeof parsed === 'object' && 'error' in parsed ? (parsed as { error: unknown }).error : parsed;
    const fromBody = (body as { message?: unknown } | undefined)?.message;
    const msg = typeof fromBody === 'string' ? fromBody : text.trim().slice(0, 300) || http.STATUS_CODES[status] || 'no details';
    return { ok: false, error: { kind: 'upstream', status, message: `${this.label} answered ${status}: ${msg}` }, body };
  }

  private toError(e: unknown, cancelled: boolean, timedOut: boolean): { error: CallError; body?: unknown } {
    const secs = this.timeoutMs / 1000;
    if (cancelled) return { error: { kind: 'cancelled', status: 499, message: 'the call was cancelled (session stopped)' } };
    if (timedOut || e instanceof OpenAI.APIConnectionTimeoutError) {
      return { error: { kind: 'timeout', status: 504, message: `${this.label} did not answer within ${secs} s (model.timeout)` } };
    }
    if (e instanceof OpenAI.APIConnectionError) {
      const cause = (e as { cause?: { message?: string; code?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? e.message;
      return { error: { kind: 'connection', status: 502, message: `cannot reach ${this.label}: ${detail}` } };
    }
    const code = (e as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) {
      return { error: { kind: 'connection', status: 502, message: `cannot reach ${this.label}: ${code}` } };
    }
    if (e instanceof OpenAI.APIError) {
      const body = e.error;
      const msg = (body as { message?: string } | undefined)?.message ?? e.message;
      return { error: { kind: 'upstream', status: e.status ?? 502, message: `${this.label} answered ${e.status}: ${msg}` }, body };
    }
    if (e instanceof SyntaxError) {
      return { error: { kind: 'malformed', status: 502, message: `${this.label} returned malformed JSON: ${e.message}` } };
    }
    const err = e as Error;
    return { error: { kind: 'connection', status: 502, message: `${this.label}: ${err?.message ?? String(e)}` } };
  }

  async models(): Promise<unknown> {
    const page = await this.client.models.list({ timeout: this.timeoutMs });
    return { object: 'list', data: page.data };
  }
}
