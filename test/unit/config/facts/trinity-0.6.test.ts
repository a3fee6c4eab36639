// Trinity-RFT 0.6's rules, each from its upstream validator's condition and message
// (config_validator.py, agentscope-ai/Trinity-RFT @ 1c35a79b; pan-x-c @ 03782715 for
// return_partial_tasks): a config that breaks the rule gets an error on the offending line,
// its valid twin none, and the same config with that one rule removed from the engine gets
// no such error (so the finding really comes from the rule). Plus the version facts: 0.6
// fields, values and names accepted with 0.6 in force and named with 0.5 in force.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRINITY_RULES } from '../../../../src/config/engine/engine';
import { en, expectClean, expectFinding, expectNo, lineOf, type Obj, run, trinity, zh } from '../helpers';

interface Case {
  rule: string;
  code: string;
  /** Upstream's message (the part of it we reproduce word for word). */
  upstream: RegExp;
  bad: Obj;
  good: Obj;
  /** Text on the offending line. */
  at: string;
}

// 2 nodes × 4 GPUs in all cases; the base config has 2 rollout engines with TP 1 in mode both
const CASES: Case[] = [
  {
    // gpu_per_engine > gpu_per_node and gpu_per_engine % gpu_per_node != 0
    rule: 'trinity.engine.multinode',
    code: 'trinity.engine.multinode-whole-nodes',
    upstream: /^Multi-node inference requires gpu_per_engine to be a multiple of cluster\.gpu_per_node \(4\), but got gpu_per_engine=6/,
    bad: { cluster: { node_num: 2, gpu_per_node: 4 }, explorer: { rollout_model: { engine_num: 1, tensor_parallel_size: 2, pipeline_parallel_size: 3 } } },
    good: {
      cluster: { node_num: 2, gpu_per_node: 4 },
      explorer: { rollout_model: { engine_num: 1, tensor_parallel_size: 2, pipeline_parallel_size: 2 } },
      buffer: { batch_size: 16 },
    },
    at: 'tensor_parallel_size: 2',
  },
  {
    // engine_type startswith vllm and data_parallel_size > 1 and nnodes > 1
    rule: 'trinity.engine.vllm-dp',
    code: 'trinity.engine.vllm-dp-multinode',
    upstream: /^vLLM does not support data parallelism in multi-node setups/,
    bad: { cluster: { node_num: 3, gpu_per_node: 4 }, explorer: { rollout_model: { engine_num: 1, tensor_parallel_size: 4, data_parallel_size: 2 } } },
    good: {
      cluster: { node_num: 3, gpu_per_node: 4 },
      explorer: { rollout_model: { engine_num: 1, tensor_parallel_size: 4, data_parallel_size: 2, engine_type: 'sglang' } },
    },
    at: 'data_parallel_size: 2',
  },
  {
    // engine_type == sglang and tensor_parallel_size % data_parallel_size != 0
    rule: 'trinity.engine.sglang-tp-dp',
    code: 'trinity.engine.sglang-tp-dp',
    upstream:
      /^SGLang inference requires tensor_parallel_size to be a multiple of data_parallel_size, but got tensor_parallel_size=2 and data_parallel_size=4\.$/,
    bad: {
      explorer: { rollout_model: { engine_num: 1, engine_type: 'sglang', tensor_parallel_size: 2, data_parallel_size: 4 } },
      cluster: { node_num: 2, gpu_per_node: 8 },
    },
    good: {
      explorer: { rollout_model: { engine_num: 1, engine_type: 'sglang', tensor_parallel_size: 4, data_parallel_size: 2 } },
      cluster: { node_num: 2, gpu_per_node: 8 },
    },
    at: 'data_parallel_size: 4',
  },
  {
    // (ratio > 0 or return_partial_tasks) and sync_style == FIXED
    rule: 'trinity.explorer.partial-tasks',
    code: 'trinity.explorer.partial-tasks-sync-style',
    upstream: /^over_rollout is not compatible with fixed sync_style/,
    bad: { explorer: { over_rollout: { return_partial_tasks: true } } },
    good: { explorer: { over_rollout: { return_partial_tasks: true } }, synchronizer: { sync_style: 'explorer_driven' } },
    at: 'return_partial_tasks: true',
  },
];

const without = (id: string) => new Set([id]);

for (const c of CASES) {
  test(`0.6 rule ${c.rule}: error on the offending line with upstream's message; valid twin clean`, () => {
    const text = trinity(c.bad);
    const f = expectFinding(run(text), c.code, { severity: 'error', line: lineOf(text, c.at) });
    assert.match(en(f.message), c.upstream);
    assert.match(zh(f.message), /\p{Script=Han}/u, 'translated');
    expectClean(run(trinity(c.good)));
  });

  test(`0.6 rule ${c.rule}: mutant — with the rule removed the error disappears`, () => {
    assert.ok(
      TRINITY_RULES.some((r) => r.id === c.rule),
      'rule is registered',
    );
    const text = trinity(c.bad);
    expectNo(run(text, { disabledRules: without(c.rule) }), c.code);
  });

  test(`0.6 rule ${c.rule}: does not apply with 0.5.2 in force`, () => {
    expectNo(run(trinity(c.bad), { trinityVersion: '0.5.2' }), c.code);
  });
}

test('0.6 GPU arithmetic: an engine takes DP × TP × PP GPUs (0.5 counted TP only)', () => {
  // 1 node × 8 GPUs, mode both: 2 engines × (DP 2 × TP 2) = 8 → nothing left for the trainer
  const text = trinity({
    cluster: { node_num: 1, gpu_per_node: 8 },
    explorer: { rollout_model: { engine_num: 2, tensor_parallel_size: 2, data_parallel_size: 2 } },
  });
  const f = expectFinding(run(text), 'trinity.gpu.no-trainer-gpus', { severity: 'error' });
  assert.match(en(f.message), /the explorer needs 8 GPUs \(2 engines × 4 GPUs \(data_parallel_size 2 × tensor_parallel_size 2\)\)/);
  // the twin: one engine of 4 GPUs leaves 4 to the trainer
  expectClean(run(text.replace('engine_num: 2', 'engine_num: 1')));
  // auxiliary models count with their own DP × TP × PP
  const aux = trinity({
    cluster: { node_num: 1, gpu_per_node: 8 },
    explorer: {
      rollout_model: { engine_num: 1, tensor_parallel_size: 2 },
      auxiliary_models: [{ model_path: 'Qwen/Qwen2.5-7B-Instruct', tensor_parallel_size: 2, pipeline_parallel_size: 3 }],
    },
  });
  expectFinding(run(aux), 'trinity.gpu.no-trainer-gpus');
});

test('Trinity 0.6 fields, values and names: clean with 0.6, "needs ≥ 0.6" with 0.5.2', () => {
  const text = trinity({
    algorithm: { algorithm_type: 'gigpo', advantage_fn: 'gigpo', policy_loss_fn: 'm2po', optimizer: { fused: true, foreach: false } },
    explorer: {
      runner_prepare_concurrency: 64,
      runner_prepare_max_retries: 2,
      max_inflight_batches: 3,
      dynamic_timeout: { enable: true, warmup_min_steps: 2 },
      rollout_model: { engine_type: 'sglang', data_parallel_size: 1, pipeline_parallel_size: 1 },
    },
    synchronizer: { sync_style: 'fully_async', sync_method: 'checkpoint' },
    monitor: { monitor_type: 'wandb', shared_run: true },
  });
  expectClean(run(text));
  const old = run(text, { trinityVersion: '0.5.2', trinityVersionSource: 'pinned in requirements.txt' });
  expectNo(old, 'schema.unknown-key');
  const dp = expectFinding(old, 'version.newer-key', { severity: 'error', line: lineOf(text, 'data_parallel_size') });
  assert.equal(en(dp.message), '`explorer.rollout_model.data_parallel_size` needs Trinity-RFT ≥ 0.6; this workspace has 0.5.2 (pinned in requirements.txt).');
  for (const k of ['pipeline_parallel_size', 'shared_run', 'fused', 'foreach', 'runner_prepare_concurrency', 'max_inflight_batches', 'warmup_min_steps']) {
    expectFinding(old, 'version.newer-key', { line: lineOf(text, `${k}:`) });
  }
  expectFinding(old, 'version.newer-value', { severity: 'error', line: lineOf(text, 'sync_style: fully_async') });
  expectFinding(old, 'version.newer-value', { line: lineOf(text, 'engine_type: sglang') });
  const g = expectFinding(old, 'version.newer-name', { severity: 'warning', line: lineOf(text, 'algorithm_type: gigpo') });
  assert.match(en(g.message), /^'gigpo' \(algorithm type\) needs Trinity-RFT ≥ 0\.6; this workspace has 0\.5\.2/);
  expectFinding(old, 'version.newer-name', { line: lineOf(text, 'policy_loss_fn: m2po') });
  expectNo(old, 'names.unknown');
});

test('0.6 enum values sync_method hccl and storage_type task_dir', () => {
  const text = trinity({ synchronizer: { sync_method: 'HCCL' }, buffer: { explorer_input: { taskset: { storage_type: 'task_dir', path: './tasks' } } } });
  expectNo(run(text, { checkPaths: false }), 'schema.type');
  expectNo(run(text, { checkPaths: false }), 'trinity.buffer.storage-type');
  const old = run(text, { trinityVersion: '0.5.2', checkPaths: false });
  expectFinding(old, 'version.newer-value', { line: lineOf(text, 'sync_method: HCCL') });
  expectFinding(old, 'version.newer-value', { line: lineOf(text, 'storage_type: task_dir') });
});

test("0.6 colocate: the whole engine (DP × TP × PP) must be one GPU, upstream's gpu_per_engine message", () => {
  const text = trinity({
    mode: 'colocate',
    cluster: { node_num: 1, gpu_per_node: 1 },
    explorer: { rollout_model: { engine_num: 1, tensor_parallel_size: 1, data_parallel_size: 2 } },
  });
  const f = expectFinding(run(text), 'trinity.gpu.colocate-tp', { severity: 'error', line: lineOf(text, 'data_parallel_size: 2') });
  assert.match(en(f.message), /^In colocate mode, `explorer\.rollout_model\.gpu_per_engine` must be set to 1/);
  expectNo(run(text.replace('data_parallel_size: 2', 'data_parallel_size: 1')), 'trinity.gpu.colocate-tp');
});
