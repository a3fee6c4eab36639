// The live upstream: non-streamed calls go as plain JSON over a pooled connection
// (json-post.ts), streamed ones through the openai SDK. Both must see the same model.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { OpenAIUpstream } from '../../../../src/debug/gateway/model-endpoint';
import type { ChatRequest } from '../../../../src/debug/model/trajectory';
import { startModelServer, type ModelServer } from '../../../harness/model-server';
import { skipWithoutModel } from '../helpers';

const ctx = (request: ChatRequest, signal = new AbortController().signal) => ({ episode: 'e', index: 0, original: request, signal });

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
      const request: ChatRequest = { model: 'tiny-toolcall', messages: [{ role: 'user', content: 'What is 2 plus 3?' }], temperature: 0, max_tokens: 24 };
      const plain = await up.complete(request, ctx(request));
      const streamed = await up.complete({ ...request, stream: true }, ctx(request));
      assert.ok(plain.ok && streamed.ok, JSON.stringify([plain, streamed]).slice(0, 400));
      const text = (r: typeof plain) => (r.ok ? JSON.stringify([r.response.choices[0].message?.content ?? '', r.response.choices[0].message?.tool_calls ?? []]) : '');
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
  const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

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
});
