import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { maskSecrets, maskUrl, urlSecrets } from '../../../src/base/url-secrets';

describe('secrets in URLs', () => {
  test('a password, a token as the user, and credential parameters are masked; the rest stays', () => {
    assert.equal(maskUrl('http://user:hunter2@h.example:8000/v1'), 'http://user:***@h.example:8000/v1');
    assert.equal(maskUrl('https://ghp_abc123@github.com/o/r.git'), 'https://***@github.com/o/r.git');
    assert.equal(maskUrl('http://u:p@ss@h/v1'), 'http://u:***@h/v1', 'a password holding @');
    assert.equal(maskUrl('http://h/v1?api_key=SEKRET&model=qwen'), 'http://h/v1?api_key=***&model=qwen');
    assert.equal(maskUrl('http://h/v1?model=qwen;access_token=T#sig=S'), 'http://h/v1?model=qwen;access_token=***#sig=***');
    assert.equal(maskUrl('http://h/v1?api%5Fkey=SEKRET'), 'http://h/v1?api%5Fkey=***', 'an escaped name');
    assert.equal(maskUrl('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000/v1');
  });

  test('the secrets of the URLs in a text, as written and decoded, masked wherever they appear', () => {
    const text = 'base=http://h/v1?api_key=a%2Fb%3Dc new=http://u:pw%40d@h2/v1';
    assert.deepEqual(urlSecrets(text).sort(), ['a%2Fb%3Dc', 'a/b=c', 'pw%40d', 'pw@d'].sort());
    assert.equal(
      maskSecrets('connect to http://h/v1?api_key=a%2Fb%3Dc failed: key a/b=c refused', urlSecrets(text)),
      'connect to http://h/v1?api_key=*** failed: key *** refused',
    );
  });
});
