// The gateway's one HTTP client to model endpoints: node:http(s) over a keep-alive pool, for
// chat calls (JSON or streamed) and GET /models alike, so every call has the same deadline
// and the same errors. Not the openai SDK: it costs about 2 ms of CPU per call here (request
// building, the Fetch API, web streams), which would be most of what the gateway adds to a
// call, and a forwarded call needs none of it: the body is already JSON.
import * as http from 'http';
import * as https from 'https';

export interface HttpCall {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  /** A JSON body (POST). */
  body?: string;
  signal: AbortSignal;
  /** The most reply-body bytes read before the call fails with ReplyTooLargeError (default: no cap). */
  maxBytes?: number;
}

export interface PooledHttp {
  /** Resolves once the reply's headers are in (read its body with readText() or as a stream).
   *  Rejects with the socket's error (with its `code`) or, once `signal` aborts, an AbortError. */
  request(call: HttpCall): Promise<http.IncomingMessage>;
  /** request() and the whole reply body as UTF-8 text in one go, rejecting alike (and with
   *  ReplyTooLargeError past `call.maxBytes`). */
  fetchText(call: HttpCall): Promise<{ status: number; text: string }>;
  /** Closes the pooled connections (idle ones also close on their own after 4 s). */
  close(): void;
}

export function createPooledHttp(): PooledHttp {
  // Idle sockets close after 4 s (Node also honours a server's shorter Keep-Alive hint when a
  // timeout is set), so a call made after a long stop at a breakpoint gets a fresh socket.
  const agents = { http: new http.Agent({ keepAlive: true, timeout: 4000 }), https: new https.Agent({ keepAlive: true, timeout: 4000 }) };
  /** Sends `call`; `onReply` gets the reply and the function that fails the call. */
  const send = (call: HttpCall, onReply: (res: http.IncomingMessage, fail: (e: unknown) => void) => void, reject: (e: unknown) => void): void => {
    const { url, body, signal } = call;
    if (signal.aborted) return reject(abortError());
    const fail = failWith(reject, signal);
    const secure = url.protocol === 'https:';
    const headers =
      body === undefined ? call.headers : { ...call.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const req = (secure ? https : http).request(url, { method: call.method, agent: secure ? agents.https : agents.http, headers, signal }, (res) =>
      onReply(res, fail),
    );
    req.on('error', fail);
    req.end(body);
  };
  return {
    request(call) {
      return new Promise<http.IncomingMessage>((resolve, reject) => send(call, (res) => resolve(res), reject));
    },
    fetchText(call) {
      // One promise for the whole reply: this is the gateway's hot path (every non-streamed call).
      return new Promise((resolve, reject) =>
        send(call, (res, fail) => collect(res, fail, call.maxBytes, (text) => resolve({ status: res.statusCode ?? 502, text })), reject),
      );
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** The whole body of a reply from request(), as UTF-8 text. */
export function readText(res: http.IncomingMessage, signal: AbortSignal, maxBytes?: number): Promise<string> {
  return new Promise((resolve, reject) => collect(res, failWith(reject, signal), maxBytes, resolve));
}

/** A reply body past the call's byte cap: the connection was dropped, nothing more is read. */
export class ReplyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the reply exceeded ${maxBytes} bytes`);
  }
}

function collect(res: http.IncomingMessage, fail: (e: unknown) => void, maxBytes: number | undefined, done: (text: string) => void): void {
  const parts: Buffer[] = [];
  let size = 0;
  res.on('data', (b: Buffer) => {
    size += b.length;
    // An endless or huge body is cut here, before it is held (a string over ~512 MB cannot even be made).
    if (maxBytes !== undefined && size > maxBytes) {
      parts.length = 0;
      fail(new ReplyTooLargeError(maxBytes));
      res.destroy();
      return;
    }
    parts.push(b);
  });
  res.on('end', () => done((parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8')));
  res.on('error', fail);
  res.on('aborted', () => fail(Object.assign(new Error('the connection closed before the reply was complete'), { code: 'ECONNRESET' })));
}

/** Once the caller aborted, every failure is the abort (not the socket error it caused). */
const failWith = (reject: (e: unknown) => void, signal: AbortSignal) => (e: unknown) => reject(signal.aborted ? abortError() : e);

export function abortError(): Error {
  return Object.assign(new Error('the call was aborted'), { name: 'AbortError' });
}
