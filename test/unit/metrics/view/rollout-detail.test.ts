// A decoded experience as the drill-down shows it: chat messages (content parts joined, tool
// calls kept), or prompt/response texts for single-turn rows, plus the other fields.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { toRolloutDetail } from '../../../../src/metrics/view/rollout-detail';

const ref = { run: 'r', endpoint: 'e', source: 's', table: 't', id: 1 };

test('chat messages: string content, content parts, tool calls as extra JSON', () => {
  const d = toRolloutDetail(ref, {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: null, tool_calls: [{ function: { name: 'calc', arguments: '{"x":1}' } }] },
      { role: 'tool', content: '2', tool_call_id: 'c1' },
    ],
    reward: 0.5,
    info: { model_version: 3 },
    prompt_text: 'hidden: shown as messages',
  });
  assert.deepEqual(d.messages.map((m) => [m.role, m.content]), [['user', 'a\nb'], ['assistant', ''], ['tool', '2']]);
  assert.match(d.messages[1].extra!, /"name": "calc"/);
  assert.match(d.messages[2].extra!, /tool_call_id/);
  assert.deepEqual(d.fields, { reward: '0.5', info: '{"model_version":3}' });
});

test('single-turn rows: prompt and response texts become a user and an assistant message', () => {
  const d = toRolloutDetail(ref, { prompt_text: 'Q?', response_text: 'A.', reward: 'NaN' });
  assert.deepEqual(d.messages, [{ role: 'user', content: 'Q?' }, { role: 'assistant', content: 'A.' }]);
  assert.equal(d.fields.reward, 'NaN');
});
