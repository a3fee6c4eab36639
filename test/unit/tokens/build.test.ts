// The token model from each source: a buffer row with and without the run's tokenizer, text and
// messages re-tokenized (marked so, no logprobs, the mask from the chat template), an endpoint call.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromBuffer, fromEndpoint, retokenize } from '../../../src/tokens/build';
import { tokenizeAndMask } from '../../../src/tokens/chat-template';
import { skipNoTokenizer, tinyTokenizer, TOOLS, WEATHER_EPISODE } from '../../harness/tiny-tokenizer';

test('a buffer row without a tokenizer: ids, its own response text, and the reason', () => {
  const e = fromBuffer({ tokens: [1, 2, 3], prompt_length: 2, response_text: 'x' }, { reason: 'Qwen/Qwen2.5-7B is not a folder on this machine' });
  assert.equal(e.texts, undefined);
  assert.equal(e.responseText, 'x');
  assert.deepEqual(
    e.missing.find((m) => m.part === 'text'),
    { part: 'text', reason: 'no-tokenizer', detail: 'Qwen/Qwen2.5-7B is not a folder on this machine' },
  );
});

test('a buffer row with the tokenizer: texts of every token; the response tokens joined are the response text', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const prompt = tok.encode('<|im_start|>user\nWhat is 2 plus 3?<|im_end|>\n<|im_start|>assistant\n');
  const response = tok.encode('The answer is 5.');
  const e = fromBuffer({ tokens: [...prompt, ...response], prompt_length: prompt.length, response_text: 'The answer is 5.' }, { tokenizer: tok });
  assert.ok(e.texts);
  assert.equal(e.texts.joined.slice(e.texts.offsets[e.promptLength]), e.responseText);
  assert.equal(
    e.missing.some((m) => m.part === 'text'),
    false,
  );
});

test("messages re-tokenized: the template's tokens and Trinity's mask, marked re-tokenized, no logprobs", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const e = retokenize({ messages: WEATHER_EPISODE, tools: TOOLS, response_text: 'It is sunny and 21 degrees C in Paris.' }, tok);
  const t = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
  assert.deepEqual(e.source, { kind: 'retokenized', from: 'messages' });
  assert.deepEqual([...e.ids], [...t.ids]);
  assert.deepEqual([...e.trained], [...t.mask]);
  assert.equal(e.promptLength, t.promptLength);
  assert.equal(e.logprobs, undefined);
  assert.deepEqual(
    e.missing.map((m) => `${m.part}:${m.reason}`),
    ['logprobs:retokenized', 'advantages:retokenized'],
  );
});

test('text re-tokenized: prompt then response, the response trained', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const e = retokenize({ prompt_text: 'What is 2 plus 3?', response_text: 'The answer is 5.', truncate_status: 'response_truncated' }, tok);
  assert.deepEqual(e.source, { kind: 'retokenized', from: 'text' });
  assert.equal(e.texts?.joined, 'What is 2 plus 3?The answer is 5.');
  assert.equal(e.trained.indexOf(1), e.promptLength);
  assert.equal(e.truncated, true);
});

test('an endpoint call: prompt and completion ids, completion logprobs, finish_reason "length" is truncated', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const e = fromEndpoint({ promptIds: [1, 2], completionIds: [3, 4, 5], logprobs: [-0.1, -0.2, -0.3], finishReason: 'length' }, { tokenizer: tok });
  assert.deepEqual(e.source, { kind: 'endpoint' });
  assert.equal(e.truncated, true);
  assert.deepEqual([...e.trained], [0, 0, 1, 1, 1]);
  assert.ok(Number.isNaN(e.logprobs?.[1] ?? 0));
  assert.ok(Math.abs((e.logprobs?.[4] ?? 0) + 0.3) < 1e-6);
  assert.equal(e.texts?.joined, tok.decode([1, 2, 3, 4, 5]));
});
