// One JSON POST over node:http(s) with a keep-alive pool: the gateway's path for
// non-streaming chat calls. The openai SDK (kept for streams and /models) costs about 2 ms of
// CPU per call here — request building, the Fetch API, web streams — which is most of what
// the gateway adds to a call; a forwarded call needs none of it: the body is already JSON.
import * as http from 'http';
import * as https from 'https';

export interface JsonReply {
  status: number;
  /** The reply body as text (decoded as UTF-8). */
  text: string;
}

export interface JsonPoster {
  /** Rejects with the socket's error (with its `code`) or, once `signal` aborts, an AbortError. */
  post(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<JsonReply>;
  /** Closes the pooled connections (idle ones also close on their own after 4 s). */
  close(): void;
}

export function createJsonPoster(): JsonPoster {
  // Idle sockets close after 4 s (Node also honours a server's shorter Keep-Alive hint when a
  // timeout is set), so a call made after a long stop at a breakpoint gets a fresh socket.
  const agents = { http: new http.Agent({ keepAlive: true, timeout: 4000 }), https: new https.Agent({ keepAlive: true, timeout: 4000 }) };
  return {
    post(url, headers, body, signal) {
      const secure = url.protocol === 'https:';
      return new Promise<JsonReply>((resolve, reject) => {
        if (signal.aborted) return reject(abortError());
        const fail = (e: unknown) => reject(signal.aborted ? abortError() : e);
        const req = (secure ? https : http).request(
          url,
          {
            method: 'POST',
            agent: secure ? agents.https : agents.http,
            headers: { ...headers, 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(body)) },
            signal,
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (b: Buffer) => parts.push(b));
            res.on('end', () => resolve({ status: res.statusCode ?? 502, text: (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8') }));
            res.on('error', fail);
            res.on('aborted', () => fail(Object.assign(new Error('the connection closed before the reply was complete'), { code: 'ECONNRESET' })));
          },
        );
        req.on('error', fail);
        req.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

function abortError(): Error {
  return Object.assign(new Error('the call was aborted'), { name: 'AbortError' });
}
