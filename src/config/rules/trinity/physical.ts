// Physically impossible values: a learning rate of zero or below, a probability outside [0, 1],
// a negative temperature… The schema only knows "a float"; Trinity passes these on to torch /
// vLLM, which fail late on the cluster (or, for lr ≤ 0, silently train backwards or not at all).
// Each bound quotes Trinity-RFT 0.5's own default (its config.py: OptimizerConfig,
// ModelConfig, InferenceModelConfig) so the fix is a known-good value.
import { l10n, type Text } from '../../core/l10n-text';
import { report, setValueFix, type Rule } from '../context';

interface Bound {
  path: string;
  /** Lowest / highest allowed; `open` makes that end exclusive. */
  min?: number;
  max?: number;
  minOpen?: boolean;
  maxOpen?: boolean;
  /** Trinity's default for the field. */
  def: string;
  why: Text;
}

const LR = l10n.t('a learning rate must be positive (≤ 0 does not train, or trains backwards)');
const PROB = l10n.t('it is a probability');
const RATIO = l10n.t('it is a fraction');
const TEMP = l10n.t('a sampling temperature cannot be negative');

const PHYSICAL_BOUNDS: readonly Bound[] = [
  { path: 'algorithm.optimizer.lr', min: 0, minOpen: true, def: '1e-6', why: LR },
  { path: 'algorithm.optimizer.weight_decay', min: 0, def: '0.01', why: l10n.t('weight decay cannot be negative') },
  { path: 'algorithm.optimizer.clip_grad', min: 0, minOpen: true, def: '1.0', why: l10n.t('a gradient-norm clip must be positive') },
  { path: 'algorithm.optimizer.lr_warmup_steps_ratio', min: 0, max: 1, def: '0.0', why: RATIO },
  { path: 'algorithm.optimizer.min_lr_ratio', min: 0, max: 1, def: '0.01', why: RATIO },
  { path: 'trainer.trainer_config.actor_rollout_ref.actor.optim.lr', min: 0, minOpen: true, def: '1e-6', why: LR },
  { path: 'model.temperature', min: 0, def: '1.0', why: TEMP },
  { path: 'model.top_p', min: 0, max: 1, minOpen: true, def: '1.0', why: PROB },
  { path: 'explorer.rollout_model.temperature', min: 0, def: '1.0', why: TEMP },
  { path: 'explorer.rollout_model.top_p', min: 0, max: 1, minOpen: true, def: '1.0', why: PROB },
  { path: 'explorer.rollout_model.gpu_memory_utilization', min: 0, max: 1, minOpen: true, def: '0.9', why: l10n.t('it is a fraction of GPU memory') },
  { path: 'buffer.explorer_input.taskset.rollout_args.temperature', min: 0, def: '1.0', why: TEMP },
  { path: 'buffer.explorer_input.taskset.rollout_args.top_p', min: 0, max: 1, minOpen: true, def: '1.0', why: PROB },
];

/** 1e-6 rather than 0.000001, as people write learning rates. */
const show = (x: number) =>
  x !== 0 && Math.abs(x) < 1e-3
    ? x
        .toExponential()
        .replace(/\.?0+e/, 'e')
        .replace('e-', 'e-')
    : String(x);

function range(b: Bound): string {
  const lo = b.min === undefined ? '(-∞' : `${b.minOpen ? '(' : '['}${b.min}`;
  const hi = b.max === undefined ? '∞)' : `${b.max}${b.maxOpen ? ')' : ']'}`;
  return `${lo}, ${hi}`;
}

export const physicalRule: Rule = {
  id: 'trinity.physical',
  run(ctx) {
    const v = ctx.view;
    for (const b of PHYSICAL_BOUNDS) {
      const x = v.num(b.path);
      if (x === undefined) continue;
      const low = b.min !== undefined && (b.minOpen ? x <= b.min : x < b.min);
      const high = b.max !== undefined && (b.maxOpen ? x >= b.max : x > b.max);
      if (!low && !high) continue;
      const key = b.path.split('.').pop()!;
      const fix = setValueFix(ctx, b.path, b.def, l10n.t("Set {0} to Trinity's default {1}", key, b.def));
      report(ctx, {
        severity: 'warning',
        code: 'trinity.physical.out-of-range',
        message: l10n.t("`{0}: {1}` is outside {2}: {3}. Trinity-RFT's default is {4}.", key, show(x), range(b), b.why, b.def),
        path: b.path,
        fixes: fix ? [fix] : undefined,
      });
    }
  },
};
