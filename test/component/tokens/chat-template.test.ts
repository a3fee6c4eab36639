// Our messages → (tokens, action mask, prompt_length) against Trinity-RFT 0.5.2's own
// tokenize_and_mask_messages_default, run in .cache/trinity-venv over a transformers tokenizer of
// the fixture model's folder: the same ids, the same mask, the same prompt_length, for a
// tool-calling episode with tools, a multi-turn conversation without, a conversation that opens
// with the assistant, and one with no assistant turn.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { type ChatMessage, tokenizeAndMask } from '../../../src/tokens/chat-template';
import { repoRoot, sharedDir } from '../../harness/paths';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir, TOOLS, WEATHER_EPISODE } from '../../harness/tiny-tokenizer';
import { trinityPython, trinityServeSkipReason } from '../../harness/trinity-serve';

const CASES: { messages: ChatMessage[]; tools?: unknown[] }[] = [
  { messages: WEATHER_EPISODE, tools: TOOLS },
  {
    messages: [
      { role: 'system', content: 'You add numbers.' },
      { role: 'user', content: 'What is 3 plus 4?' },
      { role: 'assistant', content: 'The answer is 7.' },
      { role: 'user', content: 'And 10 plus 5?' },
      { role: 'assistant', content: 'The answer is 15.\n\n中文 é' },
    ],
  },
  {
    messages: [
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hi.' },
    ],
  },
  { messages: [{ role: 'user', content: 'only a question' }] },
];

test(
  "our mask equals Trinity's tokenize_and_mask_messages_default, id for id and bit for bit",
  { skip: skipNoTokenizer || trinityServeSkipReason(), timeout: 600_000 },
  () => {
    const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
    const r = spawnSync(trinityPython, [path.join(repoRoot, 'test', 'fixtures', 'tokens', 'trinity_tokens.py'), 'mask', tinyTokenizerDir], {
      input: JSON.stringify(CASES),
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
    });
    assert.equal(r.status, 0, r.stderr);
    const theirs = JSON.parse(r.stdout.trim().split('\n').pop() ?? '[]') as { ids: number[]; mask: number[]; prompt_length: number }[];
    assert.equal(theirs.length, CASES.length);
    CASES.forEach((c, k) => {
      const ours = tokenizeAndMask(tinyTokenizer(), c.messages, c.tools);
      assert.deepEqual([...ours.ids], theirs[k].ids, `case ${k}: ids`);
      assert.deepEqual([...ours.mask], theirs[k].mask, `case ${k}: mask`);
      assert.equal(ours.promptLength, theirs[k].prompt_length, `case ${k}: prompt_length`);
    });
    assert.ok(theirs[0].mask.includes(1) && theirs[3].mask.every((m) => m === 0), 'the cases exercise trained and untrained');
  },
);
