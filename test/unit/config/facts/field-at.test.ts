// Where the stored versions of a release disagree, we never reject what one of them accepts:
// Trinity-RFT 0.6's facts are the union of both stored config.py lines. A key one line removed
// (`explorer.db_url`, gone in pan-x-c@0ccf77cf) is a deprecation warning, a key only one line
// has (`cod`) information, a default the lines disagree on is shown with both commits in hover,
// and a field that stopped (or started) taking null is checked against the release in force.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { hover } from '../../../../src/config/lsp/features/hover';
import { ENGLISH } from '../../../../src/config/core/l10n-text';
import { defaultAt, nullableAt, presentAt } from '../../../../src/config/facts/field-at';
import { schemaAt } from '../../../../src/config/schema/schemas';
import { en, expectClean, expectFinding, expectNo, lineOf, run, trinity, ZH, zh } from '../helpers';

const h = (text: string, needle: string, lang = ENGLISH) => {
  const a = run(text);
  return (hover(a, text.indexOf(needle) + 1, lang)!.contents as { value: string }).value;
};

test('the fields both 0.6 lines define (megatron, offload, router replay, sync intervals…) are accepted with 0.6 and named with 0.5.2', () => {
  const text = trinity({
    algorithm: { enable_router_replay: true, rollout_correction: { bypass_mode: true, rollout_is: 'token' } },
    trainer: {
      use_remove_padding: false,
      balance_batch: true,
      critic_warmup: 2,
      param_offload: true,
      optimizer_offload: true,
      grad_offload: false,
      offload_policy: true,
      megatron: {
        tensor_model_parallel_size: 2,
        pipeline_model_parallel_size: 1,
        virtual_pipeline_model_parallel_size: null,
        expert_model_parallel_size: 1,
        expert_tensor_parallel_size: null,
        context_parallel_size: 1,
        sequence_parallel: true,
      },
    },
    explorer: {
      rollout_model: {
        enable_expert_parallel: true,
        extra_engine_args: { max_num_batched_tokens: 8192 },
        enable_multimodal: false,
        base_port: 30000,
        api_key: 'EMPTY',
        weight_sync_buffer_size: 2048,
      },
    },
    synchronizer: { explorer_sync_interval: 2, trainer_sync_interval: 2, group_name: 'my_sync' },
  });
  const a = run(text);
  expectNo(a, 'schema.unknown-key');
  expectClean(a);
  const old = run(text, { trinityVersion: '0.5.2' });
  expectNo(old, 'schema.unknown-key');
  for (const k of [
    'enable_router_replay',
    'rollout_correction',
    'use_remove_padding',
    'critic_warmup',
    'megatron',
    'enable_expert_parallel',
    'extra_engine_args',
    'weight_sync_buffer_size',
    'explorer_sync_interval',
    'group_name',
  ]) {
    expectFinding(old, 'version.newer-key', { severity: 'error', line: lineOf(text, `${k}:`) });
  }
});

test('a key one 0.6 line removed is a deprecation warning naming both lines, not an error; fine with 0.5.2', () => {
  const text = trinity({ explorer: { db_url: 'sqlite:///history.db' } });
  const f = expectFinding(run(text), 'version.removed-in-line', { severity: 'warning', line: lineOf(text, 'db_url:') });
  assert.equal(
    en(f.message),
    '`explorer.db_url` is deprecated in Trinity-RFT 0.6: pan-x-c@0ccf77cf removed it and rejects it as an unknown key (agentscope-ai@1d7fae4a still reads it).',
  );
  assert.match(zh(f.message), /\p{Script=Han}/u);
  assert.deepEqual(f.tags, ['deprecated']);
  expectNo(run(text), 'schema.unknown-key');
  expectNo(run(text, { trinityVersion: '0.5.2' }), 'version.removed-in-line');
});

test('a key only one 0.6 line has is accepted, with information naming the line that rejects it', () => {
  const text = trinity({ cod: { task_pack_size: 8, packing_strategy: 'cod' } });
  const f = expectFinding(run(text), 'version.line-only', { severity: 'info', line: lineOf(text, 'cod:') });
  assert.equal(en(f.message), '`cod` is only in agentscope-ai@1d7fae4a of the stored Trinity-RFT 0.6 versions; pan-x-c@0ccf77cf rejects it as an unknown key.');
  expectNo(run(text), 'schema.unknown-key');
  // an unknown key inside the one-line class is still unknown
  expectFinding(run(trinity({ cod: { task_pack_sise: 8 } })), 'schema.unknown-key');
});

test('null where the release in force does not take it: max_checkpoints_to_keep (Optional until 0.5.2), verl use_remove_padding (Optional since 0.6)', () => {
  const text = trinity({ trainer: { max_checkpoints_to_keep: null } });
  const f = expectFinding(run(text), 'version.not-optional', { severity: 'error', line: lineOf(text, 'max_checkpoints_to_keep') });
  assert.equal(en(f.message), '`trainer.max_checkpoints_to_keep` cannot be null in Trinity-RFT 0.6.0: the field is not Optional there.');
  expectNo(run(text, { trinityVersion: '0.5.2' }), 'version.not-optional');
  expectNo(run(trinity({ trainer: { max_checkpoints_to_keep: 3 } })), 'version.not-optional');
  const verl = trinity({ trainer: { trainer_config: { actor_rollout_ref: { model: { use_remove_padding: null } } } } });
  expectNo(run(verl), 'version.not-optional');
  expectNo(run(verl), 'schema.type');
  const old = expectFinding(run(verl, { trinityVersion: '0.5.2', trinityVersionSource: 'pinned in requirements.txt' }), 'version.not-optional', {
    severity: 'error',
  });
  assert.equal(
    en(old.message),
    '`trainer.trainer_config.actor_rollout_ref.model.use_remove_padding` cannot be null in Trinity-RFT 0.5.2 (pinned in requirements.txt): the field is not Optional there.',
  );
});

test('field history: presence per line, defaults per release and line, nullability per release', () => {
  const dbUrl = schemaAt('trinity', ['explorer', 'db_url'])!;
  assert.equal(presentAt(dbUrl, '0.5.2'), true);
  assert.equal(presentAt(dbUrl, '0.6.0', 'agentscope-ai@1d7fae4a'), true);
  assert.equal(presentAt(dbUrl, '0.6.0', 'pan-x-c@0ccf77cf'), false);
  assert.equal(presentAt(dbUrl, '0.6.0'), true, 'the union: some line has it');
  const strategy = schemaAt('trinity', ['trainer', 'trainer_strategy'])!;
  assert.equal(defaultAt(strategy, '0.5.2'), 'fsdp');
  assert.equal(defaultAt(strategy, '0.4.0'), 'fsdp');
  assert.equal(defaultAt(strategy, '0.6.0'), 'fsdp2');
  const prep = schemaAt('trinity', ['explorer', 'runner_prepare_concurrency'])!;
  assert.equal(defaultAt(prep, '0.6.0', 'pan-x-c@0ccf77cf'), 8);
  assert.equal(defaultAt(prep, '0.6.0', 'agentscope-ai@1d7fae4a'), 128);
  const keep = schemaAt('trinity', ['trainer', 'max_checkpoints_to_keep'])!;
  assert.deepEqual([nullableAt(keep, '0.5.2'), nullableAt(keep, '0.6.0')], [true, false]);
  assert.deepEqual([defaultAt(keep, '0.5.2'), defaultAt(keep, '0.6.0')], [null, 0]);
  // wrap_policy: a WrapPolicy dataclass up to 0.5.2, any mapping in 0.6
  expectNo(
    run(
      trinity({
        trainer: {
          trainer_config: { actor_rollout_ref: { actor: { fsdp_config: { wrap_policy: { transformer_layer_cls_to_wrap: ['Qwen2DecoderLayer'] } } } } },
        },
      }),
    ),
    'schema.unknown-key',
  );
});

test('hover: both defaults with their commits where the 0.6 lines disagree; the release default in force', () => {
  const text = trinity({ explorer: { runner_prepare_concurrency: 16 }, trainer: { trainer_strategy: 'fsdp2', enable_preview: true } });
  const prep = h(text, 'runner_prepare_concurrency');
  assert.match(prep, /Defaults differ: `8` in pan-x-c\/Trinity-RFT@0ccf77cf0f7b, `128` in agentscope-ai\/Trinity-RFT@1d7fae4a63f5/);
  assert.match(h(text, 'enable_preview'), /Defaults differ: `false` in pan-x-c\/Trinity-RFT@0ccf77cf0f7b/);
  const strategy = h(text, 'trainer_strategy');
  assert.match(strategy, /Default: `fsdp2`/);
  assert.match(strategy, /Defaults differ: `fsdp` in Trinity-RFT 0\.5\.2 and before/);
  const a = run(text, { trinityVersion: '0.5.2' });
  assert.match((hover(a, text.indexOf('trainer_strategy') + 1, ENGLISH)!.contents as { value: string }).value, /Default: `fsdp`/);
  const cod = trinity({ cod: { task_pack_size: 8 } });
  assert.match(
    h(cod, 'cod:'),
    /Only in agentscope-ai\/Trinity-RFT@1d7fae4a63f5 of the stored Trinity-RFT 0\.6\.0 versions; not in pan-x-c\/Trinity-RFT@0ccf77cf0f7b\./,
  );
  assert.match(h(text, 'runner_prepare_concurrency', ZH), /\p{Script=Han}/u);
});
