// Every Trinity-RFT rule broken on purpose: the finding has the right code, severity and
// line; quick fixes produce a config the rule accepts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { applyFix, en, expectClean, expectFinding, expectNo, lineOf, run, tempDir, trinity } from './helpers';

test('the base config is clean', () => {
  expectClean(run(trinity()));
});

test('mode is case-sensitive (Both is rejected, with a fix)', () => {
  const text = trinity({ mode: 'Both' });
  const a = run(text);
  const f = expectFinding(a, 'trinity.mode.invalid', { severity: 'error', line: lineOf(text, 'mode: Both') });
  expectClean(run(applyFix(text, f)));
});

test('GPU: explore mode with more rollout GPUs than the cluster has', () => {
  const text = trinity({ mode: 'explore', explorer: { rollout_model: { engine_num: 5 } } });
  const a = run(text);
  const f = expectFinding(a, 'trinity.gpu.explorer-exceeds-total', { severity: 'error', line: lineOf(text, 'engine_num: 5') });
  assert.ok(f.related && f.related.length >= 2, 'links the cluster keys');
  assert.match(en(f.message), /Total GPU number \(4\).*\(5/);
  const fixed = applyFix(text, f);
  assert.match(fixed, /engine_num: 4/);
  expectNo(run(fixed), 'trinity.gpu.explorer-exceeds-total');
});

test('GPU: both mode leaves no GPU for the trainer', () => {
  const text = trinity({ explorer: { rollout_model: { engine_num: 2, tensor_parallel_size: 2 } } });
  const a = run(text);
  expectFinding(a, 'trinity.gpu.no-trainer-gpus', { severity: 'error', line: lineOf(text, 'engine_num: 2') });
});

test('GPU: auxiliary models count against the trainer', () => {
  const text = trinity({ explorer: { rollout_model: { engine_num: 3 }, auxiliary_models: [{ model_path: 'Qwen/Qwen3-8B', engine_num: 1 }] } });
  expectFinding(run(text), 'trinity.gpu.no-trainer-gpus', { severity: 'error' });
  // without the auxiliary model the same rollout fits
  expectNo(run(trinity({ explorer: { rollout_model: { engine_num: 3 } }, buffer: { batch_size: 8 } })), 'trinity.gpu.no-trainer-gpus');
});

test('GPU: the trainer must get whole nodes', () => {
  const text = trinity({ cluster: { node_num: 2, gpu_per_node: 4 }, explorer: { rollout_model: { engine_num: 3 } } });
  const a = run(text);
  const f = expectFinding(a, 'trinity.gpu.trainer-whole-nodes', { severity: 'error', line: lineOf(text, 'engine_num: 3') });
  const fixed = applyFix(text, f);
  expectNo(run(fixed), 'trinity.gpu.trainer-whole-nodes');
});

test('GPU: nothing is checked when node_num / gpu_per_node are auto-detected (0)', () => {
  expectNo(run(trinity({ cluster: { node_num: 0, gpu_per_node: 0 }, explorer: { rollout_model: { engine_num: 64 } } })), 'trinity.gpu.no-trainer-gpus');
});

test('colocate: exactly one GPU, one engine, tp 1, no auxiliary models, sp 1', () => {
  let text = trinity({ mode: 'colocate' });
  expectFinding(run(text), 'trinity.gpu.colocate-total', { severity: 'error', line: lineOf(text, 'mode: colocate') });
  text = trinity({
    mode: 'colocate',
    cluster: { gpu_per_node: 1 },
    explorer: { rollout_model: { engine_num: 2, tensor_parallel_size: 2 }, auxiliary_models: [{ model_path: 'x/y' }] },
    trainer: { ulysses_sequence_parallel_size: 2 },
  });
  const a = run(text);
  expectFinding(a, 'trinity.gpu.colocate-engines', { line: lineOf(text, 'engine_num: 2') });
  expectFinding(a, 'trinity.gpu.colocate-tp', { line: lineOf(text, 'tensor_parallel_size: 2') });
  expectFinding(a, 'trinity.gpu.colocate-aux', { line: lineOf(text, 'auxiliary_models:') });
  expectFinding(a, 'trinity.gpu.colocate-sp', { line: lineOf(text, 'ulysses_sequence_parallel_size: 2') });
  expectClean(run(trinity({ mode: 'colocate', cluster: { gpu_per_node: 1 }, explorer: { rollout_model: { engine_num: 1 } } })));
});

test('batch: sequence parallel size must divide the trainer GPUs', () => {
  const text = trinity({ trainer: { ulysses_sequence_parallel_size: 3 } });
  const f = expectFinding(run(text), 'trinity.batch.sp-divides-gpus', { severity: 'error', line: lineOf(text, 'ulysses_sequence_parallel_size: 3') });
  expectNo(run(applyFix(text, f)), 'trinity.batch.sp-divides-gpus');
});

test('batch: train_batch_size divisible by trainer GPUs ÷ sp (derived and explicit)', () => {
  // trainer 3 GPUs: 8 × 4 = 32 is not divisible by 3
  let text = trinity({ explorer: { rollout_model: { engine_num: 1 } } });
  let f = expectFinding(run(text), 'trinity.batch.divisible', { severity: 'error', line: lineOf(text, 'batch_size: 8') });
  assert.match(en(f.message), /batch size \(32\).*GPUs \(3\).*\(1\)/);
  text = trinity({ explorer: { rollout_model: { engine_num: 1 } }, buffer: { train_batch_size: 10 } });
  f = expectFinding(run(text), 'trinity.batch.divisible', { line: lineOf(text, 'train_batch_size: 10') });
  const fixed = applyFix(text, f);
  assert.match(fixed, /train_batch_size: 12/);
  expectClean(run(fixed));
});

test('batch: auxiliary models change the divisor', () => {
  // 1 engine + 1 auxiliary → trainer 2 GPUs; 9 × 3 = 27 is odd
  const text = trinity({
    buffer: { batch_size: 9 },
    algorithm: { repeat_times: 3 },
    explorer: { rollout_model: { engine_num: 1 }, auxiliary_models: [{ model_path: 'Qwen/Qwen3-8B' }] },
  });
  expectFinding(run(text), 'trinity.batch.divisible', { severity: 'error' });
  expectNo(
    run(trinity({ buffer: { batch_size: 9 }, algorithm: { repeat_times: 3 }, explorer: { rollout_model: { engine_num: 1 } } })),
    'trinity.batch.divisible',
  );
});

test('batch: fsdp_size must divide the trainer GPUs', () => {
  const text = trinity({
    cluster: { gpu_per_node: 8 },
    explorer: { rollout_model: { engine_num: 2 } },
    trainer: { trainer_config: { actor_rollout_ref: { actor: { fsdp_config: { fsdp_size: 4 } } } } },
  });
  expectFinding(run(text), 'trinity.trainer.fsdp-size', { severity: 'error', line: lineOf(text, 'fsdp_size: 4') });
});

test('lengths: prompt + response > max_model_len is an error, == is fine', () => {
  const text = trinity({ model: { max_response_tokens: 600 } });
  const f = expectFinding(run(text), 'trinity.length.exceeds-max-model-len', { severity: 'error', line: lineOf(text, 'max_model_len: 1024') });
  assert.equal(f.related?.length, 2);
  const fixed = applyFix(text, f);
  assert.match(fixed, /max_model_len: 1112/);
  expectClean(run(fixed));
  expectNo(run(trinity({ model: { max_response_tokens: 512 } })), 'trinity.length.exceeds-max-model-len');
});

test('lengths: max_model_len must be set or derivable', () => {
  const text = trinity({ model: { max_model_len: undefined, max_prompt_tokens: undefined } });
  expectFinding(run(text), 'trinity.length.no-max-model-len', { severity: 'error', line: lineOf(text, 'max_response_tokens') });
  expectClean(run(trinity({ model: { max_model_len: undefined } })));
});

test('sft/dpo: only in train mode, with a dataset path and save_interval > 0', () => {
  let text = trinity({ algorithm: { algorithm_type: 'sft' }, buffer: { train_batch_size: 32 } });
  const f = expectFinding(run(text), 'trinity.algorithm.mode', { severity: 'error', line: lineOf(text, 'mode: both') });
  assert.match(applyFix(text, f), /mode: train/);
  text = trinity({ mode: 'train', algorithm: { algorithm_type: 'sft' }, buffer: { train_batch_size: 32 } });
  expectFinding(run(text), 'trinity.algorithm.dataset-path', { severity: 'error' });
  text = trinity({
    mode: 'train',
    algorithm: { algorithm_type: 'dpo' },
    buffer: { train_batch_size: 32, trainer_input: { experience_buffer: { path: 'data/dpo.jsonl', storage_type: 'file' } } },
    trainer: { save_interval: 0 },
  });
  expectFinding(run(text), 'trinity.algorithm.save-interval', { severity: 'error', line: lineOf(text, 'save_interval: 0') });
});

test('sft/dpo: sync_interval 0 is not an error (it is replaced by save_interval)', () => {
  const text = trinity({
    mode: 'train',
    algorithm: { algorithm_type: 'sft' },
    synchronizer: { sync_interval: 0 },
    buffer: { train_batch_size: 32, trainer_input: { experience_buffer: { path: 'data/sft.jsonl', storage_type: 'file' } } },
  });
  const a = run(text);
  expectNo(a, 'trinity.sync.interval');
  expectFinding(a, 'trinity.sync.overwritten', { severity: 'info', line: lineOf(text, 'sync_interval: 0') });
});

test('train mode needs train_batch_size (with a fix that adds it)', () => {
  const text = trinity({ mode: 'train' });
  const f = expectFinding(run(text), 'trinity.buffer.train-batch-size-required', { severity: 'error', line: lineOf(text, 'buffer:') });
  const fixed = applyFix(text, f);
  assert.match(fixed, /train_batch_size: 32/);
  expectNo(run(fixed), 'trinity.buffer.train-batch-size-required');
});

test('tinker cannot train an algorithm with a critic', () => {
  const text = trinity({ algorithm: { algorithm_type: 'ppo' }, model: { tinker: { enable: true } } });
  expectFinding(run(text), 'trinity.model.tinker-critic', { severity: 'error', line: lineOf(text, 'enable: true') });
});

test('sync_interval must be positive; eval_interval is rounded (info with fix)', () => {
  let text = trinity({ synchronizer: { sync_interval: 0 } });
  expectFinding(run(text), 'trinity.sync.interval', { severity: 'error', line: lineOf(text, 'sync_interval: 0') });
  text = trinity({ synchronizer: { sync_interval: 4 }, explorer: { eval_interval: 10 } });
  const f = expectFinding(run(text), 'trinity.sync.eval-interval-rounded', { severity: 'info', line: lineOf(text, 'eval_interval: 10') });
  assert.match(en(f.message), /uses 8/);
  assert.match(applyFix(text, f), /eval_interval: 8/);
});

test('nccl in explore mode is replaced by checkpoint (info)', () => {
  const text = trinity({ mode: 'explore' });
  expectFinding(run(text), 'trinity.sync.nccl-replaced', { severity: 'info', line: lineOf(text, 'sync_method: nccl') });
});

test('explorer: auxiliary models need model_path', () => {
  const text = trinity({ explorer: { rollout_model: { engine_num: 1 }, auxiliary_models: [{ name: 'judge', engine_num: 1 }] } });
  expectFinding(run(text), 'trinity.explorer.aux-model-path', { severity: 'error', line: lineOf(text, 'name: judge') });
});

test('explorer: over-rollout ratio < 1 and a non-fixed sync style', () => {
  let text = trinity({ explorer: { over_rollout: { ratio: 1.0 } }, synchronizer: { sync_style: 'explorer_driven' } });
  expectFinding(run(text), 'trinity.explorer.over-rollout-ratio', { severity: 'error', line: lineOf(text, 'ratio: 1') });
  text = trinity({ explorer: { over_rollout: { ratio: 0.5 } } });
  const f = expectFinding(run(text), 'trinity.explorer.over-rollout-sync-style', { severity: 'error', line: lineOf(text, 'ratio: 0.5') });
  expectClean(run(applyFix(text, f)));
});

test('model: at most one LoRA adapter', () => {
  const text = trinity({
    model: {
      lora_configs: [
        { name: 'a', lora_rank: 16 },
        { name: 'b', lora_rank: 16 },
      ],
    },
  });
  expectFinding(run(text), 'trinity.model.lora-count', { severity: 'error', line: lineOf(text, '- name: b') });
  expectNo(run(trinity({ model: { lora_configs: [{ name: 'a' }] } })), 'trinity.model.lora-count');
});

test('explorer: concurrent_mode values, and the runner cap in concurrent modes', () => {
  let text = trinity({ explorer: { concurrent_mode: 'parallel' } });
  expectFinding(run(text), 'trinity.explorer.concurrent-mode', { severity: 'error', line: lineOf(text, 'concurrent_mode: parallel') });
  text = trinity({ explorer: { concurrent_mode: 'asynchronous', runner_per_model: 16 } });
  expectFinding(run(text), 'trinity.explorer.runner-cap', { severity: 'info', line: lineOf(text, 'runner_per_model: 16') });
});

test("explorer: unknown engine type; sglang is 0.6's", () => {
  const text = trinity({ explorer: { rollout_model: { engine_type: 'trtllm' } } });
  const f = expectFinding(run(text), 'trinity.explorer.engine-type', { severity: 'error', line: lineOf(text, 'engine_type: trtllm') });
  assert.match(en(f.message), /`sglang`/);
  const sg = trinity({ explorer: { rollout_model: { engine_type: 'sglang' } } });
  expectClean(run(sg));
  const old = run(sg, { trinityVersion: '0.5.2' });
  expectNo(old, 'trinity.explorer.engine-type');
  const g = expectFinding(old, 'version.newer-value', { severity: 'error', line: lineOf(sg, 'engine_type: sglang') });
  assert.equal(en(g.message), '`explorer.rollout_model.engine_type: sglang` needs Trinity-RFT ≥ 0.6; this workspace has 0.5.2.');
});

test('buffer: taskset xor tasksets, at least one taskset, every taskset has a path', () => {
  let text = trinity({ buffer: { explorer_input: { tasksets: [{ name: 'b', path: 'x/y' }] } } });
  expectFinding(run(text), 'trinity.buffer.taskset-and-tasksets', { severity: 'error', line: lineOf(text, 'tasksets:') });
  text = trinity({ buffer: { explorer_input: { taskset: undefined } } });
  expectFinding(run(text), 'trinity.buffer.no-taskset', { severity: 'error' });
  expectNo(run(trinity({ mode: 'bench', buffer: { explorer_input: { taskset: undefined } } })), 'trinity.buffer.no-taskset');
  expectNo(run(trinity({ mode: 'serve', buffer: { explorer_input: { taskset: undefined } } })), 'trinity.buffer.no-taskset');
  text = trinity({ buffer: { explorer_input: { taskset: { path: undefined } } } });
  expectFinding(run(text), 'trinity.buffer.taskset-path', { severity: 'error', line: lineOf(text, 'taskset:') });
  text = trinity({ buffer: { explorer_input: { eval_tasksets: [{ name: 'ev', split: 'test' }] } } });
  expectFinding(run(text), 'trinity.buffer.eval-taskset-path', { severity: 'error', line: lineOf(text, 'name: ev') });
});

test('buffer: storage types (unknown fails when the buffer is created)', () => {
  let text = trinity({ buffer: { explorer_input: { taskset: { storage_type: 'files' } } } });
  const f = expectFinding(run(text), 'trinity.buffer.storage-type', { severity: 'error', line: lineOf(text, 'storage_type: files') });
  assert.match(applyFix(text, f), /storage_type: file\n/);
  text = trinity({ buffer: { trainer_input: { experience_buffer: { storage_type: 'redis' } } } });
  expectFinding(run(text), 'trinity.buffer.storage-type', { line: lineOf(text, 'storage_type: redis') });
});

test('buffer: auxiliary buffers need a path', () => {
  const text = trinity({ buffer: { trainer_input: { auxiliary_buffers: { sft_dataset: { storage_type: 'file' } } } } });
  expectFinding(run(text), 'trinity.buffer.aux-buffer-path', { severity: 'error', line: lineOf(text, 'sft_dataset:') });
});

test('data processor: a task pipeline needs an output when no taskset can be used', () => {
  const text = trinity({ mode: 'train', buffer: { train_batch_size: 32 }, data_processor: { task_pipeline: { num_process: 2 } } });
  expectFinding(run(text), 'trinity.data.task-pipeline-output', { severity: 'error', line: lineOf(text, 'task_pipeline:') });
});

test('external_model only in bench mode, with its settings', () => {
  let text = trinity({ model: { external_model: { enable: true, model_name: 'qwen-max' } } });
  expectFinding(run(text), 'trinity.model.external-not-bench', { severity: 'error', line: lineOf(text, 'enable: true') });
  text = trinity({ mode: 'bench', model: { external_model: { enable: true, api_key_env: '' } } });
  const a = run(text);
  expectFinding(a, 'trinity.model.external-required', { line: lineOf(text, 'api_key_env: ""') });
  expectFinding(a, 'trinity.model.external-required', { line: lineOf(text, 'external_model:') });
});

test('chat_template_path must be readable (inside the workspace)', () => {
  const root = tempDir();
  const file = path.join(root, 'config.yaml');
  const text = trinity({ model: { chat_template_path: 'templates/chat.jinja' } });
  expectFinding(run(text, { file, roots: [root], checkPaths: true }), 'trinity.model.chat-template-missing', {
    severity: 'error',
    line: lineOf(text, 'chat_template_path'),
  });
  fs.mkdirSync(path.join(root, 'templates'));
  fs.writeFileSync(path.join(root, 'templates', 'chat.jinja'), '{{ messages }}');
  expectNo(run(text, { file, roots: [root], checkPaths: true }), 'trinity.model.chat-template-missing');
});

test('trainer: trainer_type and save_hf_checkpoint values', () => {
  let text = trinity({ trainer: { trainer_type: 'deepspeed' } });
  expectFinding(run(text), 'trinity.trainer.type', { severity: 'error', line: lineOf(text, 'trainer_type: deepspeed') });
  text = trinity({ trainer: { save_hf_checkpoint: 'sometimes' } });
  expectFinding(run(text), 'trinity.trainer.save-hf-checkpoint', { severity: 'error', line: lineOf(text, 'save_hf_checkpoint') });
  text = trinity({ trainer: { trainer_strategy: 'zero3' } });
  expectFinding(run(text), 'trinity.trainer.strategy', { severity: 'warning', line: lineOf(text, 'trainer_strategy') });
});

test('trainer_config_path: an error when it would be used, a warning otherwise', () => {
  let text = trinity({ trainer: { trainer_config_path: 'verl.yaml' } });
  expectFinding(run(text), 'trinity.trainer.config-path', { severity: 'error', line: lineOf(text, 'trainer_config_path') });
  text = trinity({ trainer: { trainer_config_path: 'verl.yaml', trainer_config: { trainer: { balance_batch: false } } } });
  expectFinding(run(text), 'trinity.deprecated-key', { severity: 'warning', line: lineOf(text, 'trainer_config_path') });
});

test('deprecated keys warn with a rename fix', () => {
  const text = trinity({ explorer: { runner_num: 16 }, algorithm: { optimizer: { warmup_style: 'cosine' } } });
  const a = run(text);
  const f = expectFinding(a, 'trinity.deprecated-key', { severity: 'warning', line: lineOf(text, 'runner_num') });
  assert.match(applyFix(text, f), /runner_per_model: 16/);
  expectFinding(a, 'trinity.deprecated-key', { line: lineOf(text, 'warmup_style') });
});

test('do-not-set keys are an info with the "unnecessary" tag', () => {
  const text = trinity({ cluster: { total_gpu_num: 4 } });
  const f = expectFinding(run(text), 'trinity.do-not-set', { severity: 'info', line: lineOf(text, 'total_gpu_num') });
  assert.deepEqual(f.tags, ['unnecessary']);
});

test('stages: rules run per stage, sections replace the global ones', () => {
  const text = trinity({
    stages: [{ stage_name: 'sft_warmup', mode: 'train', algorithm: { algorithm_type: 'sft' }, buffer: { total_steps: 10 } }, { stage_name: 'rft' }],
  });
  const a = run(text);
  const f = expectFinding(a, 'trinity.buffer.train-batch-size-required', { severity: 'error' });
  assert.match(en(f.message), /stage 'sft_warmup'/);
  expectFinding(a, 'trinity.algorithm.dataset-path');
  // the global config (stage 'rft') stays valid
  assert.ok(!a.findings.some((x) => /stage 'rft'/.test(en(x.message)) && x.severity === 'error'), 'rft stage clean');
});
