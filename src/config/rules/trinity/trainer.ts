// TrainerConfigValidator: trainer_type, save_hf_checkpoint and the deprecated
// trainer_config_path (an error when it would be used), plus the strategy values.
import { suggest } from '../../core/findings';
import { l10n, type Text } from '../../core/l10n-text';
import { report, setValueFix, type Rule, type RuleContext } from '../context';
import { trainerValidatorRuns } from './common';
import { verlEngine } from './verl';

function choice(ctx: RuleContext, path: string, allowed: string[], code: string, severity: 'error' | 'warning', message: (value: string) => Text) {
  const v = ctx.view;
  const val = v.str(path);
  if (val === undefined || allowed.includes(val)) return;
  const best = suggest(val, allowed, 1)[0];
  const fix = best ? setValueFix(ctx, path, best, l10n.t("Change to '{0}'", best)) : undefined;
  report(ctx, { severity, code, message: message(val), path, span: v.span(path), fixes: fix ? [fix] : undefined });
}

export const trainerRule: Rule = {
  id: 'trinity.trainer',
  upstream: ['TrainerConfigValidator.validate'],
  run(ctx) {
    const v = ctx.view;
    const runs = trainerValidatorRuns(v, ctx.trinityVersion);
    if (runs) {
      choice(ctx, 'trainer.trainer_type', ['verl', 'tinker'], 'trinity.trainer.type', 'error', (x) =>
        l10n.t('Invalid trainer type: {0} (expected verl or tinker).', x),
      );
      if ((v.str('trainer.trainer_type') ?? 'verl') === 'verl') {
        choice(ctx, 'trainer.save_hf_checkpoint', ['last', 'always', 'never'], 'trinity.trainer.save-hf-checkpoint', 'error', (x) =>
          l10n.t("Invalid trainer.save_hf_checkpoint: {0}, must be one of 'last', 'always', or 'never'.", x),
        );
      }
    }
    choice(ctx, 'trainer.trainer_strategy', ['fsdp', 'fsdp2', 'megatron'], 'trinity.trainer.strategy', 'warning', (x) =>
      l10n.t('Unknown trainer_strategy: {0} (fsdp, fsdp2 or megatron).', x),
    );
    const cfgPath = v.str('trainer.trainer_config_path');
    if (cfgPath) {
      const tc = v.get('trainer.trainer_config');
      const empty = !tc || (typeof tc === 'object' && Object.keys(tc).length === 0);
      // only the legacy backend (verl < 0.8) raises; with verl ≥ 0.8 the key is never read
      const fatal = runs && empty && (v.str('trainer.trainer_type') ?? 'verl') === 'verl' && !verlEngine(ctx);
      report(ctx, {
        severity: fatal ? 'error' : 'warning',
        code: fatal ? 'trinity.trainer.config-path' : 'trinity.deprecated-key',
        message: fatal
          ? l10n.t('`trainer_config_path` is deprecated; put the veRL settings in `trainer.trainer_config` instead.')
          : l10n.t('`trainer_config_path` is deprecated and ignored here because `trainer_config` is set.'),
        path: 'trainer.trainer_config_path',
        tags: ['deprecated'],
      });
    }
    const cp = v.num('trainer.megatron.context_parallel_size');
    const megatron = !(v.str('trainer.trainer_strategy') ?? 'fsdp').startsWith('fsdp');
    if (
      runs &&
      megatron &&
      cp !== undefined &&
      cp < 1 &&
      (v.str('trainer.trainer_type') ?? 'verl') === 'verl' &&
      v.get('trainer.max_token_len_per_gpu') == null
    ) {
      // `2 * max_model_len / context_parallel_size` for the default max_token_len_per_gpu (0: ZeroDivisionError)
      const fix = setValueFix(ctx, 'trainer.megatron.context_parallel_size', '1', l10n.t('Set {0} to 1', 'context_parallel_size'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.trainer.context-parallel',
        message: l10n.t(
          '`trainer.megatron.context_parallel_size` must be >= 1, but got {0}: with Megatron and no `trainer.max_token_len_per_gpu`, Trinity divides 2 × `model.max_model_len` by it (0 stops the run with ZeroDivisionError).',
          cp,
        ),
        path: 'trainer.megatron.context_parallel_size',
        fixes: fix ? [fix] : undefined,
      });
    }
    const sp = v.num('trainer.ulysses_sequence_parallel_size');
    if (sp !== undefined && sp < 1 && v.has('trainer.ulysses_sequence_parallel_size')) {
      report(ctx, {
        severity: 'info',
        code: 'trinity.trainer.sp-min',
        message: l10n.t('Sequence parallel size {0} is invalid; Trinity uses 1.', sp),
        path: 'trainer.ulysses_sequence_parallel_size',
      });
    }
  },
};
