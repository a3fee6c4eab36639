// The veRL under Trinity-RFT's trainer. From 0.6, Trinity runs either backend: with verl < 0.8
// (`is_verl_legacy()`, trinity/trainer/trainer.py) it merges `trainer.trainer_config` into the
// legacy veRLConfig (trinity/trainer/verl_legacy/verl_config.py); with verl ≥ 0.8 it never reads
// that block and builds veRL's config from Trinity-level keys alone
// (trinity/trainer/verl08/config.py, pan-x-c/Trinity-RFT @ 1044a111, build_verl_config). The
// table below is read off those builders: which Trinity key feeds a veRL setting a legacy
// `trainer_config` would have set (the verl08 test checks each Trinity key is in that file).

/** First verl release whose engine backend ignores `trainer.trainer_config`. */
export const VERL_ENGINE_SINCE = '0.8.0';

/** The Trinity release that can run verl ≥ 0.8 (0.5.2 pins verl==0.7.1). */
export const VERL_ENGINE_TRINITY = '0.6.0';

/** Legacy `trainer.trainer_config` paths (prefixes) → the Trinity key verl08/config.py reads instead. */
export const TRINITY_KEY_FOR_VERL: readonly (readonly [string, string])[] = [
  ['actor_rollout_ref.model.path', 'model.model_path'],
  ['actor_rollout_ref.model.trust_remote_code', 'model.trust_remote_code'],
  ['actor_rollout_ref.model.use_remove_padding', 'trainer.use_remove_padding'],
  ['actor_rollout_ref.model.custom_chat_template', 'model.custom_chat_template'],
  ['actor_rollout_ref.model.lora_rank', 'model.lora_configs'],
  ['actor_rollout_ref.model.lora_alpha', 'model.lora_configs'],
  ['actor_rollout_ref.model.target_modules', 'model.lora_configs'],
  ['actor_rollout_ref.model.exclude_modules', 'model.lora_configs'],
  ['actor_rollout_ref.actor.strategy', 'trainer.trainer_strategy'],
  ['actor_rollout_ref.actor.ppo_mini_batch_size', 'buffer.train_batch_size'],
  ['actor_rollout_ref.actor.use_dynamic_bsz', 'trainer.use_dynamic_bsz'],
  ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu', 'trainer.max_token_len_per_gpu'],
  ['actor_rollout_ref.actor.use_kl_loss', 'algorithm.kl_loss_fn'],
  ['actor_rollout_ref.actor.loss_agg_mode', 'algorithm.loss_agg_mode'],
  ['actor_rollout_ref.actor.grad_clip', 'trainer.grad_clip'],
  ['actor_rollout_ref.actor.ulysses_sequence_parallel_size', 'trainer.ulysses_sequence_parallel_size'],
  ['actor_rollout_ref.actor.policy_loss.rollout_correction', 'algorithm.rollout_correction'],
  ['actor_rollout_ref.actor.optim.lr_warmup_steps_ratio', 'algorithm.optimizer.lr_warmup_steps_ratio'],
  ['actor_rollout_ref.actor.optim.lr_warmup_steps', 'algorithm.optimizer.lr_warmup_steps'],
  ['actor_rollout_ref.actor.optim.lr_scheduler_type', 'algorithm.optimizer.lr_scheduler_type'],
  ['actor_rollout_ref.actor.optim.min_lr_ratio', 'algorithm.optimizer.min_lr_ratio'],
  ['actor_rollout_ref.actor.optim.weight_decay', 'algorithm.optimizer.weight_decay'],
  ['actor_rollout_ref.actor.optim.betas', 'algorithm.optimizer.betas'],
  ['actor_rollout_ref.actor.optim.clip_grad', 'algorithm.optimizer.clip_grad'],
  ['actor_rollout_ref.actor.optim.optimizer', 'algorithm.optimizer.optimizer_type'],
  ['actor_rollout_ref.actor.optim.lr', 'algorithm.optimizer.lr'],
  ['actor_rollout_ref.actor.optim.total_training_steps', 'trainer.total_steps'],
  ['actor_rollout_ref.rollout.n', 'algorithm.repeat_times'],
  ['actor_rollout_ref.rollout.log_prob_use_dynamic_bsz', 'trainer.use_dynamic_bsz'],
  ['actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu', 'trainer.max_token_len_per_gpu'],
  ['actor_rollout_ref.ref.log_prob_use_dynamic_bsz', 'trainer.use_dynamic_bsz'],
  ['actor_rollout_ref.ref.log_prob_max_token_len_per_gpu', 'trainer.max_token_len_per_gpu'],
  ['actor_rollout_ref.ref.ulysses_sequence_parallel_size', 'trainer.ulysses_sequence_parallel_size'],
  ['critic.model.path', 'model.critic_model_path'],
  ['critic.ppo_mini_batch_size', 'buffer.train_batch_size'],
  ['critic.use_dynamic_bsz', 'trainer.use_dynamic_bsz'],
  ['critic.ppo_max_token_len_per_gpu', 'trainer.max_token_len_per_gpu'],
  ['critic.forward_max_token_len_per_gpu', 'trainer.max_token_len_per_gpu'],
  ['critic.grad_clip', 'trainer.grad_clip'],
  ['critic.ulysses_sequence_parallel_size', 'trainer.ulysses_sequence_parallel_size'],
  ['trainer.total_training_steps', 'trainer.total_steps'],
];

/** The Trinity key that replaces a legacy `trainer_config` path under verl ≥ 0.8, if any. */
export function trinityKeyFor(legacyPath: string): string | undefined {
  for (const [prefix, key] of TRINITY_KEY_FOR_VERL) if (legacyPath === prefix || legacyPath.startsWith(`${prefix}.`)) return key;
  return undefined;
}
