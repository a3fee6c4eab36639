// Talks to a Trinity-RFT explorer in serve mode (its explorer HTTP API) from the extension host:
// chat through the `openai` SDK (the proxy is OpenAI-compatible), and plain fetch for the
// explorer's own endpoints /health, /metrics, /feedback and /commit. No authentication exists
// upstream, so nothing secret is sent. Every failure becomes an ExplorerError with a kind.
import OpenAI from 'openai';
import { ExplorerError, fromStatus, fromThrown } from './errors';
import { ReplyTokenCollector, type ReplyTokenIds } from './reply-token-ids';
import { OnlineMetrics, parseMetrics } from './serve-metrics';

export interface ChatRequest {
  model: string;
  messages: OpenAI.Chat.ChatCompletionMessageParam[];
  tools?: OpenAI.Chat.ChatCompletionTool[];
  maxTokens?: number;
  topP?: number;
  /** Sent, but Trinity's proxy overwrites it with the config's model.temperature. */
  temperature?: number;
  stream?: boolean;
}

/** One assistant answer: what the playground shows and rewards. */
export interface ChatResult {
  /** the completion `id`: the msg_id /feedback takes */
  msgId: string;
  content: string;
  toolCalls?: { name: string; arguments: string }[];
  finishReason: string | null;
  latencyMs: number;
  promptTokens?: number;
  completionTokens?: number;
  /** The token ids and logprobs the explorer passed through, when its engine returned them. */
  tokens?: ReplyTokenIds;
}

/** What /feedback and /commit support, found without side effects. */
export type ExplorerGeneration = 'serve-0.4+' | 'pre-0.4';

export interface ExplorerClientOptions {
  /** per-call deadline in ms (chat streams included) */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class ExplorerClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;
  private readonly openai: OpenAI;

  constructor(url: string, opts: ExplorerClientOptions = {}) {
    this.url = normalizeExplorerUrl(url);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchFn = opts.fetch ?? fetch;
    this.openai = new OpenAI({ baseURL: `${this.url}/v1`, apiKey: 'EMPTY', maxRetries: 0, timeout: this.timeoutMs, fetch: this.fetchFn });
  }

  /** GET /health: resolves when the explorer answers 200. */
  async health(): Promise<void> {
    await this.request('GET', '/health', undefined, 'GET /health', Math.min(this.timeoutMs, 10_000));
  }

  /** GET /v1/models: the served model ids (vLLM serves under model.model_path). */
  async models(): Promise<string[]> {
    const body = await this.request('GET', '/v1/models', undefined, 'GET /v1/models');
    const data = (body as { data?: { id?: unknown }[] } | undefined)?.data;
    if (!Array.isArray(data)) throw new ExplorerError('protocol', this.url, 'GET /v1/models: no `data` list');
    return data.map((d) => d.id).filter((id): id is string => typeof id === 'string');
  }

  async metrics(): Promise<OnlineMetrics> {
    const body = await this.request('GET', '/metrics', undefined, 'GET /metrics');
    const m = parseMetrics(body);
    if (!m) throw new ExplorerError('protocol', this.url, 'GET /metrics: not the serve-mode counters');
    return m;
  }

  /**
   * Finds whether /feedback exists without recording anything: an empty body is refused by a
   * 0.4+ explorer with 400 "msg_ids and reward are required"; an older one has no such route.
   */
  async generation(): Promise<ExplorerGeneration> {
    try {
      await this.request('POST', '/feedback', {}, 'POST /feedback');
      return 'serve-0.4+';
    } catch (e) {
      if (e instanceof ExplorerError && e.status === 400) return 'serve-0.4+';
      if (e instanceof ExplorerError && e.kind === 'pre-0.4') return 'pre-0.4';
      throw e;
    }
  }

  /** POST /feedback. Upstream ignores ids already rewarded (a repeat is a no-op). */
  async feedback(f: { msgIds: string[]; reward: number; taskId?: string; runId?: number }): Promise<void> {
    await this.request('POST', '/feedback', { msg_ids: f.msgIds, reward: f.reward, task_id: f.taskId ?? null, run_id: f.runId ?? 0 }, 'POST /feedback');
  }

  /** POST /commit: hands the rewarded experiences to the trainer; the explore step goes up. */
  async commit(): Promise<void> {
    await this.request('POST', '/commit', undefined, 'POST /commit');
  }

  /** One chat completion (streamed when asked; `onDelta` gets the text as it arrives). */
  async chat(req: ChatRequest, onDelta?: (text: string) => void, signal?: AbortSignal): Promise<ChatResult> {
    const t0 = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
    const onAbort = () => deadline.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort);
    const base = {
      model: req.model,
      messages: req.messages,
      ...(req.tools?.length ? { tools: req.tools } : {}),
      ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
      ...(req.topP !== undefined ? { top_p: req.topP } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    };
    try {
      if (!req.stream) {
        const r = await this.openai.chat.completions.create({ ...base, stream: false }, { signal: deadline.signal });
        const c = r.choices[0];
        const calls = c?.message?.tool_calls?.flatMap((t) => (t.type === 'function' ? [{ name: t.function.name, arguments: t.function.arguments }] : []));
        const ids = new ReplyTokenCollector();
        ids.add(r);
        const tokens = ids.result();
        return {
          msgId: r.id,
          content: c?.message?.content ?? '',
          ...(calls?.length ? { toolCalls: calls } : {}),
          finishReason: c?.finish_reason ?? null,
          latencyMs: performance.now() - t0,
          promptTokens: r.usage?.prompt_tokens,
          completionTokens: r.usage?.completion_tokens,
          ...(tokens ? { tokens } : {}),
        };
      }
      const stream = await this.openai.chat.completions.create({ ...base, stream: true, stream_options: { include_usage: true } }, { signal: deadline.signal });
      let id = '';
      let content = '';
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | undefined;
      const calls = new Map<number, { name: string; arguments: string }>();
      const ids = new ReplyTokenCollector();
      for await (const chunk of stream) {
        ids.add(chunk);
        if (chunk.id) id = chunk.id;
        if (chunk.usage) usage = chunk.usage;
        const c = chunk.choices?.[0];
        if (!c) continue;
        if (c.delta?.content) {
          content += c.delta.content;
          onDelta?.(c.delta.content);
        }
        for (const t of c.delta?.tool_calls ?? []) {
          const cur = calls.get(t.index) ?? { name: '', arguments: '' };
          cur.name += t.function?.name ?? '';
          cur.arguments += t.function?.arguments ?? '';
          calls.set(t.index, cur);
        }
        if (c.finish_reason) finish = c.finish_reason;
      }
      if (!id) throw new ExplorerError('protocol', this.url, 'chat stream: no completion id');
      const tokens = ids.result();
      return {
        msgId: id,
        content,
        ...(calls.size ? { toolCalls: [...calls.values()] } : {}),
        finishReason: finish,
        latencyMs: performance.now() - t0,
        promptTokens: usage?.prompt_tokens,
        completionTokens: usage?.completion_tokens,
        ...(tokens ? { tokens } : {}),
      };
    } catch (e) {
      if (deadline.signal.aborted && !signal?.aborted)
        throw new ExplorerError('timeout', this.url, `POST /v1/chat/completions: no answer within ${Math.round(this.timeoutMs / 1000)} s`);
      throw fromThrown(this.url, e, 'POST /v1/chat/completions');
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private async request(method: 'GET' | 'POST', path: string, body: unknown, what: string, timeoutMs = this.timeoutMs): Promise<unknown> {
    let res: Response;
    const call = () =>
      this.fetchFn(`${this.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    try {
      res = await call().catch((e: unknown) => {
        // uvicorn closes idle keep-alive sockets after 5 s; a GET (or a /feedback: upstream
        // ignores a repeat) that met one is safe to redo
        const code = (e as { cause?: { code?: string } })?.cause?.code;
        if ((method === 'GET' || path === '/feedback') && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET')) return call();
        throw e;
      });
    } catch (e) {
      throw fromThrown(this.url, e, what);
    }
    const text = await res.text().catch(() => '');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // FastAPI answers an unknown route 404 {"detail":"Not Found"} and a wrong method 405.
    if ((res.status === 404 || res.status === 405) && (path === '/feedback' || path === '/commit')) {
      throw new ExplorerError('pre-0.4', this.url, `${what}: HTTP ${res.status}`, res.status);
    }
    if (!res.ok) throw fromStatus(this.url, res.status, json ?? { error: text.slice(0, 300) }, what);
    return json;
  }
}

/** `host:port`, trailing slashes and a trailing /v1 are accepted; http:// is assumed. */
export function normalizeExplorerUrl(input: string): string {
  let s = input.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `http://${s}`;
  const u = new URL(s);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`not an http(s) URL: ${input}`);
  let p = u.pathname.replace(/\/+$/, '');
  if (p.endsWith('/v1')) p = p.slice(0, -3);
  return `${u.protocol}//${u.host}${p}`;
}
