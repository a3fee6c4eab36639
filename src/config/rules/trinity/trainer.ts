// TrainerConfigValidator: trainer_type, save_hf_checkpoint and the deprecated
// trainer_config_path (an error when it would be used), plus the strategy values.
import { msg, suggest } from '../../core/findings';
import { report, setValueFix, type Rule, type RuleContext } from '../context';
import { trainerValidatorRuns } from './common';

function choice(ctx: RuleContext, path: string, allowed: string[], code: string, severity: 'error' | 'warning', en: string, zh: string) {
  const v = ctx.view;
  const val = v.str(path);
  if (val === undefined || allowed.includes(val)) return;
  const best = suggest(val, allowed, 1)[0];
  const fix = best ? setValueFix(ctx, path, best, msg(`Change to '${best}'`, `改为 '${best}'`)) : undefined;
  report(ctx, { severity, code, message: msg(en.replace('$v', val), zh.replace('$v', val)), path, span: v.span(path), fixes: fix ? [fix] : undefined });
}

export const trainerRule: Rule = {
  id: 'trinity.trainer',
  run(ctx) {
    const v = ctx.view;
    const runs = trainerValidatorRuns(v);
    if (runs) {
      choice(ctx, 'trainer.trainer_type', ['verl', 'tinker'], 'trinity.trainer.type', 'error', 'Invalid trainer type: $v (expected verl or tinker).', '无效的训练器类型：$v（应为 verl 或 tinker）。');
      if ((v.str('trainer.trainer_type') ?? 'verl') === 'verl') {
        choice(ctx, 'trainer.save_hf_checkpoint', ['last', 'always', 'never'], 'trinity.trainer.save-hf-checkpoint', 'error', "Invalid trainer.save_hf_checkpoint: $v, must be one of 'last', 'always', or 'never'.", "无效的 trainer.save_hf_checkpoint：$v，必须为 'last'、'always' 或 'never'。");
      }
    }
    choice(ctx, 'trainer.trainer_strategy', ['fsdp', 'fsdp2', 'megatron'], 'trinity.trainer.strategy', 'warning', 'Unknown trainer_strategy: $v (fsdp, fsdp2 or megatron).', '未知的 trainer_strategy：$v（fsdp、fsdp2 或 megatron）。');
    const cfgPath = v.str('trainer.trainer_config_path');
    if (cfgPath) {
      const tc = v.get('trainer.trainer_config');
      const empty = !tc || (typeof tc === 'object' && Object.keys(tc as object).length === 0);
      const fatal = runs && empty && (v.str('trainer.trainer_type') ?? 'verl') === 'verl';
      report(ctx, {
        severity: fatal ? 'error' : 'warning',
        code: fatal ? 'trinity.trainer.config-path' : 'trinity.deprecated-key',
        message: fatal
          ? msg('`trainer_config_path` is deprecated; put the veRL settings in `trainer.trainer_config` instead.', '`trainer_config_path` 已弃用；请将 veRL 设置写在 `trainer.trainer_config` 中。')
          : msg('`trainer_config_path` is deprecated and ignored here because `trainer_config` is set.', '`trainer_config_path` 已弃用，且因已设置 `trainer_config` 而被忽略。'),
        path: 'trainer.trainer_config_path',
        tags: ['deprecated'],
      });
    }
    const sp = v.num('trainer.ulysses_sequence_parallel_size');
    if (sp !== undefined && sp < 1 && v.has('trainer.ulysses_sequence_parallel_size')) {
      report(ctx, { severity: 'info', code: 'trinity.trainer.sp-min', message: msg(`Sequence parallel size ${sp} is invalid; Trinity uses 1.`, `序列并行大小 ${sp} 无效；Trinity 会使用 1。`), path: 'trainer.ulysses_sequence_parallel_size' });
    }
  },
};
