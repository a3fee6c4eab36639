import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ReplyTokenCollector } from '../../../../src/online/explorer/reply-token-ids';

test('a whole completion: prompt ids, completion ids and one logprob per token', () => {
  const c = new ReplyTokenCollector();
  c.add({
    id: 'x',
    prompt_token_ids: [1, 2, 3],
    choices: [
      {
        token_ids: [7, 8],
        logprobs: {
          content: [
            { token: 'a', logprob: -0.5 },
            { token: 'b', logprob: -1 },
          ],
        },
      },
    ],
  });
  assert.deepEqual(c.result(), { promptIds: [1, 2, 3], completionIds: [7, 8], logprobs: [-0.5, -1] });
});

test('a stream: pieces gathered in order, the prompt ids from the chunk that has them', () => {
  const c = new ReplyTokenCollector();
  c.add({ choices: [{ delta: { content: 'a' }, logprobs: { content: [{ logprob: -0.25 }] } }] });
  c.add({ choices: [{ delta: { content: 'b' }, logprobs: { content: [{ logprob: -2 }] } }] });
  c.add({ prompt_token_ids: [4, 5], choices: [{ delta: {}, token_ids: [10, 11], finish_reason: 'stop' }] });
  c.add({ choices: [], usage: { prompt_tokens: 2 } });
  assert.deepEqual(c.result(), { promptIds: [4, 5], completionIds: [10, 11], logprobs: [-0.25, -2] });
});

test('no completion ids: nothing; logprobs that do not cover every token are left out', () => {
  const none = new ReplyTokenCollector();
  none.add({ choices: [{ message: { content: 'hi' } }] });
  none.add('garbage');
  none.add(null);
  assert.equal(none.result(), undefined);
  const partial = new ReplyTokenCollector();
  partial.add({ prompt_token_ids: [1, -2], choices: [{ token_ids: [3, 4], logprobs: { content: [{ logprob: -1 }, { logprob: null }] } }] });
  assert.deepEqual(partial.result(), { promptIds: [], completionIds: [3, 4] });
});
