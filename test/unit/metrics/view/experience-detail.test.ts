// A decoded experience as the drill-down shows it: chat messages (content parts joined, tool
// calls kept), or prompt/response texts for single-turn rows, plus the other fields.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { toExperienceViewDetail } from '../../../../src/metrics/view/experience-detail';

const ref = { run: 'r', endpoint: 'e', source: 's', table: 't', id: 1 };

test('chat messages: string content, content parts, a tool call as a call with its result under it', () => {
  const d = toExperienceViewDetail(ref, {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }] },
      { role: 'tool', content: '2', tool_call_id: 'c1' },
    ],
    reward: 0.5,
    info: { model_version: 3 },
    prompt_text: 'hidden: shown as messages',
  });
  assert.deepEqual(
    d.messages.map((m) => [m.role, m.content]),
    [
      ['user', 'a\nb'],
      ['assistant', '→ get_weather(city="Oslo")'],
      ['tool', '2'],
    ],
  );
  assert.equal(d.messages[1].extra, undefined, 'no raw JSON of the call');
  assert.match(d.messages[2].extra!, /tool_call_id/);
  assert.deepEqual(d.fields, [
    { key: 'reward', value: '0.5' },
    { key: 'info', children: [{ key: 'model_version', value: '3' }] },
  ]);
});

test('single-turn rows: prompt and response texts become a user and an assistant message', () => {
  const d = toExperienceViewDetail(ref, { prompt_text: 'Q?', response_text: 'A.', reward: 'NaN' });
  assert.deepEqual(d.messages, [
    { role: 'user', content: 'Q?' },
    { role: 'assistant', content: 'A.' },
  ]);
  assert.deepEqual(d.fields, [{ key: 'reward', value: 'NaN' }]);
});

test('tool call arguments: an object, a JSON string, text that is not JSON; calls after content', () => {
  const d = toExperienceViewDetail(ref, {
    messages: [
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [{ function: { name: 'add', arguments: { a: 1, b: 2 } } }, { function: { name: 'echo', arguments: 'not json' } }],
      },
      { role: 'assistant', content: 'x', tool_calls: 'odd' },
    ],
  });
  assert.equal(d.messages[0].content, 'Let me check.\n→ add(a=1, b=2)\n→ echo(not json)');
  assert.match(d.messages[1].extra!, /"tool_calls": "odd"/, 'a malformed tool_calls is kept as data');
});

test('eid, info and tools as labelled values and groups, not minified JSON', () => {
  const d = toExperienceViewDetail(ref, {
    eid: { batch: 140, task: 'add-3-4', run: 1, step: 0, suffix: 'demo-140-add-3-4-1' },
    info: { model_version: 140, simulated_trainer: true, tags: ['a', 'b'] },
    tools: [{ type: 'function', function: { name: 'add', parameters: { required: ['a', 'b'] } } }],
  });
  assert.deepEqual(d.fields[0], {
    key: 'eid',
    children: [
      { key: 'batch', value: '140' },
      { key: 'task', value: 'add-3-4' },
      { key: 'run', value: '1' },
      { key: 'step', value: '0' },
      { key: 'suffix', value: 'demo-140-add-3-4-1' },
    ],
  });
  assert.deepEqual(d.fields[1].children, [
    { key: 'model_version', value: '140' },
    { key: 'simulated_trainer', value: 'true' },
    { key: 'tags', value: 'a, b' },
  ]);
  assert.deepEqual(d.fields[2], {
    key: 'tools',
    children: [
      {
        key: '1',
        children: [
          { key: 'type', value: 'function' },
          {
            key: 'function',
            children: [
              { key: 'name', value: 'add' },
              { key: 'parameters', children: [{ key: 'required', value: 'a, b' }] },
            ],
          },
        ],
      },
    ],
  });
  assert.ok(!JSON.stringify(d.fields).includes('{\\"'), 'no JSON text inside the values');
});
