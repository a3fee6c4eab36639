// Secrets masked in a report bound for a public issue: a real Trinity config (Trinity-RFT's gsm8k example
// from the ../shared corpus) with an API key, a token and env_vars put in, free
// text with key-shaped strings, and YAML too broken to parse.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { isSecretKey, MASK, maskConfigSecrets, maskSecretsInText } from '../../../../src/ray/diagnostics/mask-secrets';
import { hasShared, sharedDir } from '../../../harness/paths';

const KEY = 'sk-live-1234567890abcdefABCDEF';
const HF = 'hf_abcdefghijklmnopqrstuvwx';

const sample = path.join(sharedDir, 'corpus', 'trinity-rft', 'examples', 'grpo_gsm8k', 'gsm8k.yaml');
const noSample = !hasShared || !fs.existsSync(sample) ? '../shared (the Trinity-RFT corpus) is missing' : false;

test('a Trinity config: api_key, tokens and env_vars values masked, the rest and the comments untouched', { skip: noSample }, () => {
  const original = fs.readFileSync(sample, 'utf8');
  const text = `${original}\n# added for the test\nmodel_api:\n  api_key: ${KEY}   # the real key\n  base_url: http://127.0.0.1:8000/v1\n  max_tokens: 2048\nray_env:\n  env_vars:\n    HF_TOKEN: "${HF}"\n    OPENAI_API_KEY: \${OPENAI_API_KEY}\n    WANDB_MODE: offline\n`;
  const { text: masked, secrets } = maskConfigSecrets(text);
  assert.ok(!masked.includes(KEY) && !masked.includes(HF), masked);
  assert.deepEqual(secrets.sort(), [HF, KEY].sort());
  const back = parse(masked) as Record<string, Record<string, unknown>>;
  assert.equal(back.model_api.api_key, MASK);
  assert.equal(back.model_api.max_tokens, 2048, 'a token count is no secret');
  assert.equal((back.ray_env.env_vars as Record<string, string>).OPENAI_API_KEY, '${OPENAI_API_KEY}', 'an env reference is no secret');
  assert.equal((back.ray_env.env_vars as Record<string, string>).WANDB_MODE, 'offline');
  assert.match(masked, /# the real key/, 'comments kept');
  const orig = parse(original) as Record<string, unknown>;
  for (const k of Object.keys(orig)) assert.deepEqual(back[k], orig[k], `${k} unchanged`);
});

test('a config with nothing secret comes back byte for byte', () => {
  const text = 'project: p  # c\nname: n\nmodel:\n  max_response_tokens: 512\n';
  assert.deepEqual(maskConfigSecrets(text), { text, secrets: [] });
});

test('YAML that does not parse is masked line by line', () => {
  const text = `project: p\nmodel:\n  api_key: "${KEY}"\n  bad: [unclosed\n  token = abcdef123456\n`;
  const r = maskConfigSecrets(text);
  assert.ok(!r.text.includes(KEY) && !r.text.includes('abcdef123456'), r.text);
  assert.match(r.text, /api_key: "\*\*\*"/);
  assert.match(r.text, /bad: \[unclosed/);
});

test('free text: the config secrets wherever they appear, and key-shaped strings', () => {
  const log = [
    `INFO using key ${KEY} for the judge`,
    `Authorization: Bearer abcdefghijklmnop`,
    `token=${HF}`,
    `ghp_${'a'.repeat(36)} and AKIA${'B'.repeat(16)}`,
    'max_tokens=204800 step=3',
  ].join('\n');
  const out = maskSecretsInText(log, ['ste', KEY]);
  assert.ok(!out.includes(KEY) && !out.includes(HF) && !out.includes('abcdefghijklmnop') && !out.includes('a'.repeat(36)) && !out.includes('B'.repeat(16)), out);
  assert.match(out, /max_tokens=204800 step=3/, 'numbers are no secret');
  assert.match(out, /for the judge/);
  assert.match(out, /step=3/, 'values too short to be secrets are not masked everywhere');
});

test('which keys are secret', () => {
  for (const k of ['api_key', 'OPENAI_API_KEY', 'apiKey', 'hf_token', 'password', 'secret_access_key', 'Authorization']) assert.ok(isSecretKey(k), k);
  for (const k of ['max_tokens', 'max_response_tokens', 'tokenizer_path', 'num_tokens', 'token_ids', 'ppo_max_token_len_per_gpu', 'name']) assert.ok(!isSecretKey(k), k);
});
