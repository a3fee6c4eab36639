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
});
