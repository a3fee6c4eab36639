// `${...}` interpolations: OmegaConf's grammar, env vars (process env + agentrl.config.env),
// absolute and relative references over the schema's defaults, and type checks of results.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseInterpolations } from '../../../../src/config/interp/grammar';
import { UNKNOWN } from '../../../../src/config/interp/resolve';
import { expectClean, expectFinding, expectNo, lineOf, run, trinity } from '../helpers';

test('grammar: resolvers, nested interpolations, relative keys, text around, escapes', () => {
  const p = parseInterpolations('${oc.env:A,${oc.env:B,x}}_${..up.key}\\${not}');
  assert.equal(p.error, undefined);
  const kinds = p.parts.map((x) => x.kind);
  assert.deepEqual(kinds, ['resolver', 'text', 'ref', 'text']);
  const r = p.parts[0] as { name: string; args: unknown[] };
  assert.equal(r.name, 'oc.env');
  assert.equal(r.args.length, 2);
  assert.equal((p.parts[2] as { up: number }).up, 2);
  assert.equal((p.parts[3] as { text: string }).text, '${not}');
  assert.ok(parseInterpolations('${oc.env:A').error, 'unterminated');
});

test('oc.env with a default, from the process env, and from agentrl.config.env', () => {
  const text = trinity({ model: { model_path: '${oc.env:AGENTRL_TEST_MODEL,Qwen/Qwen2.5-0.5B-Instruct}' } });
  let a = run(text);
  assert.equal(a.docs[0].resolution.values.get('model.model_path'), 'Qwen/Qwen2.5-0.5B-Instruct');
  process.env.AGENTRL_TEST_MODEL = 'from/process';
  a = run(text);
  assert.equal(a.docs[0].resolution.values.get('model.model_path'), 'from/process');
  a = run(text, { env: { AGENTRL_TEST_MODEL: 'from/setting' } });
  assert.equal(a.docs[0].resolution.values.get('model.model_path'), 'from/setting');
  delete process.env.AGENTRL_TEST_MODEL;
  assert.equal((a.resolved as { model: { model_path: string } }).model.model_path, 'from/setting', 'resolved document');
});

test('an unset env var without default is information, and rules skip the unknown value', () => {
  const text = trinity({ model: { max_model_len: '${oc.env:AGENTRL_TEST_UNSET_LEN}', max_prompt_tokens: 4096 } });
  const a = run(text);
  expectFinding(a, 'interp.env-unset', { severity: 'info', line: lineOf(text, 'AGENTRL_TEST_UNSET_LEN') });
  assert.equal(a.docs[0].resolution.values.get('model.max_model_len'), UNKNOWN);
  expectNo(a, 'trinity.length.exceeds-max-model-len');
});

test('resolved values are type-checked against the field', () => {
  const text = trinity({ buffer: { batch_size: '${oc.env:AGENTRL_TEST_BS,eight}' } });
  expectFinding(run(text), 'interp.type', { severity: 'error', line: lineOf(text, 'AGENTRL_TEST_BS') });
  const ok = trinity({ buffer: { batch_size: '${oc.env:AGENTRL_TEST_BS,8}' } });
  const a = run(ok);
  expectClean(a);
  assert.equal(a.docs[0].resolution.values.get('buffer.batch_size'), 8, 'converted to int');
});

test('resolved values feed the rules', () => {
  const text = trinity({ model: { max_response_tokens: '${oc.env:AGENTRL_TEST_RESP,900}' } });
  expectFinding(run(text), 'trinity.length.exceeds-max-model-len', { severity: 'error' });
});

test('absolute references read the config, and the schema default when unset', () => {
  let text = trinity({ model: { max_model_len: '${model.max_prompt_tokens}' } });
  let a = run(text);
  assert.equal(a.docs[0].resolution.values.get('model.max_model_len'), 512);
  expectFinding(a, 'trinity.length.exceeds-max-model-len');
  text = trinity({ explorer: { eval_interval: '${trainer.save_interval}' }, trainer: { save_interval: undefined } });
  a = run(text);
  assert.equal(a.docs[0].resolution.values.get('explorer.eval_interval'), 0, 'save_interval defaults to 0');
});

test('relative references', () => {
  const text = trinity({ model: { max_model_len: '${.max_prompt_tokens}' } });
  assert.equal(run(text).docs[0].resolution.values.get('model.max_model_len'), 512);
  const up = trinity({ buffer: { explorer_input: { taskset: { name: '${..default_workflow_type}' } } } });
  assert.equal(run(up).docs[0].resolution.values.get('buffer.explorer_input.taskset.name'), 'math_workflow');
});

test('missing keys, cycles and unknown resolvers', () => {
  let text = trinity({ project: '${model.no_such_key}' });
  expectFinding(run(text), 'interp.missing-key', { severity: 'error', line: lineOf(text, 'no_such_key') });
  text = trinity({ project: '${name}', name: '${project}' });
  expectFinding(run(text), 'interp.cycle', { severity: 'error' });
  text = trinity({ project: '${now:%Y}' });
  expectFinding(run(text), 'interp.unknown-resolver', { severity: 'warning', line: lineOf(text, 'now:') });
});

test('string interpolation builds a string', () => {
  const text = trinity({ name: 'run-${algorithm.algorithm_type}-${algorithm.repeat_times}' });
  assert.equal(run(text).docs[0].resolution.values.get('name'), 'run-grpo-4');
});
