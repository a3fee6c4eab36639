// The run's tokenizer from its job dir: Trinity's config copy (config.json, YAML as OmegaConf
// writes it) names model.model_path; a folder there gives the fixture tokenizer, anything else a
// reason the view shows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { TrainingRunTokenizers, modelPathOf } from '../../../../src/metrics/tokens/run-tokenizer';
import { skipNoTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';

function jobDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-run-tok-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

test("model.model_path from the job dir's config copy, or why there is none", () => {
  const yaml = jobDir({ 'config.json': 'project: p\nmodel:\n  model_path: /models/Qwen2.5-0.5B\n  max_response_tokens: 32\n' });
  assert.deepEqual(modelPathOf(yaml), { modelPath: '/models/Qwen2.5-0.5B' });
  const hub = jobDir({ 'config.yaml': 'model:\n  model_path: Qwen/Qwen2.5-0.5B-Instruct\n' });
  assert.deepEqual(modelPathOf(hub), { modelPath: 'Qwen/Qwen2.5-0.5B-Instruct' });
  const none = jobDir({});
  assert.match((modelPathOf(none) as { reason: string }).reason, /no run config/);
  const noModel = jobDir({ 'config.json': 'project: p\n' });
  assert.match((modelPathOf(noModel) as { reason: string }).reason, /names no model\.model_path/);
  const bad = jobDir({ 'config.json': 'model: [\n' });
  assert.match((modelPathOf(bad) as { reason: string }).reason, /not valid YAML/);
  for (const d of [yaml, hub, none, noModel, bad]) fs.rmSync(d, { recursive: true, force: true });
});

test('RunTokenizers: the fixture tokenizer for a job dir naming its folder; a reason for a relay URL or a missing model', { skip: skipNoTokenizer }, () => {
  const dir = jobDir({ 'config.json': `model:\n  model_path: ${JSON.stringify(tinyTokenizerDir)}\n` });
  const tokenizers = new TrainingRunTokenizers({ HF_HUB_CACHE: path.join(dir, 'no-cache') });
  const t = tokenizers.get(dir);
  assert.ok('tokenizer' in t, JSON.stringify(t));
  assert.equal(t.tokenizer.decode(t.tokenizer.encode('The answer is 42.')), 'The answer is 42.');
  assert.match((tokenizers.get(undefined) as { reason: string }).reason, /relay URL/);
  const missing = jobDir({ 'config.json': 'model:\n  model_path: /no/such/model\n' });
  assert.match((tokenizers.get(missing) as { reason: string }).reason, /not a folder on this machine/);
  for (const d of [dir, missing]) fs.rmSync(d, { recursive: true, force: true });
});
