// The remaining findings: informational length and trainer notes, DPO's forced repeat,
// malformed interpolations, YAML alias/merge/key problems, and a rule that throws.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRINITY_RULES } from '../../../../src/config/engine/engine';
import { en, expectFinding, lineOf, run, trinity } from '../helpers';

test('lengths: min_response_tokens ≥ max_response_tokens, and a small per-GPU token budget (infos)', () => {
  let text = trinity({ model: { min_response_tokens: 600 } });
  expectFinding(run(text), 'trinity.length.min-response', { severity: 'info', line: lineOf(text, 'min_response_tokens') });
  text = trinity({ trainer: { max_token_len_per_gpu: 512 } });
  expectFinding(run(text), 'trinity.length.token-len-per-gpu', { severity: 'info', line: lineOf(text, 'max_token_len_per_gpu') });
});

test('dpo forces repeat_times 2; sp < 1 becomes 1 (infos)', () => {
  let text = trinity({
    mode: 'train',
    algorithm: { algorithm_type: 'dpo', repeat_times: 4 },
    buffer: { train_batch_size: 32, trainer_input: { experience_buffer: { storage_type: 'file', path: 'data/dpo.jsonl' } } },
  });
  expectFinding(run(text), 'trinity.algorithm.dpo-repeat', { severity: 'info', line: lineOf(text, 'repeat_times: 4') });
  text = trinity({ trainer: { ulysses_sequence_parallel_size: 0 } });
  expectFinding(run(text), 'trinity.trainer.sp-min', { severity: 'info', line: lineOf(text, 'ulysses_sequence_parallel_size: 0') });
});

test('a malformed interpolation is an error at its scalar', () => {
  const text = trinity({ project: '${oc.env:UNCLOSED' });
  expectFinding(run(text), 'interp.syntax', { severity: 'error', line: lineOf(text, 'UNCLOSED') });
});

test('YAML: unknown anchors, bad merges and complex keys', () => {
  let text = trinity().replace('mode: both', 'mode: *nowhere');
  assert.ok(
    run(text).findings.some((f) => f.code === 'yaml.unknown-alias' || f.code === 'yaml.syntax'),
    'an unknown alias is reported',
  );
  text = trinity().replace('mode: both\n', 'mode: both\nx: &scalar 1\n').replace('  batch_size: 8\n', '  <<: *scalar\n  batch_size: 8\n');
  expectFinding(run(text), 'yaml.bad-merge', { severity: 'error', line: lineOf(text, '<<: *scalar') });
  text = trinity().replace('mode: both\n', 'mode: both\n? [a, b]\n: 1\n');
  expectFinding(run(text), 'yaml.complex-key', { severity: 'error' });
});

test('a rule that throws is reported as an internal problem; the analysis goes on', () => {
  TRINITY_RULES.push({
    id: 'test.throws',
    run: () => {
      throw new Error('boom');
    },
  });
  try {
    const a = run(trinity({ mode: 'Both' }));
    const f = expectFinding(a, 'internal.rule-failed', { severity: 'info' });
    assert.match(en(f.message), /test\.throws failed: boom/);
    expectFinding(a, 'trinity.mode.invalid');
  } finally {
    TRINITY_RULES.pop();
  }
});
