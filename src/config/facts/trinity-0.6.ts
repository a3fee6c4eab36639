// What Trinity-RFT 0.6.0 (June 2026) changed against 0.5.2 — only the differences; the 0.5
// line is src/config/facts/trinity-0.5.schema.json. Sources (stored upstream copies read with
// the search tool; several versions of each file exist, these are the newest that carry 0.6):
//   config.py            agentscope-ai/Trinity-RFT @ 1d7fae4a63f5e3a30e1927559d28a348a2167dd6
//   config_validator.py  agentscope-ai/Trinity-RFT @ 1c35a79b064ed90b34d660eec388bf6f45a63194
//                        (RayClusterConfigValidator._validate_multinode_inference_models,
//                        _set_gpu_allocation_info) and pan-x-c/Trinity-RFT @ 037827150280f1f9
//                        (ExplorerConfigValidator: over_rollout.return_partial_tasks)
//   enums, registries, monitor.shared_run, optimizer.fused/foreach, TRINITY_MAX_EXP_SIZE:
//                        ../shared/reference/upstream-2026-11.md (constants.py, algorithm /
//                        workflow / reward registries and trinity_configs.md as of 2026-11;
//                        `shared_run` and `fused`/`foreach` are in the docs and monitor code
//                        (pan-x-c monitor.py, `supports_shared_run`) but not in config.py
//                        1d7fae4a: we accept them, as the docs tell users to write them).
// Left out on purpose: fields of config.py 1d7fae4a that no 0.6 note names (megatron, cod,
// explorer/trainer_sync_interval, router replay…) — they may be post-0.6 main.
import { doc } from '../core/l10n-text';
import type { ReleaseDelta } from './releases';
import { boolField, intField } from './nodes';

const dnsNote = { en: 'Do not set: Trinity computes it', zh: '请勿设置：由 Trinity 计算' };

export const TRINITY_0_6: ReleaseDelta = {
  version: '0.6.0',
  keys: {
    InferenceModelConfig: {
      data_parallel_size: intField({ en: 'Data-parallel replicas inside one engine; GPUs per engine = data_parallel_size × tensor_parallel_size × pipeline_parallel_size. vLLM keeps DP on one node; SGLang needs tensor_parallel_size divisible by it.', zh: '单个引擎内的数据并行副本数；每个引擎的 GPU 数 = data_parallel_size × tensor_parallel_size × pipeline_parallel_size。vLLM 的数据并行只能在单节点内；SGLang 要求 tensor_parallel_size 能被它整除。' }, 1),
      pipeline_parallel_size: intField({ en: 'Pipeline-parallel stages of one engine (counts in GPUs per engine = DP × TP × PP).', zh: '单个引擎的流水线并行级数（计入每个引擎的 GPU 数 = DP × TP × PP）。' }, 1),
      nnodes: intField({ en: `${dnsNote.en}: nodes one engine spans (GPUs per engine ÷ cluster.gpu_per_node when an engine is larger than a node).`, zh: `${dnsNote.zh}：单个引擎跨越的节点数（引擎大于一个节点时为每引擎 GPU 数 ÷ cluster.gpu_per_node）。` }, 1, { 'x-doNotSet': true }),
      gpu_per_engine: intField({ en: `${dnsNote.en}: data_parallel_size × tensor_parallel_size × pipeline_parallel_size.`, zh: `${dnsNote.zh}：data_parallel_size × tensor_parallel_size × pipeline_parallel_size。` }, 0, { 'x-doNotSet': true }),
    },
    ExplorerConfig: {
      runner_prepare_concurrency: intField({ en: 'At most this many workflow runners prepare at once (works around a start-up crash, issue #567).', zh: '同时准备的工作流 runner 数上限（规避启动崩溃，issue #567）。' }, 128),
      runner_prepare_max_retries: intField({ en: 'Retries of a runner prepare that crashed transiently.', zh: 'runner 准备阶段偶发崩溃时的重试次数。' }, 3),
      max_inflight_batches: intField({ en: 'Train batches the rollout coordinator may hold at once.', zh: 'rollout 协调器可同时持有的训练批次数。' }, 2),
    },
    OverRolloutConfig: {
      return_partial_tasks: boolField({ en: 'When over-rollout cleans up, return tasks of which only some runs finished; like `ratio` > 0 it needs a non-`fixed` sync style.', zh: '超量 rollout 清理时返回仅部分运行完成的任务；与 `ratio` > 0 一样需要非 `fixed` 的同步方式。' }, false),
    },
    DynamicTimeoutConfig: {
      warmup_min_steps: intField({ en: 'Fully observed steps before the dynamic timeout applies.', zh: '动态超时生效前需完整观测的步数。' }, 1),
    },
    OptimizerConfig: {
      fused: boolField({ en: 'Use the fused optimizer implementation (torch `fused=`); null lets torch choose.', zh: '使用融合优化器实现（torch 的 `fused=`）；null 由 torch 决定。' }, null),
      foreach: boolField({ en: 'Use the foreach optimizer implementation (torch `foreach=`); null lets torch choose.', zh: '使用 foreach 优化器实现（torch 的 `foreach=`）；null 由 torch 决定。' }, null),
    },
    AlgorithmConfig: {
      // config.py 1d7fae4a; used by upstream's 0.6 example examples/m2po_gsm8k/explorer.yaml
      bypass_old_logprobs: boolField({ en: 'Use the rollout log-probs as the old policy\'s instead of recomputing them in the trainer.', zh: '直接使用 rollout 的对数概率作为旧策略的对数概率，而不在训练器中重新计算。' }, true),
    },
    MonitorConfig: {
      shared_run: boolField({ en: 'One wandb run for explorer and trainer: keys prefixed `explorer/` and `trainer/`, step axes bound in `<job_dir>/monitor/shared_step_bindings/<role>.json`.', zh: '探索器与训练器共用一个 wandb 运行：键带 `explorer/`、`trainer/` 前缀，步轴绑定写在 `<job_dir>/monitor/shared_step_bindings/<role>.json`。' }, false),
    },
  },
  values: [
    { cls: 'SynchronizerConfig', key: 'sync_style', add: ['fully_async'], doc: { en: '`fixed` (every `sync_interval` steps), `trainer_driven`, `explorer_driven` or (0.6) `fully_async` (weights stream while both sides keep running).', zh: '`fixed`（每 `sync_interval` 步）、`trainer_driven`、`explorer_driven` 或（0.6）`fully_async`（双方持续运行时同步权重）。' } },
    { cls: 'SynchronizerConfig', key: 'sync_method', add: ['hccl'], doc: { en: 'Weight sync: `nccl` (online), `checkpoint` (offline, via files), `memory` or (0.6, Ascend NPUs) `hccl`; case-insensitive.', zh: '权重同步方式：`nccl`（在线）、`checkpoint`（离线，经文件）、`memory` 或（0.6，昇腾 NPU）`hccl`；不区分大小写。' } },
    { cls: 'InferenceModelConfig', key: 'engine_type', add: ['sglang'], doc: { en: 'Engine: `vllm` (or a `vllm*` variant), `sglang` (0.6), `tinker` or `external`.', zh: '引擎：`vllm`（或 `vllm*` 变体）、`sglang`（0.6）、`tinker` 或 `external`。' } },
    { cls: 'TasksetConfig', key: 'storage_type', add: ['task_dir'], doc: { en: 'Where tasks are read from: `file` (HF dataset id or local jsonl/parquet), `sql`, or (0.6) `task_dir` (a directory of task files).', zh: '任务来源：`file`（HF 数据集 id 或本地 jsonl/parquet）、`sql` 或（0.6）`task_dir`（任务文件目录）。' } },
  ],
  docs: [
    { cls: 'Config', key: 'ray_namespace', doc: { en: 'Ray namespace; empty means `<project>/<group>/<name>` (empty parts left out; 0.5 used `<project>/<name>`), which lets the explorer and trainer processes of one job find each other.', zh: 'Ray 命名空间；为空时为 `<project>/<group>/<name>`（省略空段；0.5 为 `<project>/<name>`），同一作业的探索器与训练器进程借此互相发现。' } },
  ],
  registries: {
    algorithm: {
      cpt: doc('Continued pre-training on plain text.', '纯文本上的继续预训练。'),
      m2po: doc('M2PO: second-moment trust-region policy optimisation for stale (off-policy) data.', 'M2PO：面向陈旧（离策略）数据的二阶矩信赖域策略优化。'),
      dapo: doc('DAPO: decoupled clipping and dynamic sampling.', 'DAPO：解耦裁剪与动态采样。'),
      gigpo: doc('GiGPO: group-in-group advantages for multi-step agents.', 'GiGPO：面向多步智能体的组中组优势。'),
    },
    // used by upstream's 0.6 example examples/dapo_math/dapo.yaml (agentscope-ai f3a19856)
    experience_operator: {
      mask_response_truncated: doc('Mask responses cut off at max_response_tokens.', '屏蔽在 max_response_tokens 处被截断的回复。'),
      dapo_dynamic_sampling: doc('DAPO dynamic sampling: drop groups whose rewards are all equal.', 'DAPO 动态采样：丢弃奖励全部相同的组。'),
    },
    policy_loss_fn: { m2po: doc('M2PO loss (second-moment masking).', 'M2PO 损失（二阶矩掩码）。') },
    advantage_fn: { gigpo: doc('GiGPO step- and episode-level group advantages.', 'GiGPO 步级与回合级组优势。') },
    workflow: {
      intercode_sql_workflow: doc('InterCode SQL agent.', 'InterCode SQL 智能体。'),
      thinking_budget_workflow: doc('Math with a thinking-token budget.', '带思考 token 预算的数学题。'),
    },
    reward_fn: {
      openjudge_reward: doc('Reward from an OpenJudge grader.', '来自 OpenJudge 评分器的奖励。'),
      openjudge_multi_grader_reward: doc('Reward combining several OpenJudge graders.', '组合多个 OpenJudge 评分器的奖励。'),
      openjudge_trajectory_accuracy_reward: doc('OpenJudge trajectory accuracy.', 'OpenJudge 轨迹准确率。'),
      trajectory_accuracy_grader_reward: doc('Trajectory accuracy grader.', '轨迹准确率评分器。'),
      rlcr_reward: doc('RLCR: correctness plus calibrated confidence (#611).', 'RLCR：正确性加校准置信度（#611）。'),
    },
  },
  registryDocs: {
    reward_fn: { rm_gallery_reward: doc('Reward from RM-Gallery (0.6: served by OpenJudge).', '来自 RM-Gallery 的奖励（0.6：由 OpenJudge 提供）。') },
  },
  env: {
    TRINITY_MAX_EXP_SIZE: doc('Upper bound on the size of one serialized experience (0.6).', '单条序列化经验的大小上限（0.6）。'),
  },
};
