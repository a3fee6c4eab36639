// What Trinity-RFT 0.6.0 (June 2026) changed against 0.5.2 — only the differences; the 0.5
// line is src/config/facts/trinity-0.5.schema.json. Field by field, this is the union of both
// stored 0.6-era lines of trinity/common/config.py (TRINITY_LINES in field-at.ts:
// pan-x-c/Trinity-RFT @ 0ccf77cf and agentscope-ai/Trinity-RFT @ 1d7fae4a), with
// trinity/common/constants.py @ ea070931 and trinity/trainer/verl_legacy/verl_config.py
// @ f3c8dec6; a key one line lacks carries `x-only-in`, a default the lines disagree on
// `x-default-by`. A component test (test/component/config/facts.test.ts)
// reads those files from ../shared with Python's `ast` and fails on any field, type, default,
// nested class or registry name that differs — so this file is checked, not trusted.
// Registry names: the union of the stored versions of each registry file (the test names the
// ones outside ../shared). `monitor.shared_run` and `optimizer.fused` / `foreach` are in no
// stored config.py but are read by the stored trinity/utils/monitor.py and documented in
// Trinity's configuration guide; they carry `x-upstream-elsewhere`.
import { doc } from '../core/l10n-text';
import type { ReleaseDelta } from './release-delta';
import { TRINITY_LINES } from './field-at';
import { boolField, classDef, classRef, enumField, intField, mapField, strField } from './nodes';

const dnsNote = { en: 'Do not set: Trinity computes it', zh: '请勿设置：由 Trinity 计算' };
const dns = (en: string, zh: string) => ({ en: `${dnsNote.en}: ${en}`, zh: `${dnsNote.zh}：${zh}` });
const [LINE_A, LINE_B] = TRINITY_LINES['0.6.0'].map((l) => l.id); // pan-x-c@0ccf77cf, agentscope-ai@1d7fae4a
const monitorPy = 'read by trinity/utils/monitor.py (pan-x-c/Trinity-RFT) and documented in trinity_configs.md; in neither stored config.py line';

export const TRINITY_0_6: ReleaseDelta = {
  version: '0.6.0',
  classes: {
    MegatronParallelConfig: classDef(
      'MegatronParallelConfig',
      doc('Megatron-Core parallelism of the trainer (`trainer_strategy: megatron`).', '训练器的 Megatron-Core 并行设置（`trainer_strategy: megatron`）。'),
      {
        tensor_model_parallel_size: intField(doc('Tensor-parallel size of the trainer model.', '训练模型的张量并行大小。'), 1),
        pipeline_model_parallel_size: intField(doc('Pipeline-parallel stages of the trainer model.', '训练模型的流水线并行级数。'), 1),
        virtual_pipeline_model_parallel_size: intField(
          doc('Virtual pipeline stages per rank (interleaved schedule); null: off.', '每个 rank 的虚拟流水线级数（交错调度）；null 表示关闭。'),
          null,
        ),
        expert_model_parallel_size: intField(doc('Expert-parallel size (MoE models).', '专家并行大小（MoE 模型）。'), 1),
        expert_tensor_parallel_size: intField(
          doc(
            'Tensor-parallel size inside each expert; null: the same as tensor_model_parallel_size.',
            '每个专家内部的张量并行大小；null 表示与 tensor_model_parallel_size 相同。',
          ),
          null,
        ),
        context_parallel_size: intField(
          doc(
            'Context-parallel size; with Megatron it also divides the default max_token_len_per_gpu.',
            '上下文并行大小；使用 Megatron 时默认 max_token_len_per_gpu 也按它划分。',
          ),
          1,
        ),
        sequence_parallel: boolField(doc('Megatron sequence parallelism (with tensor parallelism).', 'Megatron 序列并行（配合张量并行）。'), true),
      },
    ),
    CoDConfig: classDef(
      'CoDConfig',
      doc('CoD task packing (experimental; only in agentscope-ai@1d7fae4a).', 'CoD 任务打包（实验性；仅 agentscope-ai@1d7fae4a 有）。'),
      {
        task_pack_size: intField(doc('Original tasks packed into one task.', '打包进一个任务的原始任务数。'), 4),
        eval_task_pack_size: intField(
          doc('Tasks packed into one evaluation task; null: task_pack_size.', '打包进一个评测任务的任务数；null 表示同 task_pack_size。'),
          null,
        ),
        packing_strategy: strField(doc('How tasks are packed.', '任务打包方式。'), 'cod'),
        cod_workflow_args: mapField(doc('Arguments of the CoD workflow (log_dir, exp_name…).', 'CoD 工作流的参数（log_dir、exp_name 等）。'), {}),
      },
    ),
    'verl.TiledMlpConfig': classDef(
      'TiledMlpConfig',
      doc('Tiled MLP of veRL (less activation memory for long sequences).', 'veRL 的分块 MLP（长序列下减少激活显存）。'),
      {
        enable: boolField(doc('Compute the MLP in tiles.', '分块计算 MLP。'), false),
        num_shards: intField(doc('Number of tiles.', '分块数。'), 4),
      },
    ),
  },
  keys: {
    Config: {
      cod: classRef('CoDConfig', { description: 'CoD task packing (experimental).', 'x-zh': 'CoD 任务打包（实验性）。', 'x-only-in': [LINE_B] }),
    },
    InferenceModelConfig: {
      data_parallel_size: intField(
        {
          en: 'Data-parallel replicas inside one engine; GPUs per engine = data_parallel_size × tensor_parallel_size × pipeline_parallel_size. vLLM keeps DP on one node; SGLang needs tensor_parallel_size divisible by it.',
          zh: '单个引擎内的数据并行副本数；每个引擎的 GPU 数 = data_parallel_size × tensor_parallel_size × pipeline_parallel_size。vLLM 的数据并行只能在单节点内；SGLang 要求 tensor_parallel_size 能被它整除。',
        },
        1,
      ),
      pipeline_parallel_size: intField(
        {
          en: 'Pipeline-parallel stages of one engine (counts in GPUs per engine = DP × TP × PP).',
          zh: '单个引擎的流水线并行级数（计入每个引擎的 GPU 数 = DP × TP × PP）。',
        },
        1,
      ),
      enable_expert_parallel: boolField(doc('Expert parallelism in the inference engine (MoE models).', '推理引擎中的专家并行（MoE 模型）。'), false),
      nnodes: intField(
        dns(
          'nodes one engine spans (GPUs per engine ÷ cluster.gpu_per_node when an engine is larger than a node).',
          '单个引擎跨越的节点数（引擎大于一个节点时为每引擎 GPU 数 ÷ cluster.gpu_per_node）。',
        ),
        1,
        { 'x-doNotSet': true },
      ),
      gpu_per_engine: intField(
        dns('data_parallel_size × tensor_parallel_size × pipeline_parallel_size.', 'data_parallel_size × tensor_parallel_size × pipeline_parallel_size。'),
        0,
        { 'x-doNotSet': true },
      ),
      extra_engine_args: mapField(
        doc('Extra keyword arguments for the inference engine (vLLM / SGLang) at start-up.', '推理引擎（vLLM / SGLang）启动时的额外参数。'),
        {},
      ),
      enable_multimodal: boolField(doc('Serve a multimodal model (images / video in the prompts).', '提供多模态模型服务（提示中含图像 / 视频）。'), false),
      base_port: intField(doc("First port of the engine's servers; null: any free port.", '引擎服务的起始端口；null 表示任意空闲端口。'), null),
      api_key: strField(doc("API key the engine's OpenAI server expects from workflows.", '引擎的 OpenAI 服务要求工作流提供的 API 密钥。'), 'EMPTY'),
      node_rank: intField(dns('rank of the node within a multi-node engine.', '多节点引擎中本节点的序号。'), 0, { 'x-doNotSet': true }),
      enable_return_routed_experts: boolField(dns('copied from `algorithm.enable_router_replay`.', '从 `algorithm.enable_router_replay` 复制。'), false, {
        'x-doNotSet': true,
      }),
      weight_sync_buffer_size: intField(
        doc(
          'Buffer (MB) for batched NCCL weight sync; bounds the GPU memory a sync takes.',
          'NCCL 批量权重同步的缓冲区大小（MB）；限制同步时占用的 GPU 显存。',
        ),
        1024,
      ),
      engine_id: intField(dns('index of the engine.', '引擎序号。'), 0, { 'x-doNotSet': true }),
      ray_actor_name: strField(dns("name of the engine's Ray actor.", '引擎的 Ray actor 名。'), null, { 'x-doNotSet': true }),
      sync_method: enumField(
        dns('copied from `synchronizer.sync_method`.', '从 `synchronizer.sync_method` 复制。'),
        ['nccl', 'checkpoint', 'memory', 'hccl'],
        { online: 'nccl', offline: 'checkpoint' },
        null,
        { 'x-doNotSet': true },
      ),
      checkpoint_job_dir: strField(dns('copied from `checkpoint_job_dir`.', '从 `checkpoint_job_dir` 复制。'), null, { 'x-doNotSet': true }),
    },
    ExplorerConfig: {
      mode: strField(dns('copied from `mode` (only in agentscope-ai@1d7fae4a).', '从 `mode` 复制（仅 agentscope-ai@1d7fae4a 有）。'), 'both', {
        'x-doNotSet': true,
        'x-only-in': [LINE_B],
      }),
      runner_prepare_concurrency: intField(
        {
          en: 'At most this many workflow runners prepare at once (works around a start-up crash, issue #567).',
          zh: '同时准备的工作流 runner 数上限（规避启动崩溃，issue #567）。',
        },
        128,
        { 'x-default-by': { [LINE_A]: 8, [LINE_B]: 128 } },
      ),
      runner_prepare_max_retries: intField({ en: 'Retries of a runner prepare that crashed transiently.', zh: 'runner 准备阶段偶发崩溃时的重试次数。' }, 3, {
        'x-default-by': { [LINE_A]: 2, [LINE_B]: 3 },
      }),
      max_inflight_batches: intField({ en: 'Train batches the rollout coordinator may hold at once.', zh: 'rollout 协调器可同时持有的训练批次数。' }, 2),
    },
    OverRolloutConfig: {
      return_partial_tasks: boolField(
        {
          en: 'When over-rollout cleans up, return tasks of which only some runs finished; like `ratio` > 0 it needs a non-`fixed` sync style.',
          zh: '超量 rollout 清理时返回仅部分运行完成的任务；与 `ratio` > 0 一样需要非 `fixed` 的同步方式。',
        },
        false,
      ),
    },
    DynamicTimeoutConfig: {
      warmup_min_steps: intField({ en: 'Fully observed steps before the dynamic timeout applies.', zh: '动态超时生效前需完整观测的步数。' }, 1),
    },
    OptimizerConfig: {
      fused: boolField(
        {
          en: 'Use the fused optimizer implementation (torch `fused=`); null lets torch choose.',
          zh: '使用融合优化器实现（torch 的 `fused=`）；null 由 torch 决定。',
        },
        null,
        { 'x-upstream-elsewhere': 'documented in trinity_configs.md; in neither stored config.py line' },
      ),
      foreach: boolField(
        {
          en: 'Use the foreach optimizer implementation (torch `foreach=`); null lets torch choose.',
          zh: '使用 foreach 优化器实现（torch 的 `foreach=`）；null 由 torch 决定。',
        },
        null,
        { 'x-upstream-elsewhere': 'documented in trinity_configs.md; in neither stored config.py line' },
      ),
    },
    AlgorithmConfig: {
      // used by upstream's 0.6 example examples/m2po_gsm8k/explorer.yaml
      bypass_old_logprobs: boolField(
        {
          en: "Use the rollout log-probs as the old policy's instead of recomputing them in the trainer (M2PO requires true).",
          zh: '直接使用 rollout 的对数概率作为旧策略的对数概率，而不在训练器中重新计算（M2PO 要求为 true）。',
        },
        true,
      ),
      enable_router_replay: boolField(
        doc(
          'Rollout router replay for MoE models: the trainer routes tokens to the experts the rollout engine used.',
          'MoE 模型的 rollout 路由回放：训练器按 rollout 引擎使用的专家路由 token。',
        ),
        false,
      ),
      rollout_correction: mapField(
        doc(
          'Off-policy correction of rollouts (importance weights, rejection sampling): keys such as `bypass_mode`, `rollout_is`, `rollout_rs`; null: off.',
          'rollout 的离策略校正（重要性权重、拒绝采样）：如 `bypass_mode`、`rollout_is`、`rollout_rs` 等键；null 表示关闭。',
        ),
        null,
      ),
    },
    TrainerConfig: {
      use_remove_padding: boolField(
        doc('Pack sequences without padding in the trainer (verl `use_remove_padding`).', '训练器中去除填充、打包序列（verl 的 `use_remove_padding`）。'),
        true,
      ),
      balance_batch: boolField(doc('Balance tokens across trainer GPUs when splitting a batch.', '切分批次时在训练 GPU 间均衡 token 数。'), true),
      critic_warmup: intField(doc('Train only the critic for the first N steps (PPO).', '前 N 步只训练 critic（PPO）。'), 0),
      param_offload: boolField(doc('Offload trainer parameters to CPU.', '将训练器参数卸载到 CPU。'), false),
      optimizer_offload: boolField(doc('Offload optimizer states to CPU.', '将优化器状态卸载到 CPU。'), false),
      grad_offload: boolField(doc('Offload gradients to CPU (Megatron).', '将梯度卸载到 CPU（Megatron）。'), false),
      offload_policy: boolField(doc('FSDP2 CPU offload policy.', 'FSDP2 的 CPU 卸载策略。'), false),
      megatron: classRef('MegatronParallelConfig', {
        description: 'Megatron-Core parallel sizes (`trainer_strategy: megatron`).',
        'x-zh': 'Megatron-Core 并行大小（`trainer_strategy: megatron`）。',
      }),
      trust_remote_code: boolField(dns('copied from `model.trust_remote_code`.', '从 `model.trust_remote_code` 复制。'), false, { 'x-doNotSet': true }),
    },
    SynchronizerConfig: {
      explorer_sync_interval: intField(
        doc(
          'Explorer steps between weight syncs; null: sync_interval. `explorer.eval_interval` is rounded to a multiple of it.',
          '探索器两次权重同步之间的步数；null 表示同 sync_interval。`explorer.eval_interval` 会被调整为它的整数倍。',
        ),
        null,
      ),
      trainer_sync_interval: intField(
        doc('Trainer steps between weight syncs; null: sync_interval.', '训练器两次权重同步之间的步数；null 表示同 sync_interval。'),
        null,
      ),
      group_name: strField(doc('Name of the NCCL process group for weight sync.', '权重同步所用 NCCL 进程组的名称。'), 'rollout_weight_sync'),
    },
    MonitorConfig: {
      shared_run: boolField(
        {
          en: 'One wandb run for explorer and trainer: keys prefixed `explorer/` and `trainer/`, step axes bound in `<job_dir>/monitor/shared_step_bindings/<role>.json`.',
          zh: '探索器与训练器共用一个 wandb 运行：键带 `explorer/`、`trainer/` 前缀，步轴绑定写在 `<job_dir>/monitor/shared_step_bindings/<role>.json`。',
        },
        false,
        { 'x-upstream-elsewhere': monitorPy },
      ),
    },
    'verl.ActorModel': {
      tiled_mlp: classRef('verl.TiledMlpConfig', { description: 'Tiled MLP (long sequences).', 'x-zh': '分块 MLP（长序列）。' }),
    },
    'verl.Actor': {
      freeze_vision_tower: boolField(doc('Do not train the vision tower of a multimodal model.', '不训练多模态模型的视觉塔。'), false),
    },
    'verl.CriticModel': {
      freeze_vision_tower: boolField(doc('Do not train the vision tower of a multimodal critic.', '不训练多模态 critic 的视觉塔。'), false),
    },
  },
  changes: [
    {
      cls: 'Config',
      key: 'ray_namespace',
      doc: {
        en: 'Ray namespace; empty means `<project>/<group>/<name>` (empty parts left out; 0.5 used `<project>/<name>`), which lets the explorer and trainer processes of one job find each other.',
        zh: 'Ray 命名空间；为空时为 `<project>/<group>/<name>`（省略空段；0.5 为 `<project>/<name>`），同一作业的探索器与训练器进程借此互相发现。',
      },
    },
    { cls: 'ExplorerConfig', key: 'db_url', onlyIn: [LINE_B] },
    // pan-x-c@0ccf77cf's ExplorerConfigValidator forces both ("not user-settable")
    {
      cls: 'InferenceModelConfig',
      key: 'enable_history',
      doc: doc(
        'Record every chat/generate call (and OpenAI-client call) as an Experience. 0.6 (pan-x-c@0ccf77cf): forced on for the rollout model and off for auxiliary models, whatever is written.',
        '将每次 chat/generate 调用（及 OpenAI 客户端调用）记录为 Experience。0.6（pan-x-c@0ccf77cf）：rollout 模型强制开启、辅助模型强制关闭，写什么都会被覆盖。',
      ),
    },
    {
      cls: 'InferenceModelConfig',
      key: 'enable_openai_api',
      doc: doc(
        'Start an OpenAI-compatible server per engine (`model.get_openai_client()`); forced on in serve mode and for auxiliary models. 0.6 (pan-x-c@0ccf77cf): always on, a no-op kept for old configs.',
        '为每个引擎启动 OpenAI 兼容服务（`model.get_openai_client()`）；serve 模式和辅助模型强制开启。0.6（pan-x-c@0ccf77cf）：始终开启，仅为兼容旧配置而保留。',
      ),
    },
    { cls: 'TrainerConfig', key: 'trainer_strategy', default: 'fsdp2' },
    { cls: 'TrainerConfig', key: 'enable_preview', defaultBy: { [LINE_A]: false, [LINE_B]: true } },
    {
      cls: 'TrainerConfig',
      key: 'max_checkpoints_to_keep',
      default: 0,
      nullable: false,
      doc: doc(
        'Keep at most N checkpoints; 0 keeps all (0.6: no longer Optional, null is refused).',
        '最多保留 N 个检查点；0 表示全部保留（0.6：不再是 Optional，不接受 null）。',
      ),
    },
    { cls: 'InferenceModelConfig', key: 'lora_kwargs', nullable: false },
    {
      cls: 'verl.ActorModel',
      key: 'use_remove_padding',
      default: null,
      nullable: true,
      doc: doc('Remove padding; null: `trainer.use_remove_padding` (0.6).', '去除填充；null 表示取 `trainer.use_remove_padding`（0.6）。'),
    },
    {
      cls: 'verl.CriticModel',
      key: 'use_remove_padding',
      default: null,
      nullable: true,
      doc: doc('Remove padding; null: `trainer.use_remove_padding` (0.6).', '去除填充；null 表示取 `trainer.use_remove_padding`（0.6）。'),
    },
    {
      cls: 'verl._RewardModel',
      key: 'use_remove_padding',
      default: null,
      nullable: true,
      doc: doc('Remove padding; null: `trainer.use_remove_padding` (0.6).', '去除填充；null 表示取 `trainer.use_remove_padding`（0.6）。'),
    },
    { cls: 'verl.Actor', key: 'entropy_coeff', default: 0 },
    // config_validator.py: pan-x-c@0ccf77cf builds veRLConfig with build_dataclass_from_mapping
    // (dataclass_utils.py @ f3c8dec6: keys veRLConfig lacks are dropped); agentscope-ai@1c35a79b
    // merges into OmegaConf.structured(veRLConfig) (unknown keys are an error)
    {
      cls: 'TrainerConfig',
      key: 'trainer_config',
      extra: { 'x-unknown-ignored-since': '0.6.0', 'x-unknown-ignored-by': 'pan-x-c@0ccf77cf', 'x-unknown-rejected-by': 'agentscope-ai@1c35a79b' },
    },
    {
      cls: 'verl.FSDPConfig',
      key: 'wrap_policy',
      free: true,
      doc: doc(
        'FSDP auto-wrap policy, passed to veRL as is (e.g. `min_num_params`, `transformer_layer_cls_to_wrap`).',
        'FSDP 自动包装策略，原样传给 veRL（如 `min_num_params`、`transformer_layer_cls_to_wrap`）。',
      ),
    },
  ],
  values: [
    {
      cls: 'SynchronizerConfig',
      key: 'sync_style',
      add: ['fully_async'],
      doc: {
        en: '`fixed` (every `sync_interval` steps), `trainer_driven`, `explorer_driven` or (0.6) `fully_async` (weights stream while both sides keep running).',
        zh: '`fixed`（每 `sync_interval` 步）、`trainer_driven`、`explorer_driven` 或（0.6）`fully_async`（双方持续运行时同步权重）。',
      },
    },
    {
      cls: 'SynchronizerConfig',
      key: 'sync_method',
      add: ['hccl'],
      doc: {
        en: 'Weight sync: `nccl` (online), `checkpoint` (offline, via files), `memory` or (0.6, Ascend NPUs) `hccl`; case-insensitive.',
        zh: '权重同步方式：`nccl`（在线）、`checkpoint`（离线，经文件）、`memory` 或（0.6，昇腾 NPU）`hccl`；不区分大小写。',
      },
    },
    {
      cls: 'InferenceModelConfig',
      key: 'engine_type',
      add: ['sglang'],
      doc: {
        en: 'Engine: `vllm` (or a `vllm*` variant), `sglang` (0.6), `tinker` or `external`.',
        zh: '引擎：`vllm`（或 `vllm*` 变体）、`sglang`（0.6）、`tinker` 或 `external`。',
      },
    },
    {
      cls: 'TasksetConfig',
      key: 'storage_type',
      add: ['task_dir'],
      doc: {
        en: 'Where tasks are read from: `file` (HF dataset id or local jsonl/parquet), `sql`, or (0.6) `task_dir` (a directory of task files).',
        zh: '任务来源：`file`（HF 数据集 id 或本地 jsonl/parquet）、`sql` 或（0.6）`task_dir`（任务文件目录）。',
      },
    },
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
