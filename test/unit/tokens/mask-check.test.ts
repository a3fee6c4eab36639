// The mask check of a hand-built experience: trained tokens inside a tool result (or a user turn,
// the system prompt) are a warning with their span and text; Trinity's own mask gives none.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { tokenizeAndMask } from '../../../src/tokens/chat-template';
import { checkMask } from '../../../src/tokens/mask-check';
import { describeMaskWarning } from '../../../src/tokens/strings';
import { skipNoTokenizer, tinyTokenizer, TOOLS, WEATHER_EPISODE } from '../../harness/tiny-tokenizer';

const english = { t: (m: string, ...a: Array<string | number | boolean>) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };

test("Trinity's own mask: no warning", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const t = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
  assert.deepEqual(checkMask(tok, t.ids, t.mask, WEATHER_EPISODE, TOOLS), { warnings: [], divergesAt: undefined });
});

test('everything after the prompt trained (the usual hand-built mistake): one warning, on the tool result, with its span', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const t = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
  const all = new Uint8Array(t.ids.length).fill(1, t.promptLength);
  const r = checkMask(tok, t.ids, all, WEATHER_EPISODE, TOOLS);
  assert.equal(r.warnings.length, 1, JSON.stringify(r.warnings));
  const w = r.warnings[0];
  assert.deepEqual([w.message, w.role, w.start, w.end], [2, 'tool', t.spans[2].start, t.spans[2].end]);
  assert.equal(w.text, '<|im_start|>user\n<tool_response>\n{"city": "Paris", "temp_c": 21, "condition": "sunny"}\n</tool_response><|im_end|>\n');
  assert.equal(
    describeMaskWarning(w, english),
    `${w.end - w.start} tokens of tool output (message 2, tokens ${w.start}–${w.end}) are trained: \`<|im_start|>user↵<tool_response>↵{"city…\``,
  );
});

test('a few trained tokens inside the tool JSON: the warning covers just them', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const t = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
  const mask = Uint8Array.from(t.mask);
  const s = t.spans[2].start + 10;
  mask.fill(1, s, s + 3);
  const r = checkMask(tok, t.ids, mask, WEATHER_EPISODE, TOOLS);
  assert.deepEqual(
    r.warnings.map((w) => [w.role, w.start, w.end]),
    [['tool', s, s + 3]],
  );
});

test('tokens that stop following the template: the check stops there and says where', { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const t = tokenizeAndMask(tok, WEATHER_EPISODE, TOOLS);
  const ids = Int32Array.from(t.ids);
  const cut = t.spans[2].start + 4;
  ids[cut] = tok.encode('X')[0];
  const all = new Uint8Array(ids.length).fill(1, t.promptLength);
  const r = checkMask(tok, ids, all, WEATHER_EPISODE, TOOLS);
  assert.equal(r.divergesAt, cut);
  assert.deepEqual(
    r.warnings.map((w) => [w.start, w.end]),
    [[t.spans[2].start, cut]],
  );
});

test("a trained default system prompt (the template's own tokens before the first message): one warning that says so", { skip: skipNoTokenizer }, () => {
  const tok = tinyTokenizer();
  const messages = [
    { role: 'user', content: 'What is 40 + 2?' },
    { role: 'assistant', content: 'The answer is 42.' },
  ];
  const t = tokenizeAndMask(tok, messages);
  const first = t.spans[0].start;
  assert.ok(first > 0, 'this template adds a system prompt of its own');
  const mask = Uint8Array.from(t.mask).fill(1, 0, first);
  const r = checkMask(tok, t.ids, mask, messages);
  assert.deepEqual(
    r.warnings.map((w) => [w.message, w.role, w.start, w.end]),
    [[-1, 'template', 0, first]],
  );
  assert.match(r.warnings[0].text, /^<\|im_start\|>system\n/);
  assert.match(
    describeMaskWarning(r.warnings[0], english),
    new RegExp(`^${first} tokens the chat template puts before the first message \\(tokens 0–${first}\\) are trained: \``),
  );
});
