// Keys that moved between releases, as data. Trinity-RFT's per-release key sets come from the
// schema (`x-since` on current keys, `x-removed-keys` for keys later removed — both derived
// from trinity/common/config.py at each release tag); the renames below were read off the
// commits that removed the old names. ASTuner → AgentJet renames are from
// AgentJet's default config (ajet_default.yaml) against ASTuner's (astune_default.yaml).
// schema/version-findings.ts turns them into `version.*` findings.
import type { ConfigKind } from '../../feature-api/config-checker';
import { l10n, type Text } from '../core/l10n-text';

export interface Rename {
  /** Dataclass (x-class) holding the key. */
  cls: string;
  from: string;
  /** New key in the same section; absent when the setting moved elsewhere. */
  to?: string;
  /** First release where `from` is gone (or never existed: docs). */
  since: string;
  note: Text;
}

export const TRINITY_RENAMES: Rename[] = [
  {
    cls: 'InferenceModelConfig',
    from: 'enable_openai_client',
    to: 'enable_openai_api',
    since: '0.1.1',
    note: l10n.t('the name used in early docs; the key has always been `enable_openai_api`'),
  },
  { cls: 'TrainerConfig', from: 'actor_grad_clip', to: 'grad_clip', since: '0.3.2', note: l10n.t('renamed to `grad_clip`') },
  { cls: 'ExplorerConfig', from: 'api_port', to: 'proxy_port', since: '0.4.0', note: l10n.t('renamed to `proxy_port`') },
  {
    cls: 'ExplorerConfig',
    from: 'eval_on_latest_checkpoint',
    to: 'bench_on_latest_checkpoint',
    since: '0.2.0',
    note: l10n.t('renamed to `bench_on_latest_checkpoint`'),
  },
  { cls: 'OptimizerConfig', from: 'lr_decay_style', to: 'lr_scheduler_type', since: '0.5.0', note: l10n.t('replaced by `lr_scheduler_type`') },
  { cls: 'BufferConfig', from: 'read_batch_size', to: 'train_batch_size', since: '0.3.0', note: l10n.t('replaced by `train_batch_size`') },
  { cls: 'AlgorithmConfig', from: 'use_token_level_loss', since: '0.4.0', note: l10n.t('replaced by `loss_agg_mode` (`token-mean` for true)') },
  { cls: 'ExplorerInput', from: 'system_prompt', since: '0.3.2', note: l10n.t("moved to each taskset's `format.system_prompt`") },
  { cls: 'ExplorerInput', from: 'reply_prefix', since: '0.3.2', note: l10n.t("moved to each taskset's `format.reply_prefix`") },
  { cls: 'TrainerInput', from: 'sft_warmup_dataset', since: '0.3.2', note: l10n.t('replaced by `stages` (an SFT stage before RFT)') },
  { cls: 'TrainerInput', from: 'sft_warmup_steps', since: '0.3.2', note: l10n.t('replaced by `stages` (an SFT stage before RFT)') },
  ...['TasksetConfig', 'ExperienceBufferConfig'].flatMap((cls) => [
    { cls, from: 'use_priority_queue', since: '0.3.2', note: l10n.t('moved to `replay_buffer.enable`') },
    { cls, from: 'reuse_cooldown_time', since: '0.3.2', note: l10n.t('moved to `replay_buffer.reuse_cooldown_time`') },
    { cls, from: 'replay_buffer_kwargs', since: '0.3.2', note: l10n.t('moved to `replay_buffer.priority_fn_args`') },
  ]),
];

export interface AstunerRename {
  /** Path below the root key (`rollout.agentscope_workflow`). */
  path: string;
  /** The name in the other release line. */
  other: string;
  /** Which kind uses `path` (the other kind uses `other`). */
  kind: ConfigKind;
}

/** ASTuner (`astuner:`) ↔ AgentJet (`ajet:`) key renames. */
export const AGENT_RENAMES: AstunerRename[] = [
  { path: 'rollout.agentscope_workflow', other: 'user_workflow', kind: 'astuner' },
  { path: 'rollout.agentscope_disable_toolcalls', other: 'force_disable_toolcalls', kind: 'astuner' },
];

/** Legacy ASTuner keys (before commit F) with their replacement. */
export const AGENT_LEGACY: { path: string; to?: string; note: Text }[] = [
  { path: 'trainer_common.trinity_only__n_vllm_engine', to: 'rollout.n_vllm_engine', note: l10n.t('replaced by `rollout.n_vllm_engine` on 2025-12-01') },
  { path: 'rollout.use_agentscope_protocol', note: l10n.t('removed on 2025-12-19: set `rollout.agentscope_workflow` / `user_workflow` instead') },
  { path: 'rollout.agentscope_learn_protocol', note: l10n.t('removed on 2025-12-19: set `rollout.agentscope_workflow` / `user_workflow` instead') },
  { path: 'task_reader.dataset_file', to: 'task_reader.jsonl_dataset_file', note: l10n.t('renamed `jsonl_dataset_file` on 2025-12-18') },
];
