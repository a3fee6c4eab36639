// Helpers shared by the Trinity-RFT rules: the effective mode and algorithm, and facts
// Trinity derives (train batch size, whether the trainer validator runs).
import { compareVersions } from '../../core/versions';
import { TRINITY_0_6 } from '../../facts/trinity-0.6';
import { enumValue } from '../../schema/coerce';
import type { ConfigView } from '../view';

export const MODES = ['both', 'explore', 'train', 'bench', 'serve', 'colocate'] as const;

/** The release the 0.6 rules belong to (from its facts, not a second copy of the number). */
const SINCE_0_6 = TRINITY_0_6.version;
export const atLeast06 = (ctx: { trinityVersion: string }) => compareVersions(ctx.trinityVersion, SINCE_0_6) >= 0;
export type Mode = (typeof MODES)[number];

/** The mode when it is valid and resolved, else undefined (mode rules report it). */
export function modeOf(v: ConfigView): Mode | undefined {
  const m = v.get('mode');
  return typeof m === 'string' && (MODES as readonly string[]).includes(m) ? (m as Mode) : undefined;
}

/** `algorithm.algorithm_type`, resolved. */
export function algorithmOf(v: ConfigView): string | undefined {
  return v.str('algorithm.algorithm_type');
}

export const isSftOrDpo = (a: string | undefined) => a === 'sft' || a === 'dpo';

/** Algorithms whose check_config is SFT's or DPO's (0.6's CPT subclasses SFTAlgorithm): train
 *  mode only, an experience_buffer path, sync_interval := save_interval. */
export const isSftLike = (a: string | undefined) => isSftOrDpo(a) || a === 'cpt';

/** Algorithms whose trainer needs a critic (tinker cannot serve them). */
export const CRITIC_ALGORITHMS = new Set(['ppo']);

/** Effective `buffer.train_batch_size` (0 → batch_size × repeat_times), undefined if unknown. */
export function trainBatchSize(v: ConfigView): number | undefined {
  const tbs = v.num('buffer.train_batch_size');
  if (tbs === undefined) return v.unknown('buffer.train_batch_size') ? undefined : undefined;
  if (tbs > 0) return tbs;
  const bs = v.num('buffer.batch_size');
  const rt = algorithmOf(v) === 'dpo' ? 2 : v.num('algorithm.repeat_times');
  return bs !== undefined && rt !== undefined ? bs * rt : undefined;
}

/** Whether `TrainerConfigValidator` runs for this config (and so the veRL checks): 0.5.2 in
 *  train / both / bench / colocate mode or with Megatron; 0.6 (both stored lines) in train / both
 *  / colocate mode only — one line also with Megatron, so its errors are not certain there. */
export function trainerValidatorRuns(v: ConfigView, release: string): boolean {
  const mode = modeOf(v);
  if (!mode) return false;
  if (v.bool('model.external_model.enable')) return false;
  if (compareVersions(release, SINCE_0_6) >= 0) return ['train', 'both', 'colocate'].includes(mode);
  return ['train', 'both', 'bench', 'colocate'].includes(mode) || v.str('trainer.trainer_strategy') === 'megatron';
}

/** Items of a list-valued key as objects (non-objects become {}). */
export function items(v: ConfigView, path: string): Record<string, unknown>[] {
  const val = v.get(path);
  return Array.isArray(val) ? val.map((x) => (x && typeof x === 'object' ? (x as Record<string, unknown>) : {})) : [];
}

/** An int-like field value from a plain object (defaults applied by the caller). */
export function intOf(o: Record<string, unknown>, key: string, dflt: number): number | undefined {
  const x = o[key];
  if (x === undefined || x === null) return dflt;
  if (typeof x === 'number') return x;
  if (typeof x === 'string' && /^\s*[-+]?\d+\s*$/.test(x)) return Number(x);
  return undefined;
}

const SYNC_STYLE = {
  values: ['fixed', 'trainer_driven', 'explorer_driven', 'fully_async'],
  aliases: { dynamic_by_explorer: 'explorer_driven', dynamic_by_trainer: 'trainer_driven' },
  caseInsensitive: true,
};

/** `synchronizer.sync_style` as SyncStyle reads it (any case, the dynamic_by_* aliases), `fixed` when unset. */
export function syncStyleOf(v: ConfigView): string | undefined {
  const s = v.str('synchronizer.sync_style');
  return s ? enumValue(s, SYNC_STYLE) : 'fixed';
}
