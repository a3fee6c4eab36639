// A row that keeps only tokens and the action mask (Trinity 0.5.2's multi-turn workflows): its
// turns rebuilt with the run's tokenizer, then replayed — each request checked against the
// tokens the model was prompted with. The row is made by our mirror of Trinity's masking
// (src/tokens/chat-template.ts, checked against Trinity's own in its tests) with the fixture
// model's real tokenizer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { recordedExperience, type RecordedExperience } from '../../../../src/debug/experience/recorded';
import { tokenTurns } from '../../../../src/debug/experience/token-turns';
import { RowReplayUpstream } from '../../../../src/debug/gateway/row-replay';
import { renderChat, tokenizeAndMask, type ChatMessage } from '../../../../src/tokens/chat-template';
import type { ChatCompletionRequest } from '../../../../src/debug/trajectory/trajectory';
import { skipNoTokenizer, tinyTokenizer } from '../../../harness/tiny-tokenizer';

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You walk on a frozen lake.' },
  { role: 'user', content: 'Observation 0: P _ G. Next action?' },
  { role: 'assistant', content: 'I go right. ```Right```' },
  { role: 'user', content: 'Observation 1: _ P G. Next action?' },
  { role: 'assistant', content: '```Right```\n' },
];

function tokensRow(): RecordedExperience {
  const t = tokenizeAndMask(tinyTokenizer(), conversation);
  const x = recordedExperience({
    id: '4',
    detail: { reward: 1, info: { task_index: { index: 0, taskset_id: 0 } } },
    tokens: { ids: t.ids, promptLength: t.promptLength, actionMask: t.mask.slice(t.promptLength) },
  });
  if ('error' in x) throw new Error(x.error);
  return x;
}

test("a tokens-only row's first user message is read out of its first prompt, with or without a system message before it", { skip: skipNoTokenizer }, () => {
  const withSystem = tokenTurns(tokensRow(), tinyTokenizer());
  assert.ok(!('error' in withSystem));
  assert.equal(withSystem.firstUser, 'Observation 0: P _ G. Next action?');
  const t = tokenizeAndMask(tinyTokenizer(), conversation.slice(1));
  const bare = recordedExperience({
    id: '5',
    detail: { reward: 1, info: {} },
    tokens: { ids: t.ids, promptLength: t.promptLength, actionMask: t.mask.slice(t.promptLength) },
  });
  assert.ok(!('error' in bare));
  const alone = tokenTurns(bare, tinyTokenizer());
  assert.ok(!('error' in alone));
  assert.equal(alone.firstUser, 'Observation 0: P _ G. Next action?');
});

test("a tokens-only row's turns: each assistant text, and the prompt it answered as the template renders it", { skip: skipNoTokenizer }, () => {
  const x = tokensRow();
  assert.equal(x.messages, undefined);
  assert.equal(x.tokens?.spans.length, 2);
  const turns = tokenTurns(x, tinyTokenizer());
  assert.ok(!('error' in turns), 'error' in turns ? turns.error : '');
  assert.deepEqual(turns.texts, ['I go right. ```Right```', '```Right```\n']);
  assert.equal(turns.prompts[0], renderChat(tinyTokenizer(), conversation.slice(0, 2), { addGenerationPrompt: true }));
  assert.equal(turns.prompts[1], renderChat(tinyTokenizer(), conversation.slice(0, 4), { addGenerationPrompt: true }));
});

test('a tokens-only row replays: its turns answer the calls; a request the recording did not prompt with diverges', { skip: skipNoTokenizer }, async () => {
  const x = tokensRow();
  const turns = tokenTurns(x, tinyTokenizer());
  assert.ok(!('error' in turns));
  const up = new RowReplayUpstream(x, turns);
  assert.equal(up.recordedCalls, 2);
  const ctx = (index: number, body: ChatCompletionRequest) => ({ episode: 'Texp4#R0', index, original: body, signal: new AbortController().signal });
  for (const [k, upTo] of [
    [0, 2],
    [1, 4],
  ] as const) {
    const body = { model: 'm', messages: conversation.slice(0, upTo) } as ChatCompletionRequest;
    assert.deepEqual(up.verify('Texp4#R0', k, body), { ok: true });
    const r = await up.complete(body, ctx(k, body));
    assert.ok(r.ok);
    assert.equal(r.response.choices[0].message.content, conversation[upTo].content);
  }
  const edited = { model: 'm', messages: [conversation[0], { role: 'user', content: 'Observation 0: P H G. Next action?' }] } as ChatCompletionRequest;
  const check = new RowReplayUpstream(x, turns).verify('Texp4#R0', 0, edited);
  assert.ok(!check.ok);
  assert.match(check.message, /LLM call #1, rendered by the chat template, differs from the tokens the model was prompted with/);
  assert.match(check.diff, /^- .*P _ G/m);
  assert.match(check.diff, /^\+ .*P H G/m);
});

test('a row of tokens without an action mask keeps no conversation', () => {
  const x = recordedExperience({ id: '5', detail: { reward: 0 }, tokens: { ids: [1, 2, 3], promptLength: 1, actionMask: [0, 0] } });
  assert.ok('error' in x);
  assert.match(x.error, /no assistant tokens marked by an action mask/);
});
