import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { EndpointTokenizerError, TokenizeEndpoint } from '../../../../src/debug/gateway/tokenize-endpoint';

/** Stand-in for the model server's HTTP (a unit test opens no socket): records each URL asked. */
function recordingFetch(reply: (url: string) => { status: number; body: unknown }) {
  const urls: string[] = [];
  const f = ((input: string | URL | Request) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    urls.push(url);
    const r = reply(url);
    return Promise.resolve(new Response(JSON.stringify(r.body), { status: r.status }));
  }) as typeof fetch;
  return { urls, fetch: f };
}

test('the tokenizer routes go at the root of the base URL, before its query, which they keep', async () => {
  const cases: [string, string][] = [
    ['http://h/v1', 'http://h/tokenize'],
    ['http://h:8000/v1/', 'http://h:8000/tokenize'],
    ['http://h/v1?api_key=x', 'http://h/tokenize?api_key=x'],
    ['http://h/v1/?api_key=x&org=a%20b', 'http://h/tokenize?api_key=x&org=a%20b'],
    ['https://gw.example/proxy/v1?key=x#frag', 'https://gw.example/proxy/tokenize?key=x'],
    ['http://h?api_key=x', 'http://h/tokenize?api_key=x'],
  ];
  for (const [base, want] of cases) {
    const rec = recordingFetch(() => ({ status: 200, body: { tokens: [1, 2] } }));
    const ep = new TokenizeEndpoint({ baseUrl: base, fetch: rec.fetch });
    assert.deepEqual(await ep.tokenize('hi'), [1, 2]);
    assert.deepEqual(rec.urls, [want], base);
  }
  const rec = recordingFetch(() => ({ status: 200, body: { content: 'hi' } }));
  await new TokenizeEndpoint({ baseUrl: 'http://h/v1?api_key=x', fetch: rec.fetch }).detokenize([1]);
  assert.deepEqual(rec.urls, ['http://h/detokenize?api_key=x']);
});

test("a query's credential is sent but never shown: the label and errors mask it", async () => {
  const rec = recordingFetch(() => ({ status: 500, body: { error: 'down' } }));
  const ep = new TokenizeEndpoint({ baseUrl: 'http://h/v1?api_key=sekret123', fetch: rec.fetch });
  assert.equal(ep.label, 'http://h?api_key=***');
  await assert.rejects(ep.tokenize('x'), (e: Error) => {
    assert.ok(e instanceof EndpointTokenizerError);
    assert.match(e.message, /http:\/\/h\/tokenize\?api_key=\*\*\* answered 500/);
    assert.doesNotMatch(e.message, /sekret123/);
    return true;
  });
  assert.deepEqual(rec.urls, ['http://h/tokenize?api_key=sekret123']);
  assert.equal(new TokenizeEndpoint({ baseUrl: 'http://h:1/v1', fetch: rec.fetch }).label, 'http://h:1');
});
