// Helpers shared by the Trinity-RFT rules: the effective mode and algorithm, and facts
// Trinity derives (train batch size, whether the trainer validator runs).
import { UNKNOWN, type ConfigView } from '../view';

export const MODES = ['both', 'explore', 'train', 'bench', 'serve', 'colocate'] as const;
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

/** Whether `TrainerConfigValidator` runs for this config (and so the veRL checks). */
export function trainerValidatorRuns(v: ConfigView): boolean {
  const mode = modeOf(v);
  if (!mode) return false;
  if (v.bool('model.external_model.enable')) return false;
  return ['train', 'both', 'bench', 'colocate'].includes(mode) || v.str('trainer.trainer_strategy') === 'megatron';
}

export const known = (x: unknown) => x !== UNKNOWN && x !== undefined;

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
