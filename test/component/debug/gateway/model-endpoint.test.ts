// The live upstream: every call (JSON, streamed, /models) goes over the gateway's one pooled
// HTTP client (http-client.ts); the openai SDK only parses streamed replies. A JSON call and a
// streamed one must see the same model, and fail with the same messages.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { OpenAIUpstream } from '../../../../src/debug/gateway/model-endpoint';
import type { ChatCompletionRequest } from '../../../../src/debug/trajectory/trajectory';
import { startModelServer, type ModelServer } from '../../../harness/model-server';
import { rng } from '../../../harness/rng';
import { skipWithoutModel } from '../helpers';

const ctx = (request: ChatCompletionRequest, signal = new AbortController().signal) => ({ episode: 'e', index: 0, original: request, signal });

describe('live upstream against the real model server', { skip: skipWithoutModel }, () => {
  let model: ModelServer;
  before(async () => {
    model = await startModelServer();
  });
  after(async () => {
    await model?.stop();
  });

  test('a JSON call and a streamed call of the same request get the same answer (temperature 0)', async () => {
    const up = new OpenAIUpstream({ baseUrl: model.url + '/' }); // a trailing slash is fine
    try {
      const request: ChatCompletionRequest = {
        model: 'tiny-toolcall',
        messages: [{ role: 'user', content: 'What is 2 plus 3?' }],
        temperature: 0,
        max_tokens: 24,
      };
      const plain = await up.complete(request, ctx(request));
      const streamed = await up.complete({ ...request, stream: true }, ctx(request));
      assert.ok(plain.ok && streamed.ok, JSON.stringify([plain, streamed]).slice(0, 400));
      const text = (r: typeof plain) =>
        r.ok ? JSON.stringify([r.response.choices[0].message?.content ?? '', r.response.choices[0].message?.tool_calls ?? []]) : '';
      assert.ok(text(plain).length > 8, 'the model answered');
      assert.equal(text(plain), text(streamed));
    } finally {
      up.close();
    }
  });
});

describe('live upstream error shapes (MOCK upstream: a real model server cannot be made to fail on cue)', () => {
  let server: http.Server;
  let url = '';
  const seen: http.IncomingHttpHeaders[] = [];
  let reply: (res: http.ServerResponse) => void = () => undefined;
  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => reply(res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const request: ChatCompletionRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

  test('the key goes as a bearer token; an error object and a plain-text error both reach the message', async () => {
    const up = new OpenAIUpstream({ baseUrl: url, apiKey: 'sk-test' });
    try {
      reply = (res) => res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }));
      const a = await up.complete(request, ctx(request));
      assert.equal(seen.at(-1)?.authorization, 'Bearer sk-test');
      assert.ok(!a.ok);
      assert.deepEqual([a.error.kind, a.error.status], ['upstream', 429]);
      assert.match(a.error.message, /answered 429: slow down/);
      assert.deepEqual(a.body, { message: 'slow down', type: 'rate_limit' });
      reply = (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway from nginx</html>');
      const b = await up.complete(request, ctx(request));
      assert.ok(!b.ok);
      assert.match(b.error.message, /answered 502: <html>Bad Gateway from nginx/);
    } finally {
      up.close();
    }
  });

  test('a reply cut mid-body is a connection error; cancelling is "cancelled"; a dead port is "connection"', async () => {
    const up = new OpenAIUpstream({ baseUrl: url });
    try {
      reply = (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"choices": [');
        setTimeout(() => res.destroy(), 20);
      };
      const cut = await up.complete(request, ctx(request));
      assert.ok(!cut.ok);
      assert.equal(cut.error.kind, 'connection');
      reply = () => undefined; // never answers
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100);
      const cancelled = await up.complete(request, ctx(request, abort.signal));
      assert.ok(!cancelled.ok);
      assert.deepEqual([cancelled.error.kind, cancelled.error.status], ['cancelled', 499]);
    } finally {
      up.close();
    }
    const dead = new OpenAIUpstream({ baseUrl: 'http://127.0.0.1:9/v1' });
    const r = await dead.complete(request, ctx(request));
    dead.close();
    assert.ok(!r.ok);
    assert.equal(r.error.kind, 'connection');
    assert.match(r.error.message, /cannot reach http:\/\/127\.0\.0\.1:9\/v1: ECONNREFUSED/);
  });

  test('a stall past model.timeout is a timeout', async () => {
    const up = new OpenAIUpstream({ baseUrl: url, timeoutSec: 0.3 });
    try {
      reply = () => undefined;
      const r = await up.complete(request, ctx(request));
      assert.ok(!r.ok);
      assert.deepEqual([r.error.kind, r.error.status], ['timeout', 504]);
    } finally {
      up.close();
    }
  });
  const sse = (res: http.ServerResponse, events: unknown[], done = true) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
    if (done) res.end('data: [DONE]\n\n');
  };
  const chunk = (content: string) => ({
    id: 'c1',
    object: 'chat.completion.chunk',
    model: 'm',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  });

  test("a streamed reply is assembled from its events; its error statuses read as a JSON call's do", async () => {
    const up = new OpenAIUpstream({ baseUrl: url, apiKey: 'sk-test' });
    const streamed: ChatCompletionRequest = { ...request, stream: true };
    try {
      reply = (res) => sse(res, [chunk('Hel'), chunk('lo')]);
      const ok = await up.complete(streamed, ctx(streamed));
      assert.ok(ok.ok, JSON.stringify(ok));
      assert.equal(ok.response.choices[0].message?.content, 'Hello');
      assert.equal(ok.chunks?.length, 2);
      assert.equal(seen.at(-1)?.accept, 'text/event-stream');
      assert.equal(seen.at(-1)?.authorization, 'Bearer sk-test');
      reply = (res) => res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'slow down' } }));
      const limited = await up.complete(streamed, ctx(streamed));
      assert.ok(!limited.ok);
      assert.deepEqual([limited.error.kind, limited.error.status], ['upstream', 429]);
      assert.match(limited.error.message, /answered 429: slow down/);
      reply = (res) => sse(res, [chunk('Hel'), { error: { message: 'the model crashed' } }]);
      const inStream = await up.complete(streamed, ctx(streamed));
      assert.ok(!inStream.ok);
      assert.equal(inStream.error.kind, 'upstream');
      assert.match(inStream.error.message, /sent an error in its stream: the model crashed/);
    } finally {
      up.close();
    }
  });

  test('a stream cut mid-way is a connection error; one stalled past model.timeout is a timeout, not a short reply', async () => {
    const up = new OpenAIUpstream({ baseUrl: url, timeoutSec: 0.3 });
    const streamed: ChatCompletionRequest = { ...request, stream: true };
    try {
      reply = (res) => {
        sse(res, [chunk('Hel')], false);
        setTimeout(() => res.destroy(), 20);
      };
      const cut = await up.complete(streamed, ctx(streamed));
      assert.ok(!cut.ok, JSON.stringify(cut));
      assert.equal(cut.error.kind, 'connection');
      reply = (res) => sse(res, [chunk('Hel')], false); // never ends
      const stalled = await up.complete(streamed, ctx(streamed));
      assert.ok(!stalled.ok, JSON.stringify(stalled));
      assert.deepEqual([stalled.error.kind, stalled.error.status], ['timeout', 504]);
      assert.match(stalled.error.message, /did not answer within 0\.3 s \(model\.timeout\)/);
    } finally {
      up.close();
    }
  });

  /** Writes `piece` for as long as the client reads (an endless body), then stops when it hangs up. */
  const endless = (res: http.ServerResponse, piece: string) => {
    const pump = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  };

  test('an endless chunked body, an endless stream and an oversized reply each end their call at model.maxReplyMB', async () => {
    const up = new OpenAIUpstream({ baseUrl: url, maxReplyMB: 1 });
    const streamed: ChatCompletionRequest = { ...request, stream: true };
    const tooLarge = (r: Awaited<ReturnType<typeof up.complete>>) => {
      assert.ok(!r.ok, JSON.stringify(r).slice(0, 300));
      assert.deepEqual([r.error.kind, r.error.status], ['malformed', 502]);
      assert.match(r.error.message, /sent a reply over 1 MB \(model\.maxReplyMB\): the call was cut off there/);
    };
    try {
      reply = (res) => {
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length
        res.write('{"choices": [{"message": {"role": "assistant", "content": "');
        endless(res, 'x'.repeat(64 * 1024));
      };
      tooLarge(await up.complete(request, ctx(request)));
      reply = (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        endless(res, `data: ${JSON.stringify(chunk('y'.repeat(4000)))}\n\n`);
      };
      tooLarge(await up.complete(streamed, ctx(streamed)));
      const big = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'z'.repeat(3 * 1024 * 1024) }, finish_reason: 'stop' }] });
      reply = (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
      tooLarge(await up.complete(request, ctx(request)));
      // An error reply and /models are capped alike; under the cap a reply is whole.
      reply = (res) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        endless(res, 'e'.repeat(64 * 1024));
      };
      tooLarge(await up.complete(streamed, ctx(streamed)));
      reply = (res) => sse(res, [chunk('Hel'), chunk('lo')]);
      const ok = await up.complete(streamed, ctx(streamed));
      assert.ok(ok.ok && ok.response.choices[0].message?.content === 'Hello', JSON.stringify(ok));
    } finally {
      up.close();
    }
  });

  test('a deeply nested 200 KB reply is a clear error for that call, not a stack overflow, streamed or not', async () => {
    const up = new OpenAIUpstream({ baseUrl: url });
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const streamed: ChatCompletionRequest = { ...request, stream: true };
    try {
      reply = (res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "x": ${deep}}}]}`);
      const r = await up.complete(request, ctx(request));
      assert.ok(!r.ok, 'refused');
      assert.equal(r.error.kind, 'malformed');
      assert.match(r.error.message, /sent a reply nested deeper than 256 levels/);
      reply = (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: {"choices": [{"index": 0, "delta": {"content": "hi"}, "x": ${deep}}]}\n\ndata: [DONE]\n\n`);
      };
      const s = await up.complete(streamed, ctx(streamed));
      assert.doesNotThrow(() => JSON.stringify(s), 'what is recorded serializes');
      assert.ok(!s.ok && /nested deeper than 256 levels/.test(s.error.message), 'the stream is refused alike');
    } finally {
      up.close();
    }
  });

  test('fuzz (fixed seed): 40 replies nesting arrays, objects and strings 1 to 5 000 levels deep anywhere in a completion, streamed or not: a reply or a clear error, never a stack overflow', async () => {
    const rand = rng(20261207);
    /** A value nested `depth` levels, each level an array or an object (of a random key), with strings and numbers beside. */
    const nested = (depth: number): string => {
      const open: string[] = [];
      const close: string[] = [];
      for (let i = 0; i < depth; i++) {
        const beside = rand() < 0.3 ? `"s${i}", ${i}, ` : '';
        if (rand() < 0.5) {
          open.push(`[${beside}`);
          close.push(']');
        } else {
          const k = `"k${Math.floor(rand() * 9)}"`;
          open.push(`{${beside ? `"b": ${i}, ` : ''}${k}: `);
          close.push('}');
        }
      }
      return open.join('') + (rand() < 0.5 ? '"leaf"' : '1') + close.reverse().join('');
    };
    const up = new OpenAIUpstream({ baseUrl: url });
    try {
      for (let i = 0; i < 40; i++) {
        const depth = 1 + Math.floor(rand() ** 2 * 5000);
        const v = nested(depth);
        const streamedCall = rand() < 0.5;
        const where = Math.floor(rand() * 3);
        const message = where === 0 ? `{"role": "assistant", "content": "hi", "x": ${v}}` : `{"role": "assistant", "content": "hi"}`;
        const extra = where === 1 ? `, "x": ${v}` : '';
        const top = where === 2 ? `, "usage": {"x": ${v}}` : '';
        reply = streamedCall
          ? (res) => {
              res.writeHead(200, { 'content-type': 'text/event-stream' });
              const delta = where === 0 ? `{"content": "hi", "x": ${v}}` : '{"content": "hi"}';
              res.end(`data: {"choices": [{"index": 0, "delta": ${delta}${extra}}]${top}}\n\ndata: [DONE]\n\n`);
            }
          : (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"choices": [{"index": 0, "message": ${message}${extra}}]${top}}`);
        const req: ChatCompletionRequest = streamedCall ? { ...request, stream: true } : request;
        const r = await up.complete(req, ctx(req));
        const what = `case ${i}: depth ${depth}, ${streamedCall ? 'streamed' : 'JSON'}, at ${['message', 'choice', 'top'][where]}`;
        assert.doesNotThrow(() => JSON.stringify(r), `${what}: what is recorded serializes`);
        if (depth >= 300) assert.ok(!r.ok && /nested deeper than 256 levels/.test(r.error.message), `${what}: refused`);
        else if (depth <= 200) assert.ok(r.ok, `${what}: answered (${r.ok ? '' : r.error.message})`);
      }
    } finally {
      up.close();
    }
  });

  test('/models goes the same way: the list, or an error that says what the endpoint did', async () => {
    const up = new OpenAIUpstream({ baseUrl: url, apiKey: 'sk-test' });
    try {
      reply = (res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'tiny', object: 'model' }] }));
      assert.deepEqual(await up.models(), { object: 'list', data: [{ id: 'tiny', object: 'model' }] });
      assert.equal(seen.at(-1)?.authorization, 'Bearer sk-test');
      reply = (res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
      await assert.rejects(up.models(), /answered 404: no such route/);
    } finally {
      up.close();
    }
    const dead = new OpenAIUpstream({ baseUrl: 'http://127.0.0.1:9/v1' });
    await assert.rejects(dead.models(), /cannot reach http:\/\/127\.0\.0\.1:9\/v1: ECONNREFUSED/);
    dead.close();
  });
});
