// ModelConfigValidator._check_model_len: prompt + response must fit in max_model_len, and
// max_model_len must be set or derivable from both limits.
import { msg } from '../../core/findings';
import { report, setValueFix, type Rule } from '../context';

export const lengthRule: Rule = {
  id: 'trinity.length',
  run(ctx) {
    const v = ctx.view;
    if (['model.max_model_len', 'model.max_prompt_tokens', 'model.max_response_tokens'].some((k) => v.unknown(k))) return;
    const mml = v.num('model.max_model_len');
    const mpt = v.num('model.max_prompt_tokens');
    const mrt = v.num('model.max_response_tokens');
    if (mml !== undefined && mpt !== undefined && mrt !== undefined && mpt + mrt > mml) {
      const fix = setValueFix(ctx, 'model.max_model_len', String(mpt + mrt), msg(`Set max_model_len to ${mpt + mrt}`, `将 max_model_len 设为 ${mpt + mrt}`));
      report(ctx, {
        severity: 'error',
        code: 'trinity.length.exceeds-max-model-len',
        message: msg(
          `\`max_prompt_tokens\` + \`max_response_tokens\` (${mpt} + ${mrt}) exceeds \`max_model_len\` (${mml}).`,
          `\`max_prompt_tokens\` + \`max_response_tokens\`（${mpt} + ${mrt}）超过了 \`max_model_len\`（${mml}）。`,
        ),
        path: 'model.max_model_len',
        related: [
          { path: 'model.max_prompt_tokens', message: msg(`max_prompt_tokens = ${mpt}`, `max_prompt_tokens = ${mpt}`) },
          { path: 'model.max_response_tokens', message: msg(`max_response_tokens = ${mrt}`, `max_response_tokens = ${mrt}`) },
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
        message: msg(
          'Unable to determine `max_model_len`: set `model.max_model_len`, or both `max_prompt_tokens` and `max_response_tokens`.',
          '无法确定 `max_model_len`：请设置 `model.max_model_len`，或同时设置 `max_prompt_tokens` 和 `max_response_tokens`。',
        ),
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
        message: msg(`\`min_response_tokens\` (${min}) ≥ \`max_response_tokens\` (${mrtEff}); Trinity lowers it to ${Math.max(mrtEff - 1, 0)}.`, `\`min_response_tokens\`（${min}）≥ \`max_response_tokens\`（${mrtEff}）；Trinity 会将其降为 ${Math.max(mrtEff - 1, 0)}。`),
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
        message: msg(`\`trainer.max_token_len_per_gpu\` × sp (${perGpu} × ${sp}) < max_model_len (${full}); veRL raises it automatically.`, `\`trainer.max_token_len_per_gpu\` × sp（${perGpu} × ${sp}）< max_model_len（${full}）；veRL 会自动调大。`),
        path: 'trainer.max_token_len_per_gpu',
      });
    }
  },
};
