// The token model from a buffer row's tensors: Trinity's response-length tensors spread over the
// sequence, single-turn experiences trained on the whole response, mismatched lengths noted, and
// the summary line's numbers.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromTensors, summarize } from '../../../src/tokens/experience';

test('response-length tensors are spread over the sequence (NaN / untrained in the prompt); int64 ids read', () => {
  const e = fromTensors({
    tokens: BigInt64Array.from([5n, 6n, 7n, 8n, 9n]),
    prompt_length: 2,
    logprobs: Float32Array.from([-0.5, -2, -0.25]),
    action_mask: Uint8Array.from([1, 0, 1]),
    advantages: Float32Array.from([0.5, 0, 0.5]),
    truncate_status: 'response_truncated',
    response_text: 'abc',
  });
  assert.deepEqual([...e.ids], [5, 6, 7, 8, 9]);
  assert.deepEqual([...(e.logprobs ?? [])], [NaN, NaN, -0.5, -2, -0.25]);
  assert.deepEqual([...e.trained], [0, 0, 1, 0, 1]);
  assert.deepEqual([...(e.advantages ?? [])], [NaN, NaN, 0.5, 0, 0.5]);
  assert.equal(e.truncated, true);
  assert.equal(e.truncateStatus, 'response_truncated');
  assert.deepEqual(e.source, { kind: 'buffer' });
  assert.deepEqual(e.missing, [{ part: 'text', reason: 'no-tokenizer' }]);
  const s = summarize(e);
  assert.deepEqual(
    { ...s, meanLogprob: s.meanLogprob },
    {
      tokens: 5,
      promptTokens: 2,
      responseTokens: 3,
      trainedTokens: 2,
      meanLogprob: -0.375,
      meanAdvantage: 0.5,
      lowest: 3,
      truncated: true,
      emptyResponse: false,
    },
  );
});

test("a single-turn experience (no action_mask) trains its whole response, as Trinity's Experience does", () => {
  const e = fromTensors({ tokens: [1, 2, 3, 4], prompt_length: 3 });
  assert.deepEqual([...e.trained], [0, 0, 0, 1]);
  assert.equal(e.logprobs, undefined);
  assert.deepEqual(
    e.missing.map((m) => `${m.part}:${m.reason}`),
    ['logprobs:not-stored', 'text:no-tokenizer'],
  );
  assert.ok(Number.isNaN(summarize(e).meanLogprob));
  assert.equal(summarize(e).lowest, -1);
});

test('sequence-length tensors are taken as they are; a tensor that fits neither shape is dropped with a note', () => {
  const e = fromTensors({ tokens: [1, 2, 3], prompt_length: 1, logprobs: [0, -1, -2], advantages: [1, 2, 3, 4, 5] });
  assert.deepEqual([...(e.logprobs ?? [])], [0, -1, -2]);
  assert.equal(e.advantages, undefined);
  assert.deepEqual(e.missing[0], { part: 'advantages', reason: 'length-mismatch', detail: '5 for 3 tokens (prompt 1)' });
});

test("Trinity's prompt-truncated placeholder (one zero logprob, prompt_length = max_prompt_tokens) keeps what is there", () => {
  const e = fromTensors({ tokens: [1, 2, 3, 4, 5], prompt_length: 4, logprobs: [0], action_mask: [0], truncate_status: 'prompt_truncated' });
  assert.equal(e.truncated, true);
  assert.deepEqual([...e.trained], [0, 0, 0, 0, 0]);
  assert.equal(summarize(e).trainedTokens, 0);
});

test('empty response: no response token, or a response text that is only whitespace', () => {
  assert.equal(summarize(fromTensors({ tokens: [1, 2], prompt_length: 2 })).emptyResponse, true);
  assert.equal(summarize(fromTensors({ tokens: [1, 2, 3], prompt_length: 2, response_text: ' \n' })).emptyResponse, true);
  assert.equal(summarize(fromTensors({ tokens: [1, 2, 3], prompt_length: 2, response_text: 'ok' })).emptyResponse, false);
  // a prompt_length beyond the tokens is clamped, not trusted
  assert.equal(fromTensors({ tokens: [1, 2], prompt_length: 99 }).promptLength, 2);
});
