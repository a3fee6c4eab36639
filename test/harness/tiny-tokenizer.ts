// The fixture model's real tokenizer (tokenizer.json, tokenizer_config.json, chat_template.jinja
// of ../shared/fixtures/tiny-toolcall, a Qwen2 byte-level BPE with the ChatML specials): the token
// tests run on it, and skip, saying why, without ../shared.
import * as fs from 'fs';
import * as path from 'path';
import { loadTokenizer } from '../../src/tokens/tokenizer-files';
import type { RunTokenizer } from '../../src/tokens/tokenizer';
import { sharedDir } from './paths';

export const tinyTokenizerDir = path.join(sharedDir, 'fixtures', 'tiny-toolcall');
/** `skip` for node:test: a reason when the fixture tokenizer is not there. */
export const skipNoTokenizer: string | false =
  !fs.existsSync(path.join(tinyTokenizerDir, 'tokenizer.json')) && 'needs ../shared/fixtures/tiny-toolcall/tokenizer.json';

let cached: RunTokenizer | undefined;
export function tinyTokenizer(): RunTokenizer {
  return (cached ??= loadTokenizer(tinyTokenizerDir, 'tiny-toolcall'));
}

/** The demo's tools (OpenAI format), as the fixture model was trained on them. */
export const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get the current weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'add',
      description: 'Add two integers.',
      parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
    },
  },
];

/** user → assistant tool call → tool result → assistant answer. */
export const WEATHER_EPISODE = [
  { role: 'user', content: 'What is the weather in Paris?' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
  { role: 'tool', tool_call_id: 'c1', content: '{"city": "Paris", "temp_c": 21, "condition": "sunny"}' },
  { role: 'assistant', content: 'It is sunny and 21 degrees C in Paris.' },
];
