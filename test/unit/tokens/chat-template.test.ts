// A conversation through the fixture model's chat template and tokenizer, and the action mask
// Trinity-RFT 0.5.2 derives (tokenize_and_mask_messages_default): each assistant turn's content and
// the template's end of turn trained; system, user, tool results and turn headers not. (The same
// conversation through Trinity's own function: test/component/tokens/chat-template.test.ts.)
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ChatMessage, ChatTemplateError, messageSpans, renderChat, tokenizeAndMask } from '../../../src/tokens/chat-template';
import { createTokenizer } from '../../../src/tokens/tokenizer';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir, TOOLS, WEATHER_EPISODE } from '../../harness/tiny-tokenizer';
import { rng } from '../../harness/rng';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The trained runs of a mask as text. */
function trainedRuns(ids: Int32Array, mask: Uint8Array): string[] {
  const tok = tinyTokenizer();
  const runs: string[] = [];
  let i = 0;
  while (i < ids.length) {
    if (!mask[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < ids.length && mask[j]) j++;
    runs.push(tok.decode(ids.subarray(i, j)));
    i = j;
  }
  return runs;
}

test('the template renders the tools and a tool-calling conversation the way the model was trained on', { skip: skipNoTokenizer }, () => {
  const text = renderChat(tinyTokenizer(), WEATHER_EPISODE, { tools: TOOLS });
  assert.ok(text.startsWith('<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n'));
  assert.ok(
    text.includes(
      '\n{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}\n',
    ),
  );
  assert.ok(
    text.includes(
      '<|im_start|>assistant\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n{"city": "Paris", "temp_c": 21, "condition": "sunny"}\n</tool_response><|im_end|>\n',
    ),
  );
  assert.ok(text.endsWith('<|im_start|>assistant\nIt is sunny and 21 degrees C in Paris.<|im_end|>\n'));
  assert.ok(
    renderChat(tinyTokenizer(), WEATHER_EPISODE.slice(0, 1), { addGenerationPrompt: true }).endsWith(
      'What is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n',
    ),
  );
});

test(
  "Trinity's mask: the assistant turns (content, <|im_end|> and its newline) trained; system, user, tool result and headers not",
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const r = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
    assert.deepEqual(trainedRuns(r.ids, r.mask), [
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call><|im_end|>\n',
      'It is sunny and 21 degrees C in Paris.<|im_end|>\n',
    ]);
    assert.equal(r.promptLength, r.mask.indexOf(1));
    assert.equal(tok.decode(r.ids.subarray(0, r.promptLength)), renderChat(tok, WEATHER_EPISODE.slice(0, 1), { tools: TOOLS, addGenerationPrompt: true }));
    assert.deepEqual(
      r.turns.map((t) => t.message),
      [1, 3],
    );
    assert.deepEqual(
      r.spans.map((s) => s.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );
    assert.equal(r.spans[3].end, r.ids.length);
    assert.ok(tok.decode(r.ids.subarray(r.spans[2].start, r.spans[2].end)).includes('<tool_response>'));
    assert.deepEqual(messageSpans(tok, WEATHER_EPISODE, TOOLS), r.spans);
  },
);

test('no assistant message: nothing trained, prompt_length 0 (Trinity returns the same)', { skip: skipNoTokenizer }, () => {
  const r = tokenizeAndMask(tinyTokenizer(), [{ role: 'user', content: 'hi' }]);
  assert.equal(r.mask.indexOf(1), -1);
  assert.equal(r.promptLength, 0);
  assert.ok(r.ids.length > 0);
});

test('a conversation that opens with the assistant: its first turn is trained from the first token', { skip: skipNoTokenizer }, () => {
  const msgs: ChatMessage[] = [
    { role: 'assistant', content: 'Hello!' },
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'Hi.' },
  ];
  const r = tokenizeAndMask(tinyTokenizer(), msgs);
  assert.equal(r.mask[0], 1);
  assert.equal(r.promptLength, 0);
  assert.equal(trainedRuns(r.ids, r.mask).length, 2);
  assert.ok(trainedRuns(r.ids, r.mask)[0].startsWith('<|im_start|>system'), 'Trinity trains the whole first render when the assistant opens');
});

test('a thinking template counts only the turns after the last user message', { skip: skipNoTokenizer }, () => {
  const base = tinyTokenizer();
  const json: unknown = JSON.parse(fs.readFileSync(path.join(tinyTokenizerDir, 'tokenizer.json'), 'utf8'));
  const tpl = `{#- <think> -#}\n${base.chatTemplate ?? ''}`;
  const tok = createTokenizer(json, {}, { name: 'think', chatTemplate: tpl });
  const msgs: ChatMessage[] = [
    { role: 'user', content: 'a' },
    { role: 'assistant', content: 'b' },
    { role: 'user', content: 'c' },
    { role: 'assistant', content: 'd' },
  ];
  assert.deepEqual(trainedRuns(tokenizeAndMask(tok, msgs).ids, tokenizeAndMask(tok, msgs).mask), ['d<|im_end|>\n']);
  assert.deepEqual(trainedRuns(tokenizeAndMask(base, msgs).ids, tokenizeAndMask(base, msgs).mask), ['b<|im_end|>\n', 'd<|im_end|>\n']);
});

test('no template, a {% generation %} template, a template that fails: a ChatTemplateError that says which', { skip: skipNoTokenizer }, () => {
  const json: unknown = JSON.parse(fs.readFileSync(path.join(tinyTokenizerDir, 'tokenizer.json'), 'utf8'));
  const none = createTokenizer(json, {}, { name: 'bare' });
  assert.throws(
    () => renderChat(none, WEATHER_EPISODE),
    (e: unknown) => e instanceof ChatTemplateError && e.message === 'bare has no chat template',
  );
  const gen = createTokenizer(json, {}, { name: 'gen', chatTemplate: '{% for m in messages %}{% generation %}{{ m.content }}{% endgeneration %}{% endfor %}' });
  assert.throws(() => tokenizeAndMask(gen, WEATHER_EPISODE), /marks assistant turns with \{% generation %\}/);
  const bad = createTokenizer(json, {}, { name: 'bad', chatTemplate: '{{ raise_exception("only user turns") }}' });
  assert.throws(
    () => renderChat(bad, WEATHER_EPISODE),
    (e: unknown) => e instanceof ChatTemplateError && /bad's chat template failed: .*only user turns/.test(e.message),
  );
  const broken = createTokenizer(json, {}, { name: 'broken', chatTemplate: '{% for %}' });
  assert.throws(() => renderChat(broken, WEATHER_EPISODE), /broken's chat template does not parse/);
  assert.throws(() => tokenizeAndMask(tinyTokenizer(), []), /no messages/);
});

test(
  'fuzz: 120 seeded hostile templates (nested loops, doubling, deep recursion, huge ranges) end within budget as a ChatTemplateError, never a crash',
  { skip: skipNoTokenizer },
  () => {
    const json: unknown = JSON.parse(fs.readFileSync(path.join(tinyTokenizerDir, 'tokenizer.json'), 'utf8'));
    const rand = rng(4040);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
    const n = () => pick(['10', '1000', '100000', '10 ** 9', '-5', '3']);
    const body = (depth: number): string => {
      if (depth <= 0) return pick(['{{ messages[0].content }}', 'x', '{{ loop.index }}', '{{ messages | tojson }}']);
      return pick([
        () => `{% for i in range(${n()}) %}${body(depth - 1)}{% endfor %}`,
        () => `{% set ns = namespace(s='ab') %}{% for i in range(${n()}) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}${body(depth - 1)}`,
        () => `{% macro f(k) %}{{ f(k + 1) }}{% endmacro %}{{ f(0) }}`,
        () => `{% set xs = [1, 2] %}{% for i in range(${n()}) %}{% set xs = xs + xs %}{% endfor %}${body(depth - 1)}`,
        () => `${body(depth - 1)}${body(depth - 1)}`,
      ])();
    };
    const budget = { steps: 10_000, chars: 1 << 20, items: 100_000 };
    let refused = 0;
    for (let i = 0; i < 120; i++) {
      const template = body(1 + Math.floor(rand() * 3));
      const tok = createTokenizer(json, {}, { name: `fuzz${i}`, chatTemplate: template });
      try {
        const text = renderChat(tok, WEATHER_EPISODE, { budget });
        assert.ok(text.length <= budget.chars * 2, `${template}: ${text.length} characters`);
      } catch (e) {
        assert.ok(e instanceof ChatTemplateError, `${template}: ${String(e)}`);
        refused++;
      }
    }
    assert.ok(refused > 12, `only ${refused} of 120 went over budget: the fuzz is too tame`);
  },
);

test('the Qwen tool template renders a 600-message conversation within the default budget', { skip: skipNoTokenizer }, () => {
  const many = [WEATHER_EPISODE[0], ...Array.from({ length: 200 }, () => WEATHER_EPISODE.slice(1)).flat()];
  assert.ok(renderChat(tinyTokenizer(), many, { tools: TOOLS }).length > 10_000);
});

test(
  "each message's span: the first starts after what the template puts before it (a default system prompt), or at 0 after a system message",
  { skip: skipNoTokenizer },
  () => {
    const tok = tinyTokenizer();
    const user: ChatMessage = { role: 'user', content: 'What is 40 + 2?' };
    const answer: ChatMessage = { role: 'assistant', content: 'The answer is 42.' };
    const ids = tok.encode(renderChat(tok, [user, answer]));
    const spans = messageSpans(tok, [user, answer]);
    assert.deepEqual(
      spans.map((s) => [s.index, s.role]),
      [
        [0, 'user'],
        [1, 'assistant'],
      ],
    );
    assert.ok(spans[0].start > 0, 'this template adds a system prompt of its own');
    assert.match(tok.decode(ids.subarray(0, spans[0].start)), /^<\|im_start\|>system\n[^<]+<\|im_end\|>\n$/);
    assert.equal(tok.decode(ids.subarray(spans[0].start, spans[0].end)), '<|im_start|>user\nWhat is 40 + 2?<|im_end|>\n');
    assert.equal(spans[1].end, ids.length);
    // With a system message of the conversation's own, there is nothing before the first message.
    const own = messageSpans(tok, [{ role: 'system', content: 'Be brief.' }, user, answer]);
    assert.equal(own[0].start, 0);
    assert.equal(tok.decode(tok.encode(renderChat(tok, [{ role: 'system', content: 'Be brief.' }])).subarray(0)), '<|im_start|>system\nBe brief.<|im_end|>\n');
  },
);
