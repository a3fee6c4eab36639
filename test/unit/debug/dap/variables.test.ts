import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { logprobSummary, preview, VariableStore } from '../../../../src/debug/dap/variables';

test('a 30k-token array is paged, never sent whole', () => {
  const ids = Array.from({ length: 30000 }, (_, i) => i);
  const store = new VariableStore();
  const v = store.variable('prompt_token_ids', () => ids, []);
  assert.equal(v.indexedVariables, 30000);
  assert.match(v.value, /^\[30000 numbers\] \[0,1,2/);
  assert.ok(v.value.length < 200);
  const page = store.variables(v.variablesReference, 29900, 100);
  assert.equal(page.length, 100);
  assert.deepEqual([page[0].name, page[0].value, page[99].name], ['[29900]', '29900', '[29999]']);
});

test('previews read like a chat: messages, tool calls, tool definitions; long text is clipped', () => {
  assert.equal(preview({ role: 'user', content: 'Hi' }), 'user: "Hi"');
  assert.equal(preview({ role: 'tool', tool_call_id: 'call_1', content: '{}' }), 'tool call_1: "{}"');
  assert.equal(
    preview({ role: 'assistant', content: null, tool_calls: [{ id: 'c', function: { name: 'add', arguments: '{"a":1}' } }] }),
    'assistant: add({"a":1})',
  );
  assert.equal(preview({ type: 'function', function: { name: 'add', parameters: {} } }), 'tool add');
  assert.match(preview('x'.repeat(10000)), /… \(10002 chars\)$/);
  assert.equal(
    logprobSummary([
      { token: 'a', logprob: -0.1 },
      { token: 'Paris', logprob: -0.5 },
    ]),
    '2 tokens · mean -0.300 · min -0.500 at "Paris"',
  );
});
