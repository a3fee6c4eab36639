// ModelConfigValidator._check_model_len: prompt + response must fit in max_model_len, and
// max_model_len must be set or derivable from both limits.
import { l10n, verbatim } from '../../core/l10n-text';
import { report, setValueFix, type Rule } from '../context';

export const lengthRule: Rule = {
  id: 'trinity.length',
  upstream: ['ModelConfigValidator._check_model_len', 'TrainerConfigValidator.validate'],
  run(ctx) {
    const v = ctx.view;
    if (['model.max_model_len', 'model.max_prompt_tokens', 'model.max_response_tokens'].some((k) => v.unknown(k))) return;
    const mml = v.num('model.max_model_len');
    const mpt = v.num('model.max_prompt_tokens');
    const mrt = v.num('model.max_response_tokens');
    if (mml !== undefined && mpt !== undefined && mrt !== undefined && mpt + mrt > mml) {
      const fix = setValueFix(ctx, 'model.max_model_len', String(mpt + mrt), l10n.t('Set max_model_len to {0}', mpt + mrt));
      report(ctx, {
        severity: 'error',
        code: 'trinity.length.exceeds-max-model-len',
        message: l10n.t('`max_prompt_tokens` + `max_response_tokens` ({0} + {1}) exceeds `max_model_len` ({2}).', mpt, mrt, mml),
        path: 'model.max_model_len',
        related: [
          { path: 'model.max_prompt_tokens', message: verbatim(`max_prompt_tokens = ${mpt}`) },
          { path: 'model.max_response_tokens', message: verbatim(`max_response_tokens = ${mrt}`) },
        ],
        fixes: fix ? [fix] : undefined,
      });
      return;
    }
    if (mml === undefined && !(mpt !== undefined && mrt !== undefined)) {
      const set = mpt !== undefined ? 'model.max_prompt_tokens' : mrt !== undefined ? 'model.max_response_tokens' : undefined;
      report(ctx, {
        severity: 'error',
        code: 'trinity.length.no-max-model-len',
        message: l10n.t('Unable to determine `max_model_len`: set `model.max_model_len`, or both `max_prompt_tokens` and `max_response_tokens`.'),
        path: set ?? 'model',
        span: set ? v.keySpan(set) : v.keySpan('model.max_model_len'),
      });
      return;
    }
    const mrtEff = mrt ?? (mml !== undefined ? mml - (mpt !== undefined ? Math.min(mpt, mml - 1) : Math.floor(mml / 2)) : undefined);
    const min = v.num('model.min_response_tokens');
    if (min !== undefined && mrtEff !== undefined && v.has('model.min_response_tokens') && min >= mrtEff) {
      report(ctx, {
        severity: 'info',
        code: 'trinity.length.min-response',
        message: l10n.t('`min_response_tokens` ({0}) ≥ `max_response_tokens` ({1}); Trinity lowers it to {2}.', min, mrtEff, Math.max(mrtEff - 1, 0)),
        path: 'model.min_response_tokens',
      });
    }
    // veRL raises the per-GPU token budget when it cannot hold one full sequence
    const sp = Math.max(1, v.num('trainer.ulysses_sequence_parallel_size') ?? 1);
    const perGpu = v.num('trainer.max_token_len_per_gpu');
    const full = mml ?? (mpt !== undefined && mrt !== undefined ? mpt + mrt : undefined);
    if (perGpu !== undefined && full !== undefined && v.has('trainer.max_token_len_per_gpu') && perGpu * sp < full) {
      report(ctx, {
        severity: 'info',
        code: 'trinity.length.token-len-per-gpu',
        message: l10n.t('`trainer.max_token_len_per_gpu` × sp ({0} × {1}) < max_model_len ({2}); veRL raises it automatically.', perGpu, sp, full),
        path: 'trainer.max_token_len_per_gpu',
      });
    }
  },
};
