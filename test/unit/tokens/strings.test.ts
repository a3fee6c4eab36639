// The words of the token library's findings: sources and missing parts as the view says them,
// rewards written as people write them.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeMissing, describeSource } from '../../../src/tokens/strings';

const english = { t: (m: string, ...a: Array<string | number | boolean>) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

test('where the tokens came from, and why a part is missing', () => {
  assert.equal(describeSource({ kind: 'buffer' }, english), 'from the experience buffer');
  assert.equal(
    describeSource({ kind: 'retokenized', from: 'messages' }, english),
    "re-tokenized from the messages with the run's tokenizer: no logprobs, mask from the chat template",
  );
  assert.equal(describeSource({ kind: 'endpoint' }, english), 'from the inference endpoint');
  assert.equal(
    describeMissing({ part: 'text', reason: 'no-tokenizer', detail: 'Qwen/Qwen2.5-7B is not a folder on this machine' }, english),
    "No tokenizer found: ids and the experience's own response text only (Qwen/Qwen2.5-7B is not a folder on this machine)",
  );
  assert.equal(describeMissing({ part: 'logprobs', reason: 'not-stored' }, english), 'logprobs not stored in this experience');
  assert.equal(
    describeMissing({ part: 'advantages', reason: 'length-mismatch', detail: '5 for 3 tokens' }, english),
    'advantages has a length that does not fit the tokens (5 for 3 tokens)',
  );
});
