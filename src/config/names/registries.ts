// Names Trinity-RFT 0.5.2 registers out of the box (its registries'
// `__init__.py` files; checked against the
// `default_mapping` of each registry at 9051d637), with a one-line doc each, plus the names
// later releases add (../facts/trinity-0.6.ts …; `NAME_SINCE` says which release). Plugins and
// dotted class paths add names, so an unknown name is a warning, never an error.
import { doc, type Doc } from '../core/l10n-text';
import { TRINITY_DELTAS } from '../facts/releases';

export type RegistryId =
  | 'algorithm'
  | 'workflow'
  | 'reward_fn'
  | 'advantage_fn'
  | 'policy_loss_fn'
  | 'kl_fn'
  | 'entropy_loss_fn'
  | 'sample_strategy'
  | 'monitor'
  | 'selector'
  | 'priority_fn'
  | 'experience_operator';

export interface RegistryInfo {
  /** The Python registry object (what `@X.register_module` uses). */
  pyName: string;
  title: Doc;
  names: Record<string, Doc>;
}

const m = doc;

export const REGISTRIES: Record<RegistryId, RegistryInfo> = {
  algorithm: {
    pyName: 'ALGORITHM_TYPE',
    title: m('algorithm type', '算法类型'),
    names: {
      sft: m('Supervised fine-tuning; mode `train` only, needs an experience_buffer path.', '监督微调；仅 `train` 模式，需要 experience_buffer 的 path。'),
      ppo: m('PPO with a critic (GAE advantages computed in the trainer).', '带 critic 的 PPO（在训练器中计算 GAE 优势）。'),
      grpo: m('GRPO: group-relative advantages over `repeat_times` rollouts per task.', 'GRPO：基于每个任务 `repeat_times` 次 rollout 的组内相对优势。'),
      reinforceplusplus: m('REINFORCE++ (advantages in the trainer).', 'REINFORCE++（在训练器中计算优势）。'),
      rloo: m('REINFORCE leave-one-out.', 'REINFORCE 留一法（RLOO）。'),
      opmd: m('Online policy mirror descent.', '在线策略镜像下降（OPMD）。'),
      asymre: m('Asymmetric REINFORCE (no reference model).', '非对称 REINFORCE（无参考模型）。'),
      dpo: m('Direct preference optimisation; mode `train` only, repeat_times 2.', '直接偏好优化；仅 `train` 模式，repeat_times 为 2。'),
      topr: m('Tapered off-policy REINFORCE.', '渐缩离策略 REINFORCE（TOPR）。'),
      cispo: m('CISPO: clipped importance-sampling policy optimisation.', 'CISPO：裁剪重要性采样策略优化。'),
      gspo: m('GSPO: sequence-level clipping.', 'GSPO：序列级裁剪。'),
      sapo: m('SAPO: soft adaptive policy optimisation.', 'SAPO：软自适应策略优化。'),
      mix: m('RL mixed with an SFT dataset (`auxiliary_buffers.sft_dataset`).', '与 SFT 数据集混合的 RL（`auxiliary_buffers.sft_dataset`）。'),
      mix_chord: m('CHORD: RL mixed with SFT via a dynamic weight.', 'CHORD：以动态权重混合 RL 与 SFT。'),
      raft: m('RAFT: reward-ranked fine-tuning.', 'RAFT：奖励排序微调。'),
      sppo: m('SPPO.', 'SPPO。'),
      rec: m('REC family of off-policy algorithms.', 'REC 系列离策略算法。'),
      multi_step_grpo: m('GRPO for multi-step agents (step-wise advantages).', '面向多步智能体的 GRPO（步级优势）。'),
      on_policy_distill: m('On-policy distillation from a teacher (auxiliary model).', '基于教师模型（辅助模型）的在策略蒸馏。'),
      jsd: m('On-policy distillation with a JSD loss.', '使用 JSD 损失的在策略蒸馏。'),
      grpo_verl: m('GRPO with advantages computed in veRL.', '在 veRL 中计算优势的 GRPO。'),
    },
  },
  workflow: {
    pyName: 'WORKFLOWS',
    title: m('workflow', '工作流'),
    names: {
      simple_workflow: m('Single-turn chat, reward from the reward function.', '单轮对话，奖励来自奖励函数。'),
      async_simple_workflow: m('Async `simple_workflow`.', '异步版 `simple_workflow`。'),
      math_workflow: m('Math problems (GSM8K-style), `math_reward`.', '数学题（GSM8K 风格），使用 `math_reward`。'),
      async_math_workflow: m('Async `math_workflow`.', '异步版 `math_workflow`。'),
      math_boxed_workflow: m('Math with a `\\boxed{}` answer.', '答案放在 `\\boxed{}` 中的数学题。'),
      async_math_boxed_workflow: m('Async `math_boxed_workflow`.', '异步版 `math_boxed_workflow`。'),
      math_eval_workflow: m('Math evaluation.', '数学评测。'),
      async_math_eval_workflow: m('Async `math_eval_workflow`.', '异步版 `math_eval_workflow`。'),
      math_rm_workflow: m('Math with a reward model.', '使用奖励模型的数学题。'),
      async_math_rm_workflow: m('Async `math_rm_workflow`.', '异步版 `math_rm_workflow`。'),
      tool_call_workflow: m('Tool calling (ToolACE-style data).', '工具调用（ToolACE 风格数据）。'),
      agentscope_workflow_adapter: m('Deprecated AgentScope adapter (agentscope 1.0.7–1.0.11).', '已弃用的 AgentScope 适配器（agentscope 1.0.7–1.0.11）。'),
      agentscope_workflow_adapter_v1: m(
        'AgentScope ≥ 1.0.12 adapter (`workflow_args.workflow_func` / `judge_func`).',
        'AgentScope ≥ 1.0.12 适配器（`workflow_args.workflow_func` / `judge_func`）。',
      ),
      agentscope_react_workflow: m(
        'AgentScope ReAct agent (`workflow_args.type` picks a template).',
        'AgentScope ReAct 智能体（`workflow_args.type` 选择模板）。',
      ),
      as_react_workflow: m('Alias of `agentscope_react_workflow`.', '`agentscope_react_workflow` 的别名。'),
      agentscope_react_math_workflow: m('AgentScope ReAct math agent.', 'AgentScope ReAct 数学智能体。'),
      agentscopev0_react_math_workflow: m('AgentScope v0 ReAct math agent.', 'AgentScope v0 ReAct 数学智能体。'),
      agentscope_v1_react_search_workflow: m('AgentScope v1 ReAct web-search agent.', 'AgentScope v1 ReAct 网页搜索智能体。'),
      email_search_workflow: m('Email-search ReAct agent.', '邮件搜索 ReAct 智能体。'),
      alfworld_workflow: m('ALFWorld, concatenated multi-turn.', 'ALFWorld，拼接式多轮。'),
      RAFT_alfworld_workflow: m('ALFWorld for RAFT.', '用于 RAFT 的 ALFWorld。'),
      RAFT_reflect_alfworld_workflow: m('ALFWorld with reflection for RAFT.', '用于 RAFT 的带反思 ALFWorld。'),
      frozen_lake_workflow: m('FrozenLake grid world.', 'FrozenLake 网格世界。'),
      sciworld_workflow: m('ScienceWorld.', 'ScienceWorld 环境。'),
      webshop_workflow: m('WebShop.', 'WebShop 环境。'),
      step_wise_alfworld_workflow: m('ALFWorld, general multi-step (one experience per step).', 'ALFWorld，通用多步（每步一条经验）。'),
      async_math_ruler_workflow: m('Async math with a RULER judge.', '使用 RULER 评判的异步数学题。'),
      math_ruler_workflow: m('Math with a RULER judge.', '使用 RULER 评判的数学题。'),
      math_trainable_ruler_workflow: m('Math with a trainable RULER judge.', '使用可训练 RULER 评判的数学题。'),
      rubric_judge_workflow: m('Rubric-as-reward judge.', '以评分细则为奖励的评判。'),
      rubric_judge_openai_workflow: m('Rubric judge through an OpenAI client.', '通过 OpenAI 客户端的评分细则评判。'),
      simple_mm_workflow: m('Single-turn multimodal.', '单轮多模态。'),
      async_simple_mm_workflow: m('Async single-turn multimodal.', '异步单轮多模态。'),
      on_policy_distill_workflow: m('On-policy distillation.', '在策略蒸馏。'),
      on_policy_distill_math_workflow: m('On-policy distillation on math.', '数学题上的在策略蒸馏。'),
      sudoku_workflow: m('Sudoku.', '数独。'),
    },
  },
  reward_fn: {
    pyName: 'REWARD_FUNCTIONS',
    title: m('reward function', '奖励函数'),
    names: {
      rm_gallery_reward: m('Reward from RM-Gallery.', '来自 RM-Gallery 的奖励。'),
      math_reward: m('Math answer accuracy + format score.', '数学答案准确率 + 格式分。'),
      math_boxed_reward: m('Accuracy of a `\\boxed{}` answer + format score.', '`\\boxed{}` 答案准确率 + 格式分。'),
      format_reward: m('Format score only.', '仅格式分。'),
      countdown_reward: m('Countdown puzzle reward.', 'Countdown 谜题奖励。'),
      accuracy_reward: m('Exact-match accuracy.', '精确匹配准确率。'),
      math_dapo_reward: m('DAPO math reward.', 'DAPO 数学奖励。'),
    },
  },
  advantage_fn: {
    pyName: 'ADVANTAGE_FN',
    title: m('advantage function', '优势函数'),
    names: {
      ppo: m('GAE (args: gamma, lam).', 'GAE（参数：gamma、lam）。'),
      grpo: m('Group-normalised rewards (args: epsilon, std_threshold, std_cal_level…).', '组内归一化奖励（参数：epsilon、std_threshold、std_cal_level 等）。'),
      grpo_verl: m('GRPO advantages computed in veRL.', '在 veRL 中计算的 GRPO 优势。'),
      step_wise_grpo: m('GRPO over multi-step episodes.', '多步 episode 上的 GRPO。'),
      reinforceplusplus: m('REINFORCE++ (arg: gamma).', 'REINFORCE++（参数：gamma）。'),
      reinforce: m('Plain REINFORCE.', '普通 REINFORCE。'),
      remax: m('ReMax baseline.', 'ReMax 基线。'),
      rloo: m('Leave-one-out baseline.', '留一法基线。'),
      opmd: m('OPMD baseline (args: opmd_baseline, tau).', 'OPMD 基线（参数：opmd_baseline、tau）。'),
      opmd_verl: m('OPMD computed in veRL.', '在 veRL 中计算的 OPMD。'),
      asymre: m('AsymRE (arg: baseline_shift).', 'AsymRE（参数：baseline_shift）。'),
      asymre_verl: m('AsymRE computed in veRL.', '在 veRL 中计算的 AsymRE。'),
      rec: m('REC advantages.', 'REC 优势。'),
      on_policy_distill: m('Distillation advantages (arg: kl_coef).', '蒸馏优势（参数：kl_coef）。'),
      jsd: m('JSD distillation advantages.', 'JSD 蒸馏优势。'),
      clipb: m('Clip-B entropy control.', 'Clip-B 熵控制。'),
      clipv: m('Clip-V entropy control.', 'Clip-V 熵控制。'),
    },
  },
  policy_loss_fn: {
    pyName: 'POLICY_LOSS_FN',
    title: m('policy loss', '策略损失'),
    names: {
      ppo: m('Clipped PPO loss (args: clip_range, clip_ratio_c, loss_agg_mode…).', '裁剪 PPO 损失（参数：clip_range、clip_ratio_c、loss_agg_mode 等）。'),
      opmd: m('OPMD loss (arg: tau).', 'OPMD 损失（参数：tau）。'),
      dpo: m('DPO loss (args: beta, label_smoothing).', 'DPO 损失（参数：beta、label_smoothing）。'),
      sft: m('Cross-entropy SFT loss.', '交叉熵 SFT 损失。'),
      mix: m('RL + SFT mix (arg: mu).', 'RL + SFT 混合（参数：mu）。'),
      gspo: m('GSPO sequence-level loss.', 'GSPO 序列级损失。'),
      topr: m('TOPR loss.', 'TOPR 损失。'),
      cispo: m('CISPO loss.', 'CISPO 损失。'),
      sft_is: m('SFT with importance sampling.', '带重要性采样的 SFT。'),
      sft_phi: m('SFT with a phi cutoff.', '带 phi 截断的 SFT。'),
      mix_chord: m('CHORD mixed loss.', 'CHORD 混合损失。'),
      sppo: m('SPPO loss.', 'SPPO 损失。'),
      rec: m('REC loss.', 'REC 损失。'),
      sapo: m('SAPO loss.', 'SAPO 损失。'),
      importance_sampling: m('Importance-sampling loss.', '重要性采样损失。'),
    },
  },
  kl_fn: {
    pyName: 'KL_FN',
    title: m('KL function', 'KL 函数'),
    names: {
      none: m('No KL term.', '不使用 KL 项。'),
      k1: m('k1 estimator.', 'k1 估计。'),
      k2: m('k2 estimator.', 'k2 估计。'),
      k3: m('k3 estimator.', 'k3 估计。'),
      low_var_kl: m('Low-variance KL.', '低方差 KL。'),
      abs: m('Absolute difference.', '绝对差。'),
      corrected_k3: m('Corrected k3 estimator.', '修正的 k3 估计。'),
    },
  },
  entropy_loss_fn: {
    pyName: 'ENTROPY_LOSS_FN',
    title: m('entropy loss', '熵损失'),
    names: {
      default: m('Entropy bonus (arg: entropy_coef).', '熵奖励（参数：entropy_coef）。'),
      mix: m('Entropy for mix algorithms.', '用于 mix 算法的熵。'),
      none: m('No entropy term.', '不使用熵项。'),
    },
  },
  sample_strategy: {
    pyName: 'SAMPLE_STRATEGY',
    title: m('sample strategy', '采样策略'),
    names: {
      default: m('Read experiences in order.', '按顺序读取经验。'),
      warmup: m('Deprecated alias of `default`.', '`default` 的已弃用别名。'),
      staleness_control: m('Drop experiences older than `max_staleness` versions.', '丢弃比 `max_staleness` 更旧版本的经验。'),
      mix: m(
        'Mix experiences with SFT data (args: expert_data_ratio, sft_dataset_name).',
        '将经验与 SFT 数据混合（参数：expert_data_ratio、sft_dataset_name）。',
      ),
    },
  },
  monitor: {
    pyName: 'MONITOR',
    title: m('monitor', '监控器'),
    names: {
      tensorboard: m('TensorBoard event files under `<job_dir>/monitor/tensorboard`.', '写入 `<job_dir>/monitor/tensorboard` 的 TensorBoard 事件文件。'),
      wandb: m('Weights & Biases.', 'Weights & Biases。'),
      mlflow: m('MLflow (arg: uri).', 'MLflow（参数：uri）。'),
      swanlab: m('SwanLab (needs `SWANLAB_API_KEY`).', 'SwanLab（需要 `SWANLAB_API_KEY`）。'),
    },
  },
  selector: {
    pyName: 'SELECTORS',
    title: m('data selector', '数据选择器'),
    names: {
      sequential: m('Tasks in dataset order.', '按数据集顺序取任务。'),
      shuffle: m('Shuffled each epoch.', '每轮打乱。'),
      random: m('Random sampling.', '随机采样。'),
      offline_easy2hard: m('Easy-to-hard curriculum from offline scores.', '基于离线分数的由易到难课程。'),
      difficulty_based: m('Adaptive difficulty-based selection.', '基于难度的自适应选择。'),
    },
  },
  priority_fn: {
    pyName: 'PRIORITY_FUNC',
    title: m('replay priority function', '回放优先级函数'),
    names: {
      linear_decay: m('Priority decays linearly with use (arg: decay).', '优先级随使用次数线性衰减（参数：decay）。'),
      decay_limit_randomization: m(
        'Decay with a use-count limit and noise (args: decay, use_count_limit, sigma).',
        '带使用次数上限与噪声的衰减（参数：decay、use_count_limit、sigma）。',
      ),
    },
  },
  experience_operator: {
    pyName: 'EXPERIENCE_OPERATORS',
    title: m('experience operator', '经验算子'),
    names: {
      reward_filter: m('Drop experiences by reward.', '按奖励过滤经验。'),
      reward_std_filter: m('Drop groups with low reward std.', '丢弃奖励标准差过低的组。'),
      reward_shaping_mapper: m('Reshape rewards.', '重塑奖励。'),
      pass_rate_calculator: m('Compute pass rates.', '计算通过率。'),
      data_juicer: m('Apply Data-Juicer ops through the DJ service.', '通过 DJ 服务应用 Data-Juicer 算子。'),
      invalid_reward_filter: m('Drop experiences with invalid rewards.', '丢弃奖励无效的经验。'),
    },
  },
};

/** Names added after the 0.5 line: registry → name → first release that has it. */
export const NAME_SINCE: Partial<Record<RegistryId, Record<string, string>>> = {};
for (const d of TRINITY_DELTAS) {
  for (const [reg, names] of Object.entries(d.registries)) {
    const info = REGISTRIES[reg as RegistryId];
    if (!info) throw new Error(`release ${d.version}: unknown registry ${reg}`);
    for (const [name, doc] of Object.entries(names)) {
      info.names[name] = doc;
      (NAME_SINCE[reg as RegistryId] ??= {})[name] = d.version;
    }
  }
  for (const [reg, names] of Object.entries(d.registryDocs ?? {})) Object.assign(REGISTRIES[reg as RegistryId].names, names);
}

/** Registry objects → id, for scanning `@WORKFLOWS.register_module("x")` in user code. */
export const REGISTRY_BY_PY: Record<string, RegistryId> = Object.fromEntries(Object.entries(REGISTRIES).map(([id, r]) => [r.pyName, id as RegistryId]));

/** Names that plugins of the agent frameworks register inside Trinity. */
export const AGENT_PLUGIN_NAMES: Partial<Record<'astuner' | 'ajet', { workflow: string[]; storage: string[]; monitor: string[] }>> = {
  astuner: { workflow: ['astuner_workflow'], storage: ['astuner'], monitor: ['swanlab'] },
  ajet: { workflow: ['ajet_workflow'], storage: ['ajet'], monitor: ['swanlab'] },
};
