import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { NoReplyTokens, replyTokens } from '../../../../src/online/playground/reply-tokens';
import { english } from '../../../../src/base/l10n';
import { skipNoTokenizer, tinyTokenizer } from '../../../harness/tiny-tokenizer';

const prompt = [{ role: 'user', content: 'Say hello.' }];

test('the ids the explorer returned: prompt untrained, completion trained with its logprobs, texts from the tokenizer', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const promptIds = Array.from(tok.encode('<|im_start|>user\nSay hello.<|im_end|>\n<|im_start|>assistant\n'));
  const completionIds = Array.from(tok.encode('Hello there!'));
  const logprobs = completionIds.map((_, i) => -0.1 * (i + 1));
  const { experience: e, notes } = replyTokens(
    { prompt, content: 'Hello there!', finishReason: 'stop', ids: { promptIds, completionIds, logprobs } },
    { tokenizer: tok },
    english,
  );
  assert.deepEqual(Array.from(e.ids), [...promptIds, ...completionIds]);
  assert.equal(e.promptLength, promptIds.length);
  assert.deepEqual(Array.from(e.trained), [...promptIds.map(() => 0), ...completionIds.map(() => 1)]);
  assert.ok(Math.abs(e.logprobs![promptIds.length] - -0.1) < 1e-6);
  assert.ok(Number.isNaN(e.logprobs![0]));
  assert.equal(e.texts!.joined.slice(e.texts!.offsets[promptIds.length]), 'Hello there!');
  assert.equal(e.source.kind, 'endpoint');
  assert.ok(
    notes.some((n) => n.includes('as the explorer returned them')),
    notes.join('\n'),
  );
  assert.equal(e.truncated, false);
});

test('no ids from the explorer: re-tokenized from the messages through the chat template, and said so', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const { experience: e, notes } = replyTokens({ prompt, content: 'Hello there!', finishReason: 'length' }, { tokenizer: tok }, english);
  assert.equal(e.source.kind, 'retokenized');
  assert.equal(e.logprobs, undefined);
  assert.ok(e.texts!.joined.includes('Say hello.'));
  const trained = e.texts!.joined.slice(e.texts!.offsets[e.trained.indexOf(1)]);
  assert.ok(trained.startsWith('Hello there!'), trained);
  assert.equal(e.truncated, true);
  assert.ok(
    notes.some((n) => n.includes('re-tokenized from the messages with the tokenizer of tiny-toolcall')),
    notes.join('\n'),
  );
});

test('ids without a tokenizer: ids kept, the reason given; neither: a clear error', () => {
  const { experience: e, notes } = replyTokens(
    { prompt, content: 'x', ids: { promptIds: [1, 2], completionIds: [3] } },
    { reason: 'tiny-toolcall is not a folder' },
    english,
  );
  assert.deepEqual(Array.from(e.ids), [1, 2, 3]);
  assert.equal(e.texts, undefined);
  assert.ok(notes[0].includes('tiny-toolcall is not a folder'));
  assert.throws(
    () => replyTokens({ prompt, content: 'x' }, { reason: 'nothing here' }, english),
    (err: Error) => err instanceof NoReplyTokens && err.message.includes('nothing here'),
  );
});
