// The recording gateway's HTTP face: an OpenAI-compatible endpoint on loopback
// (/v1/chat/completions, streaming too, and /v1/models) guarded by a per-session token.
// `/aux/<i>/v1/...` is the same for auxiliary model i (explorer.auxiliary_models[i]).
// It parses and answers; what happens to a call (hold, edit, forward, record, replay) is
// the GatewayPort's business (the rollout runtime).
import * as http from 'http';
import type { AddressInfo } from 'net';
import { HEADER_EPISODE, HEADER_ROLE, HEADER_STACK, auxIndex, auxRole, decodeStackHeader, type SourceFrame } from '../trajectory/runner-protocol';
import type { CallError, ChatCompletion, ChatCompletionRequest } from '../trajectory/trajectory';
import { completionToChunks, SSE_DONE, sseFrame } from './chat';

export interface IncomingCall {
  request: ChatCompletionRequest;
  /** Episode named by the runner's client (absent for clients the workflow built itself). */
  episode?: string;
  stack: SourceFrame[];
  /** `auxiliary/<i>` for an auxiliary model's call; undefined for the rollout model. */
  role?: string;
  /** Aborted when the workflow hangs up before the reply; the handler aborts it to cancel
   *  the call itself (the session ended). */
  abort: AbortController;
}

export type CallOutcome = { ok: true; response: ChatCompletion; chunks?: unknown[] } | { ok: false; error: CallError; body?: unknown };

/** What the gateway needs from the run it serves. */
export interface GatewayPort {
  handleCall(call: IncomingCall): Promise<CallOutcome>;
  /** The models of the rollout model's endpoint, or of auxiliary model `aux`. */
  listModels(aux?: number): Promise<unknown>;
  /** A tokenizer route (TOKENIZER_ROUTES) of the model's endpoint, passed through: the runner
   *  tokenizes there when the model's files are not on this machine. */
  tokenizer?(route: string, body: string, role: string | undefined): Promise<{ status: number; text: string }>;
}

/** The tokenizer routes of vLLM, SGLang and llama.cpp servers (at their root, beside /v1). */
const TOKENIZER_ROUTES: ReadonlySet<string> = new Set(['/tokenize', '/detokenize', '/apply-template']);

export interface GatewayServer {
  /** The rollout model's base URL (`<root>/v1`). */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: auxiliary model i is at `<root>/aux/<i>/v1`. */
  readonly root: string;
  readonly port: number;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

export async function startGateway(handler: GatewayPort, token: string, port = 0): Promise<GatewayServer> {
  const server = http.createServer((req, res) => {
    void route(req, res).catch((e: unknown) => sendJson(res, 500, errorBody(500, `gateway error: ${(e as Error)?.message ?? e}`)));
  });
  // A call may be held for as long as the user looks at it: no server-side request timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let url = (req.url ?? '').split('?')[0].replace(/\/+$/, '');
    // /aux/<i>/v1/... -> auxiliary model i; a role header on /v1 says the same.
    let role: string | undefined;
    const aux = /^\/aux\/(\d+)(\/.*)$/.exec(url);
    if (aux) {
      role = auxRole(Number(aux[1]));
      url = aux[2];
    } else {
      const h = req.headers[HEADER_ROLE];
      if (typeof h === 'string' && auxIndex(h) !== undefined) role = h;
    }
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${token}`) {
      return sendJson(res, 401, errorBody(401, 'invalid API key for the Agent RL gateway (use the key the debugger gave the workflow)'));
    }
    if (req.method === 'GET' && url === '/v1/models') return sendJson(res, 200, await handler.listModels(auxIndex(role)));
    if (req.method === 'POST' && TOKENIZER_ROUTES.has(url) && handler.tokenizer) {
      const body = await readBody(req);
      if (body === undefined) return sendJson(res, 413, errorBody(413, 'request body too large'));
      const r = await handler.tokenizer(url, body, role);
      res.writeHead(r.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(r.text) });
      res.end(r.text);
      return;
    }
    if (req.method !== 'POST' || url !== '/v1/chat/completions') {
      return sendJson(res, 404, errorBody(404, `the Agent RL gateway serves POST /v1/chat/completions and GET /v1/models, not ${req.method} ${url}`));
    }
    const raw = await readBody(req);
    if (raw === undefined) return sendJson(res, 413, errorBody(413, 'request body too large'));
    let request: ChatCompletionRequest;
    try {
      request = JSON.parse(raw) as ChatCompletionRequest;
    } catch {
      return sendJson(res, 400, errorBody(400, 'request body is not valid JSON'));
    }
    if (!request || !Array.isArray(request.messages)) return sendJson(res, 400, errorBody(400, '`messages` must be an array'));
    const hangup = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) hangup.abort();
    });
    const episodeHeader = req.headers[HEADER_EPISODE];
    const outcome = await handler.handleCall({
      request,
      episode: typeof episodeHeader === 'string' && episodeHeader ? episodeHeader : undefined,
      stack: decodeStackHeader(req.headers[HEADER_STACK]),
      ...(role ? { role } : {}),
      abort: hangup,
    });
    if (res.destroyed) return;
    if (!outcome.ok)
      return sendJson(
        res,
        outcome.error.status,
        outcome.body ? { error: outcome.body } : errorBody(outcome.error.status, outcome.error.message, outcome.error.kind),
      );
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      for (const chunk of outcome.chunks ?? completionToChunks(outcome.response)) res.write(sseFrame(chunk));
      res.end(SSE_DONE);
      return;
    }
    sendJson(res, 200, outcome.response);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/v1`,
    root: `http://127.0.0.1:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: http.IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
        return;
      }
      parts.push(b);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function errorBody(status: number, message: string, code?: string): unknown {
  const type = status >= 500 ? 'server_error' : status === 401 ? 'authentication_error' : 'invalid_request_error';
  return { error: { message, type, code: code ?? null } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
