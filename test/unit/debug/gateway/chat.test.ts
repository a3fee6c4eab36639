import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { assembleChunks, canonicalJson, completionToChunks, requestDiff, sameRequest } from '../../../../src/debug/gateway/chat';

test('stream chunks assemble into one completion (content, tool calls by index, finish, usage, logprobs)', () => {
  const base = { id: 'c1', created: 1, model: 'm', object: 'chat.completion.chunk' };
  const c = assembleChunks([
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' } }] },
    { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_', arguments: '{"ci' } }] } }] },
    {
      ...base,
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, function: { name: 'weather', arguments: 'ty":"Oslo"}' } }] },
          logprobs: { content: [{ token: 'x', logprob: -0.5 }] },
        },
      ],
    },
    {
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls', token_ids: [1, 2] }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    },
  ]);
  assert.equal(c.id, 'c1');
  assert.deepEqual(c.choices[0].message, {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
  });
  assert.equal(c.choices[0].finish_reason, 'tool_calls');
  assert.deepEqual(c.choices[0].token_ids, [1, 2]);
  assert.deepEqual(c.choices[0].logprobs, { content: [{ token: 'x', logprob: -0.5 }] });
  assert.equal(c.usage!.total_tokens, 7);
  // and back: an edited completion streams out as chunks that assemble to the same message
  assert.deepEqual(assembleChunks(completionToChunks(c)).choices[0].message, c.choices[0].message);
});

test('requests compare by content, not key order; the diff shows recorded (-) and received (+)', () => {
  const a = { model: 'm', messages: [{ role: 'user', content: 'Add 30 and 45.' }], temperature: 0 };
  const b = { temperature: 0, messages: [{ content: 'Add 30 and 45.', role: 'user' }], model: 'm' };
  assert.ok(sameRequest(a, b));
  assert.equal(canonicalJson(a), canonicalJson(b));
  const c = { ...a, messages: [{ role: 'user', content: 'Add 31 and 45.' }] };
  assert.ok(!sameRequest(a, c));
  const diff = requestDiff(a, c);
  assert.match(diff, /^--- recorded\n\+\+\+ received\n/);
  assert.match(diff, /- {7}"content": "Add 30 and 45\.",\n\+ {7}"content": "Add 31 and 45\.",/);
  assert.ok(!diff.includes('"temperature"'), 'unchanged lines far from the change are elided');
});
