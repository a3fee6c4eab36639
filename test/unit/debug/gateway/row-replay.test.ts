import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RowReplayUpstream } from '../../../../src/debug/gateway/row-replay';
import { recordedExperience, type RecordedExperience } from '../../../../src/debug/experience/recorded';
import type { ChatCompletionRequest } from '../../../../src/debug/trajectory/trajectory';

const ctx = (index: number, body: ChatCompletionRequest, role?: string) => ({
  episode: 'T0#R0',
  index,
  ...(role ? { role } : {}),
  original: body,
  signal: new AbortController().signal,
});

function experience(detail: Record<string, unknown>, id = '7'): RecordedExperience {
  const x = recordedExperience({ id, detail });
  if ('error' in x) throw new Error(x.error);
  return x;
}

const multiTurn = experience({
  reward: 1,
  metrics: { accuracy: 1, 'time/run_execution': 0.5 },
  info: { model_version: 140, task_index: { index: 3, taskset_id: 0 } },
  eid: { batch: 12, task: 0, run: 1 },
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Weather in Oslo?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: '{"t": 3}' },
    { role: 'assistant', content: 'It is 3 degrees.' },
  ],
});

test('a buffer row decodes into what a replay needs: task_index {index, taskset_id}, model version, parts without timings, group slot, step', () => {
  assert.equal(multiTurn.taskIndex, 3);
  assert.equal(multiTurn.tasksetId, 0);
  assert.equal(multiTurn.modelVersion, 140);
  assert.deepEqual(multiTurn.parts, { accuracy: 1 });
  assert.equal(multiTurn.run, 1);
  assert.equal(multiTurn.step, 12);
  // A bare integer task_index (older writers) is the index.
  assert.equal(experience({ info: { task_index: 5 }, response_text: 'x' }).taskIndex, 5);
  // The relay's row columns win over the pickled copy (the SQL reward column is what training read).
  const fromRow = recordedExperience({ id: '1', row: { reward: 0.25, model_version: 9 }, detail: { reward: 1, response_text: 'x' } });
  assert.ok(!('error' in fromRow) && fromRow.reward === 0.25 && fromRow.modelVersion === 9);
});

test('a row that keeps no conversation cannot be replayed, and says why', () => {
  const x = recordedExperience({ id: '9', detail: { reward: -1, info: { task_index: { index: 0 } } } });
  assert.ok('error' in x);
  assert.match(x.error, /experience 9 keeps no conversation to replay/);
});

test('call k is answered with the k-th recorded assistant turn (tool calls too) when the request matches what preceded it', async () => {
  const up = new RowReplayUpstream(multiTurn);
  const first: ChatCompletionRequest = { model: 'm', messages: multiTurn.messages!.slice(0, 2) as ChatCompletionRequest['messages'], temperature: 1 };
  assert.deepEqual(up.verify('T0#R0', 0, first), { ok: true });
  const r1 = await up.complete(first, ctx(0, first));
  assert.ok(r1.ok);
  assert.equal(r1.response.choices[0].message.tool_calls?.[0].function.name, 'get_weather');
  assert.equal(r1.response.choices[0].finish_reason, 'tool_calls');
  // The tool result comes back with the SDK's own shape (content null, arguments as sent): same conversation.
  const second: ChatCompletionRequest = {
    messages: [
      ...(multiTurn.messages!.slice(0, 2) as ChatCompletionRequest['messages']),
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"t": 3}' },
    ],
  };
  assert.deepEqual(up.verify('T0#R0', 1, second), { ok: true });
  const r2 = await up.complete(second, ctx(1, second));
  assert.ok(r2.ok && r2.response.choices[0].message.content === 'It is 3 degrees.');
  assert.equal(up.log.calls, 2);
  assert.equal(up.log.divergedAt, null);
  assert.ok(up.log.unchecked.some((u) => /sampling parameters/.test(u)));
});

test('a changed prompt diverges at that call with the request diff; a call past the recording diverges too', () => {
  const up = new RowReplayUpstream(multiTurn);
  const edited: ChatCompletionRequest = {
    messages: [
      { role: 'system', content: 'Be verbose.' },
      { role: 'user', content: 'Weather in Oslo?' },
    ],
  };
  const check = up.verify('T0#R0', 0, edited);
  assert.equal(check.ok, false);
  assert.ok(!check.ok);
  assert.match(check.message, /LLM call #1 differs/);
  assert.match(check.diff, /- {2}.*Be brief\./);
  assert.match(check.diff, /\+ {2}.*Be verbose\./);
  assert.deepEqual(up.log.divergedAt?.call, 1);
  const past = up.verify('T0#R0', 2, edited);
  assert.ok(!past.ok && /makes LLM call #3, but the experience records 2 model turn/.test(past.message));
  const aux = up.verify('T0#R0', 0, edited, 'auxiliary/0');
  assert.ok(!aux.ok && /auxiliary/.test(aux.message));
});

test("a prompt_text row: each message's text must appear in the rendered prompt, in order; the template is named unchecked", async () => {
  const x = experience({
    reward: 1.1,
    prompt_text: '<|system|>\nThink.\n<|user|>\nWhat is 2 + 3?\n<|assistant|>\n',
    response_text: '<answer>5</answer>',
    eid: { run: 3 },
  });
  const up = new RowReplayUpstream(x);
  const ok: ChatCompletionRequest = {
    messages: [
      { role: 'system', content: 'Think.' },
      { role: 'user', content: 'What is 2 + 3?' },
    ],
    n: 4,
  };
  assert.deepEqual(up.verify('e', 0, ok), { ok: true });
  assert.ok(up.log.unchecked.some((u) => /chat template/.test(u)));
  // The group-sampling call: every slot answered with the recorded member, its slot said.
  const r = await up.complete(ok, ctx(0, ok));
  assert.ok(r.ok);
  assert.equal(r.response.choices.length, 4);
  assert.ok(r.response.choices.every((c) => c.message.content === '<answer>5</answer>'));
  assert.deepEqual(up.log.slot, { index: 3, of: 4 });
  const swapped = up.verify('e', 0, { messages: [ok.messages[1], ok.messages[0]] });
  assert.ok(!swapped.ok && /not in the recorded prompt_text/.test(swapped.message));
});
