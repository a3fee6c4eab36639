// Rollouts you can read: a run row says its launch name, reward and age; an episode
// reads as a chat transcript with tool calls, tool results and the reward, user text escaped.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EpisodeTrajectory } from '../../../../src/debug/trajectory/trajectory';
import { runRow } from '../../../../src/debug/results/run-label';
import { episodeMarkdown, mdText, toolCallText } from '../../../../src/debug/results/transcript';

const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
const episode: EpisodeTrajectory = {
  episode: 'Tparis#R0',
  taskIndex: 0,
  taskId: 'paris',
  repeat: 0,
  task: { question: 'What is the weather in Paris?' },
  turns: [
    {
      type: 'llm',
      index: 0,
      request: { model: 'm', messages: [{ role: 'user', content: 'What is the weather in Paris? <script>x</script>' }] },
      response: {
        choices: [{ message: { role: 'assistant', content: '', tool_calls: [call] }, finish_reason: 'tool_calls' }],
        usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 },
      },
      source: { path: '/ws/toolcall/workflow.py', line: 36, name: 'run' },
    },
    {
      type: 'tool',
      llmIndex: 0,
      id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      result: '{"city": "Paris", "temp_c": 21}',
      source: { path: '/ws/toolcall/tools.py', line: 24, name: 'get_weather' },
    },
    {
      type: 'llm',
      index: 1,
      request: {
        model: 'm',
        messages: [
          { role: 'user', content: 'What is the weather in Paris? <script>x</script>' },
          { role: 'assistant', content: '', tool_calls: [call] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"city": "Paris", "temp_c": 21}' },
        ],
      },
      response: { choices: [{ message: { role: 'assistant', content: 'It is sunny and 21 degrees C in Paris.' }, finish_reason: 'stop' }] },
    },
  ],
  reward: 1,
  metrics: { accuracy: 1 },
  metadata: {},
  experiences: [],
};

test('an episode reads as a chat: messages once, tool calls and results, reward, source links', () => {
  const md = episodeMarkdown(episode, '/ws/.agentrl/runs/r1/transcripts');
  assert.match(md, /## Tparis\\#R0 — reward \*\*1\*\*/);
  assert.equal(md.split('What is the weather in Paris?').length - 1, 2, 'the question once in the chat (plus once in the task block)');
  // A tool call reads as the call it is, not as a JSON object; its result under it.
  assert.match(md, /→ `get_weather\(city="Paris"\)`/);
  assert.ok(!md.includes('{"city":"Paris"}'), 'the arguments are not shown as raw JSON');
  // Relative links (the preview refuses file: URLs) that open the line.
  assert.ok(
    md.includes(
      'tool `get_weather(city="Paris")` — [tools\\.py:24](<../../../../toolcall/tools.py#L24>)\n\n→ result\n\n```json\n{\n  "city": "Paris",\n  "temp_c": 21\n}\n```',
    ),
    md,
  );
  assert.equal(toolCallText('add', '{"a": 2, "b": [1, "x"]}'), 'add(a=2, b=[1,"x"])');
  assert.equal(toolCallText('broken', '{"a": '), 'broken({"a": )');
  assert.match(md, /It is sunny and 21 degrees C in Paris\\\./);
  assert.match(md, /### Reward: 1/);
  assert.ok(!md.includes('<script>'), 'user text cannot inject HTML');
  assert.ok(md.includes('&lt;script&gt;'));
  // The second call's request repeats the conversation: its messages are not shown again.
  assert.equal(md.split('**tool**').length - 1, 0, 'the tool message is shown as the tool turn, not again as a message');
  assert.equal(mdText('a*b_[c]'), 'a\\*b\\_\\[c\\]');
  // Roles in words, no emoji: a font without them draws empty boxes.
  assert.match(md, /\*\*user\*\*\n\n> What is the weather/);
  assert.doesNotMatch(md, /\p{Extended_Pictographic}/u, 'no emoji in the transcript');
});

test('a run row: launch name, then reward and age up front', () => {
  const now = new Date(2026, 10, 24, 10, 30, 0);
  const row = runRow(
    {
      id: '20261124-102500-123',
      dir: '/ws/.agentrl/runs/20261124-102500-123',
      launch: { name: 'Debug toolcall rollouts', config: '/ws/toolcall/toolcall.yaml' },
      summary: {
        id: 'x',
        status: 'completed',
        backbone: 'native',
        startedAt: '',
        finishedAt: '',
        wallMs: 1,
        episodes: 3,
        errors: 0,
        rewardMean: 0.6667,
        rewardByTask: {},
        tokens: { prompt: 1, completion: 1, total: 2 },
        llmCalls: 6,
      },
    },
    now,
  );
  assert.equal(row.label, 'Debug toolcall rollouts');
  assert.equal(row.description, 'reward 0.67 · 5 min ago · 3 ep');
  assert.equal(runRow({ id: '20261124-102959-000', dir: '/x', launch: { config: '/ws/a/config.yaml' } }, now).label, 'config.yaml');
});
