// A decoded experience as the drill-down shows it: chat messages (content parts joined, tool
// calls kept), or prompt/response texts for single-turn rows, plus the other fields.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { toExperienceViewDetail } from '../../../../src/metrics/view/experience-detail';

const ref = { run: 'r', endpoint: 'e', source: 's', table: 't', id: 1 };

test('chat messages: string content, content parts, a tool call as a call with its result under it', () => {
  const d = toExperienceViewDetail(ref, {
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }] },
      { role: 'tool', content: '2', tool_call_id: 'c1' },
    ],
    reward: 0.5,
    info: { model_version: 3 },
    prompt_text: 'hidden: shown as messages',
  });
  assert.deepEqual(d.messages.map((m) => [m.role, m.content]), [['user', 'a\nb'], ['assistant', '→ get_weather(city="Oslo")'], ['tool', '2']]);
  assert.equal(d.messages[1].extra, undefined, 'no raw JSON of the call');
  assert.match(d.messages[2].extra!, /tool_call_id/);
  assert.deepEqual(d.fields, { reward: '0.5', info: '{"model_version":3}' });
});

test('single-turn rows: prompt and response texts become a user and an assistant message', () => {
  const d = toExperienceViewDetail(ref, { prompt_text: 'Q?', response_text: 'A.', reward: 'NaN' });
  assert.deepEqual(d.messages, [{ role: 'user', content: 'Q?' }, { role: 'assistant', content: 'A.' }]);
  assert.equal(d.fields.reward, 'NaN');
});

test('tool call arguments: an object, a JSON string, text that is not JSON; calls after content', () => {
  const d = toExperienceViewDetail(ref, {
    messages: [
      { role: 'assistant', content: 'Let me check.', tool_calls: [{ function: { name: 'add', arguments: { a: 1, b: 2 } } }, { function: { name: 'echo', arguments: 'not json' } }] },
      { role: 'assistant', content: 'x', tool_calls: 'odd' },
    ],
  });
  assert.equal(d.messages[0].content, 'Let me check.\n→ add(a=1, b=2)\n→ echo(not json)');
  assert.match(d.messages[1].extra!, /"tool_calls": "odd"/, 'a malformed tool_calls is kept as data');
});
