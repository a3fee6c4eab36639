// A relay `tokens` reply as the drill-down shows it: an SQL row's own ids, logprobs, mask and
// advantages with texts from the run's tokenizer; without a tokenizer the ids and a line saying
// why; a texts-only row re-tokenized and marked so, or a clear error without a tokenizer.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { english } from '../../../../src/base/l10n';
import { experienceTokenView } from '../../../../src/metrics/tokens/experience-tokens';
import type { TokensReply } from '../../../../src/relay-protocol/tokens-frame';
import { tokenizeAndMask } from '../../../../src/tokens/chat-template';
import { fromWire } from '../../../../src/tokens/experience-wire';
import { skipNoTokenizer, tinyTokenizer } from '../../../harness/tiny-tokenizer';

function tensorsReply(ids: number[], promptLength: number): TokensReply {
  const n = ids.length - promptLength;
  return {
    type: 'tokens',
    request: 1,
    source: 's',
    id: 7,
    kind: 'tensors',
    prompt_length: promptLength,
    truncate_status: null,
    response_text: 'The answer is 42.',
    arrays: {
      tokens: Int32Array.from(ids),
      logprobs: Float32Array.from({ length: n }, (_, i) => -0.1 * (i + 1)),
      action_mask: Uint8Array.from({ length: n }, (_, i) => (i === n - 1 ? 0 : 1)),
      advantages: new Float32Array(n).fill(0.5),
    },
  } as TokensReply;
}

test("an SQL row: ids, logprobs, mask and advantages as stored, texts from the run's tokenizer, the notes name it", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const prompt = Array.from(tok.encode('What is 40 + 2?'));
  const response = Array.from(tok.encode('The answer is 42.'));
  const r = experienceTokenView(tensorsReply([...prompt, ...response], prompt.length), { tokenizer: tok }, english);
  const e = fromWire(r.experience);
  assert.deepEqual(Array.from(e.ids), [...prompt, ...response]);
  assert.equal(e.promptLength, prompt.length);
  assert.equal(e.texts?.joined, 'What is 40 + 2?The answer is 42.');
  assert.deepEqual(Array.from(e.trained), [...prompt.map(() => 0), ...response.map((_, i) => (i === response.length - 1 ? 0 : 1))]);
  assert.ok(Math.abs(e.logprobs![prompt.length] + 0.1) < 1e-6 && Number.isNaN(e.logprobs![0]));
  assert.equal(e.advantages![prompt.length], 0.5);
  assert.deepEqual(r.notes, ['Token texts from the tokenizer of tiny-toolcall', 'from the experience buffer']);
});

test('no tokenizer: the ids and the response text, and a note saying why', () => {
  const r = experienceTokenView(tensorsReply([1, 2, 3, 4, 5], 2), { reason: 'no run config (config.json, config.yaml) in /job' }, english);
  const e = fromWire(r.experience);
  assert.equal(e.texts, undefined);
  assert.equal(e.responseText, 'The answer is 42.');
  assert.ok(
    r.notes.some((n) => n.startsWith('No tokenizer found') && n.includes('no run config')),
    r.notes.join(' | '),
  );
});

test('a texts-only row (file buffer, queue backup): re-tokenized and marked so; without a tokenizer a clear error', { skip: skipNoTokenizer }, () => {
  const reply = {
    type: 'tokens',
    request: 1,
    source: 's',
    id: 3,
    kind: 'texts',
    prompt_length: null,
    truncate_status: null,
    prompt_text: 'What is 40 + 2?',
    response_text: 'The answer is 42.',
    messages: null,
    tools: null,
    arrays: {},
  } as unknown as TokensReply;
  const r = experienceTokenView(reply, { tokenizer: tinyTokenizer() }, english);
  const e = fromWire(r.experience);
  assert.equal(e.source.kind, 'retokenized');
  assert.ok(e.texts?.joined.includes('The answer is 42.'));
  assert.ok(
    r.notes.some((n) => n.startsWith('re-tokenized')),
    r.notes.join(' | '),
  );
  assert.throws(() => experienceTokenView(reply, { reason: 'no tokenizer here' }, english), /keeps only texts.*no tokenizer here/);
});

test("an SQL row with its messages: the turns the view labels, located by the run's chat template", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const messages = [
    { role: 'user', content: 'What is 40 + 2?' },
    { role: 'assistant', content: 'The answer is 42.' },
  ];
  const t = tokenizeAndMask(tok, messages);
  const reply = { ...tensorsReply(Array.from(t.ids), t.promptLength), messages, tools: null } as TokensReply;
  reply.arrays.action_mask = t.mask.subarray(t.promptLength);
  const r = experienceTokenView(reply, { tokenizer: tok }, english);
  // The template's default system prompt comes first, as the template's own (not as message 0).
  assert.deepEqual(
    r.marks?.turns.map((x) => [x.message, x.role]),
    [
      [-1, 'template'],
      [0, 'user'],
      [1, 'assistant'],
    ],
  );
  assert.equal(r.marks?.turns[0].start, 0);
  assert.match(tok.decode(t.ids.subarray(0, r.marks.turns[1].start)), /^<\|im_start\|>system\n[^<]+<\|im_end\|>\n$/);
  assert.match(tok.decode(t.ids.subarray(r.marks.turns[1].start, r.marks.turns[2].start)), /^<\|im_start\|>user\nWhat is 40 \+ 2\?<\|im_end\|>\n$/);
  assert.equal(r.marks?.turns[2].end, t.ids.length);
  assert.deepEqual(r.marks?.warnings, []);
  // Without its messages there is nothing to locate: no marks.
  assert.equal(experienceTokenView(tensorsReply(Array.from(t.ids), t.promptLength), { tokenizer: tok }, english).marks, undefined);
});
