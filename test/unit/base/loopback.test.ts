// Which endpoints count as local: no API key is asked for there (the sandbox's first F5 once
// stopped on a modal asking for one).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLoopbackUrl } from '../../../src/base/loopback';

test('loopback endpoints', () => {
  for (const u of ['http://127.0.0.1:8089/v1', 'http://localhost:8000/v1', 'http://[::1]:1/v1', 'http://127.1.2.3/v1']) assert.ok(isLoopbackUrl(u), u);
  for (const u of ['https://api.openai.com/v1', 'http://10.0.0.5:8000/v1', 'http://127.0.0.1.evil.com/v1', 'not a url', undefined])
    assert.ok(!isLoopbackUrl(u), String(u));
});
