// Retokenization drift on the fixture tokenizer: engine calls that agree with the template report
// nothing; a tool result the engine saw serialized differently is a difference on that turn's
// prompt, after the tool result, and only there; a completion the engine split differently (a
// sampled non-canonical split) is a difference in that turn's completion.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ChatMessage, renderChat } from '../../../src/tokens/chat-template';
import { type EngineCall, findDrift } from '../../../src/tokens/drift';
import { describeDrift } from '../../../src/tokens/strings';
import { skipNoTokenizer, tinyTokenizer, TOOLS, WEATHER_EPISODE } from '../../harness/tiny-tokenizer';

const english = { t: (m: string, ...a: Array<string | number | boolean>) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

/** What an engine serving this template reports for each assistant turn of `msgs`. */
function engineCalls(msgs: readonly ChatMessage[], withStop = false): EngineCall[] {
  const tok = tinyTokenizer();
  const calls: EngineCall[] = [];
  msgs.forEach((m, k) => {
    if (m.role !== 'assistant') return;
    const prompt = renderChat(tok, msgs.slice(0, k), { tools: TOOLS, addGenerationPrompt: true });
    const full = renderChat(tok, msgs.slice(0, k + 1), { tools: TOOLS });
    const generated = full.slice(prompt.length).replace(/<\|im_end\|>\n$/, withStop ? '<|im_end|>' : '');
    calls.push({ promptIds: tok.encode(prompt), completionIds: tok.encode(generated) });
  });
  return calls;
}

test('an engine that agrees with the template: no drift, with or without the stop token in its completion', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  assert.deepEqual(findDrift(tok, WEATHER_EPISODE, engineCalls(WEATHER_EPISODE), TOOLS).findings, []);
  assert.deepEqual(findDrift(tok, WEATHER_EPISODE, engineCalls(WEATHER_EPISODE, true), TOOLS).findings, []);
  assert.equal(findDrift(tok, WEATHER_EPISODE, engineCalls(WEATHER_EPISODE), TOOLS).turns, 2);
});

test("the engine saw the tool result with other spacing: turn 2's prompt differs after the tool result, turn 1 is clean", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const engineSaw = WEATHER_EPISODE.map((m) => (m.role === 'tool' ? { ...m, content: '{"city":"Paris","temp_c":21,"condition":"sunny"}' } : m));
  const calls = engineCalls(engineSaw);
  const r = findDrift(tok, WEATHER_EPISODE, calls, TOOLS);
  assert.equal(r.findings.length, 1, JSON.stringify(r.findings));
  const f = r.findings[0];
  assert.equal(f.turn, 2);
  assert.equal(f.part, 'prompt');
  assert.equal(f.message, 3);
  assert.equal(f.afterRole, 'tool');
  assert.deepEqual([f.engineText, f.templateText], ['"Paris","temp_c":21,"condition":"', ' "Paris", "temp_c": 21, "condition": "']);
  assert.equal(tok.decode(Array.from(calls[1].promptIds).slice(0, f.at)).endsWith('<tool_response>\n{"city":'), true);
  assert.match(describeDrift(f, english), /^Turn 2: \d+ tokens differ after the tool result: engine `.*` vs template `.*`$/);
});

test("the engine generated a non-canonical split of the answer: a difference in turn 2's completion, naming both sides", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const calls = engineCalls(WEATHER_EPISODE);
  // " sunny" as one token in the template; the engine sampled " sun" + "ny" (both in the vocabulary).
  const sunny = tok.encode(' sunny');
  assert.equal(sunny.length, 1);
  const split = [...tok.encode(' sun'), ...tok.encode('ny')];
  assert.equal(tok.decode(split), ' sunny');
  assert.ok(split.length >= 2);
  const c = Array.from(calls[1].completionIds);
  const at = c.indexOf(sunny[0]);
  calls[1] = { promptIds: calls[1].promptIds, completionIds: [...c.slice(0, at), ...split, ...c.slice(at + 1)] };
  const r = findDrift(tok, WEATHER_EPISODE, calls, TOOLS);
  assert.equal(r.findings.length, 1);
  assert.deepEqual(
    { turn: r.findings[0].turn, part: r.findings[0].part, at: r.findings[0].at, count: r.findings[0].count },
    { turn: 2, part: 'completion', at, count: split.length },
  );
  assert.deepEqual(r.findings[0].engineIds, split);
  assert.deepEqual(r.findings[0].templateIds, [sunny[0]]);
  assert.equal(
    describeDrift(r.findings[0], english),
    `Turn 2: \` sunny\` in the completion is ${split.length} engine tokens where re-tokenizing gives 1 (same text, another split)`,
  );
});

test(
  "tool-call arguments the engine rendered as an object but the messages keep as a JSON string: turn 1's completion differs",
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const calls = engineCalls(WEATHER_EPISODE);
    const asString = WEATHER_EPISODE.map((m) =>
      m.tool_calls
        ? { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: JSON.stringify(c.function.arguments) } })) }
        : m,
    );
    const r = findDrift(tok, asString, calls, TOOLS);
    assert.deepEqual(
      r.findings.map((f) => `${f.turn}:${f.part}`),
      ['1:completion', '2:prompt'],
    );
    assert.ok(r.findings[0].templateText.includes('"{\\"city\\"'), r.findings[0].templateText);
  },
);
