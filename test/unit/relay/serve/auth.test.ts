// The relay's upgrade policy in process: the token only in the Authorization header, compared in
// constant time, never echoed; foreign origins refused. The relay over real sockets is in
// test/component/relay/serve/relay.test.ts.
import * as assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { checkUpgrade, credentialInUrl, isLoopbackHost, secretEquals, tokenProblem } from '../../../../src/relay/serve/auth';

const TOKEN = 's3cret-token-value-42';

function req(url: string, headers: Record<string, string>): IncomingMessage {
  return { url, headers } as unknown as IncomingMessage;
}

test('checkUpgrade: header token required and checked; URL credentials and foreign origins refused', () => {
  const policy = { token: TOKEN, allowOrigins: ['vscode-webview://ok'] };
  assert.deepEqual(checkUpgrade(req('/', { authorization: `Bearer ${TOKEN}` }), policy), { ok: true });
  assert.equal((checkUpgrade(req('/', {}), policy) as { status: number }).status, 401);
  assert.equal((checkUpgrade(req('/', { authorization: 'Bearer nope' }), policy) as { status: number }).status, 401);
  assert.equal((checkUpgrade(req('/', { authorization: TOKEN }), policy) as { status: number }).status, 401);
  assert.equal((checkUpgrade(req(`/?token=${TOKEN}`, { authorization: `Bearer ${TOKEN}` }), policy) as { status: number }).status, 400);
  assert.equal((checkUpgrade(req('/', { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' }), policy) as { status: number }).status, 403);
  assert.deepEqual(checkUpgrade(req('/', { authorization: `Bearer ${TOKEN}`, origin: 'vscode-webview://ok' }), policy), { ok: true });
  for (const r of [checkUpgrade(req('/', { authorization: 'Bearer wrong' }), policy), checkUpgrade(req(`/?token=${TOKEN}`, {}), policy)]) {
    assert.ok(!JSON.stringify(r).includes(TOKEN), 'no reason echoes the token');
  }
  assert.ok(secretEquals('a', 'a') && !secretEquals('a', 'b') && !secretEquals('a', 'aa'));
  assert.ok(isLoopbackHost('127.0.0.1') && isLoopbackHost('::1') && isLoopbackHost('localhost') && !isLoopbackHost('0.0.0.0') && !isLoopbackHost('10.1.2.3'));
});

describe('adversarial: one URL rule, one token', () => {
  test('credentialInUrl: a credential-looking name anywhere in the URL, escaped or not, whatever the separator', () => {
    const refused = [
      '/?token=x',
      '/?a=1;token=x',
      '/?a=1&TOKEN=x',
      '/?%74oken=x',
      '/?%2574oken=x',
      '/?bearer=x',
      '/?Bearer%20x',
      '/token=x',
      '/a/token:x/b',
      '/?access_token=x',
      '/?api-key=x',
      '/?X-Auth=x',
      '/?passwd=x',
      '/?client_secret=x',
      '/?session_id=x',
      'ws://user:pw@127.0.0.1:8765/',
      'wss://127.0.0.1:8765/?jwt=x',
      '/?a=1\ttoken=x',
      '/?a=1+token=x',
      '/?a=1,token=x',
      '/?a=1%2Caccess_token=x',
    ];
    for (const u of refused) assert.ok(credentialInUrl(u), u);
    for (const u of ['/', '/?run=a', '/relay/', 'ws://127.0.0.1:8765/', 'wss://[::1]:8765/?run=token', 'ws://host:1/tokenizer/'])
      assert.equal(credentialInUrl(u), undefined, u);
    // The token itself, as a value or a path segment, escaped or not.
    for (const u of [
      `/?x=${TOKEN}`,
      `/${TOKEN}`,
      `/a/${TOKEN}/b`,
      `/?run=${encodeURIComponent(TOKEN).replace(/./, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
    ]) {
      assert.ok(credentialInUrl(u, TOKEN), u);
      assert.equal(credentialInUrl(u), undefined, `${u} without the token is an ordinary URL`);
    }
    const policy = { token: TOKEN, allowOrigins: [] };
    for (const u of refused.filter((x) => x.startsWith('/'))) {
      assert.equal((checkUpgrade(req(u, { authorization: `Bearer ${TOKEN}` }), policy) as { status: number }).status, 400, u);
    }
  });

  test('tokenProblem: exactly one word of printable ASCII', () => {
    assert.equal(tokenProblem(TOKEN), undefined);
    for (const t of ['', 'abc def', 'abc\ndef', 'abc\tdef', 'tökén']) assert.ok(tokenProblem(t), JSON.stringify(t));
  });
});
