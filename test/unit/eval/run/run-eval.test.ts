import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseModels } from '../../../../src/eval/run/run-eval';

describe('the models of a comparison', () => {
  test('NAME=URL pairs, the baseline first, trailing slashes dropped', () => {
    assert.deepEqual(parseModels(['base=http://127.0.0.1:8000/v1/', 'step-400=https://h.example/v1']), [
      { name: 'base', baseUrl: 'http://127.0.0.1:8000/v1' },
      { name: 'step-400', baseUrl: 'https://h.example/v1' },
    ]);
  });
  test('bad pairs, non-URLs, duplicates and a single model are usage errors', () => {
    assert.throws(() => parseModels(['http://x/v1', 'b=http://y/v1']), /a model is NAME=URL/);
    assert.throws(() => parseModels(['a=notaurl', 'b=http://y/v1']), /'notaurl' is not a URL/);
    assert.throws(() => parseModels(['a=file:///etc', 'b=http://y/v1']), /not an http\(s\) URL/);
    assert.throws(() => parseModels(['a=http://x/v1', 'a=http://y/v1']), /given twice/);
    assert.throws(() => parseModels(['a=http://x/v1']), /at least two models/);
    assert.throws(() => parseModels(['../a=http://x/v1', 'b=http://y/v1']), /a model is NAME=URL/, 'a name is a folder name: no path');
  });

  test("a URL's credential is kept for the calls; a user:password URL is refused without echoing it", () => {
    assert.equal(parseModels(['a=http://h/v1?api_key=SEKRET', 'b=http://h2/v1'])[0].baseUrl, 'http://h/v1?api_key=SEKRET');
    assert.throws(
      () => parseModels(['a=http://me:hunter22@h/v1', 'b=http://h2/v1']),
      (e: Error) => /credentials in the URL \(http:\/\/me:\*\*\*@h\/v1\) are refused/.test(e.message) && !e.message.includes('hunter22'),
    );
    assert.throws(
      () => parseModels(['a=ftp://me:hunter22@h/v1', 'b=http://h2/v1']),
      (e: Error) => /not an http\(s\) URL/.test(e.message) && !e.message.includes('hunter22'),
    );
    assert.throws(
      () => parseModels(['-a=http://h/v1?api_key=SEKRET', 'b=http://h2/v1']),
      (e: Error) => /a model is NAME=URL/.test(e.message) && !e.message.includes('SEKRET'),
    );
  });
});
