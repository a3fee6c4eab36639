// The JSON form `agentrl tokens --json` prints: prompt_length, truncated, and per token exactly
// id, text, logprob, trained, advantage with absent values null, infinities by name; float32 values print as the
// shortest decimal that reads back the same (numpy's way).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromTensors } from '../../../src/tokens/experience';
import { toTokensJson } from '../../../src/tokens/token-json';
import { fromBuffer } from '../../../src/tokens/build';
import { skipNoTokenizer, tinyTokenizer } from '../../harness/tiny-tokenizer';

test('absent values are null, never left out; every token has the same five keys', () => {
  const j = toTokensJson(fromTensors({ tokens: [7, 8, 9], prompt_length: 1, logprobs: Float32Array.from([-0.1, NaN]), action_mask: [1, 0] }));
  assert.deepEqual(j, {
    prompt_length: 1,
    truncated: false,
    tokens: [
      { id: 7, text: null, logprob: null, trained: false, advantage: null },
      { id: 8, text: null, logprob: -0.1, trained: true, advantage: null },
      { id: 9, text: null, logprob: null, trained: false, advantage: null },
    ],
    source: 'buffer',
    missing: [{ part: 'text', reason: 'no-tokenizer' }],
  });
  assert.equal(JSON.stringify(j.tokens[1]), '{"id":8,"text":null,"logprob":-0.1,"trained":true,"advantage":null}');
});

test('with the tokenizer: texts joined give the decode, advantages as stored', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const ids = tok.encode('Hi.<|im_end|>');
  const j = toTokensJson(fromBuffer({ tokens: ids, prompt_length: 1, advantages: new Float32Array(ids.length - 1).fill(0.75) }, { tokenizer: tok }));
  assert.equal(j.tokens.map((t) => t.text).join(''), 'Hi.<|im_end|>');
  assert.deepEqual(
    j.tokens.map((t) => t.advantage),
    [null, ...new Array<number>(ids.length - 1).fill(0.75)],
  );
  assert.deepEqual(j.missing, [{ part: 'logprobs', reason: 'not-stored' }]);
});

test('an infinite logprob or advantage is "-Infinity" / "Infinity", not null (which means absent)', () => {
  const j = toTokensJson(
    fromTensors({
      tokens: [7, 8, 9],
      prompt_length: 1,
      logprobs: Float32Array.from([-Infinity, -0.5]),
      advantages: Float32Array.from([Infinity, -Infinity]),
      action_mask: [1, 1],
    }),
  );
  assert.deepEqual(
    j.tokens.map((t) => [t.logprob, t.advantage]),
    [
      [null, null],
      ['-Infinity', 'Infinity'],
      [-0.5, '-Infinity'],
    ],
  );
  // What a reader gets back with Number() (or Python's float()): the same infinities.
  const back = (JSON.parse(JSON.stringify(j)) as typeof j).tokens.map((t) => (t.logprob === null ? null : Number(t.logprob)));
  assert.deepEqual(back, [null, -Infinity, -0.5]);
});
