// Each way an explorer can fail gives its own kind (the UI explains each in words).
// STAND-INS: small node:http servers answering exactly what Trinity's proxy answers on a 504
// (its upstream_timeout body), what a pre-0.4 explorer answers on /feedback (FastAPI's 404),
// and one that never answers (our own timeout). The real proxy's 502 is in test/component/online.test.ts.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ExplorerClient } from '../../../../src/online/explorer/explorer-client';
import { ExplorerError } from '../../../../src/online/explorer/errors';

const kindOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ExplorerError, String(e));
    return e.kind;
  }
};

describe('explorer failures', () => {
  let server: http.Server;
  let url = '';
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/v1/chat/completions') {
        res.writeHead(504, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            error: { message: 'Upstream timeout when forwarding request to model at http://x.', type: 'upstream_timeout', code: 'gateway_timeout' },
          }),
        );
      }
      if (req.url === '/metrics') return; // never answers
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"detail":"Not Found"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  test('504 from the proxy: gateway-timeout with its message', async () => {
    const c = new ExplorerClient(url);
    await assert.rejects(
      c.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      (e: unknown) => e instanceof ExplorerError && e.kind === 'gateway-timeout' && /Upstream timeout/.test(e.detail),
    );
  });
  test('pre-0.4 explorer: no /feedback route', async () => {
    const c = new ExplorerClient(url);
    assert.equal(await c.generation(), 'pre-0.4');
    assert.equal(await kindOf(c.feedback({ msgIds: ['a'], reward: 1 })), 'pre-0.4');
    assert.equal(await kindOf(c.commit()), 'pre-0.4');
  });
  test('no answer in time: timeout', async () => {
    assert.equal(await kindOf(new ExplorerClient(url, { timeoutMs: 300 }).metrics()), 'timeout');
  });
  test('dead explorer: unreachable', async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as net.AddressInfo).port;
    await new Promise((r) => s.close(r));
    const c = new ExplorerClient(`127.0.0.1:${port}/v1/`);
    assert.equal(c.url, `http://127.0.0.1:${port}`);
    assert.equal(await kindOf(c.health()), 'unreachable');
    assert.equal(await kindOf(c.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] })), 'unreachable');
  });
});
