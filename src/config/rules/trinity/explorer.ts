// ExplorerConfigValidator: auxiliary models need model_path, over-rollout limits, one LoRA
// adapter at most, the concurrent_mode values, and the runner cap for concurrent modes.
import { msg, suggest } from '../../core/findings';
import { enumValue } from '../../schema/coerce';
import { report, setValueFix, type Rule } from '../context';
import { items } from './common';
import { atLeast06 } from './parallel';

const CONCURRENT = ['sequential', 'asynchronous', 'multi-threading'];
const SYNC_STYLE = { values: ['fixed', 'trainer_driven', 'explorer_driven'], aliases: { dynamic_by_explorer: 'explorer_driven', dynamic_by_trainer: 'trainer_driven' }, caseInsensitive: true };

export const explorerRule: Rule = {
  id: 'trinity.explorer',
  run(ctx) {
    const v = ctx.view;
    items(v, 'explorer.auxiliary_models').forEach((m, i) => {
      const p = `explorer.auxiliary_models[${i}]`;
      if (!v.unknown(`${p}.model_path`) && !m.model_path) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.explorer.aux-model-path',
          message: msg("Auxiliary model's `model_path` is required.", '辅助模型必须设置 `model_path`。'),
          path: p,
          span: v.keySpan(`${p}.model_path`),
        });
      }
    });
    const ratio = v.num('explorer.over_rollout.ratio');
    if (ratio !== undefined && ratio > 0) {
      if (ratio >= 1) {
        const fix = setValueFix(ctx, 'explorer.over_rollout.ratio', '0.5', msg('Set ratio to 0.5', '将 ratio 设为 0.5'));
        report(ctx, { severity: 'error', code: 'trinity.explorer.over-rollout-ratio', message: msg(`over_rollout ratio (${ratio}) should be in [0.0, 1.0).`, `over_rollout 的 ratio（${ratio}）应在 [0.0, 1.0) 内。`), path: 'explorer.over_rollout.ratio', fixes: fix ? [fix] : undefined });
      } else {
        const style = v.str('synchronizer.sync_style');
        if ((style ? enumValue(style, SYNC_STYLE) : 'fixed') === 'fixed') {
          const fix = setValueFix(ctx, 'synchronizer.sync_style', 'explorer_driven', msg('Set sync_style to explorer_driven', '将 sync_style 设为 explorer_driven'));
          report(ctx, {
            severity: 'error',
            code: 'trinity.explorer.over-rollout-sync-style',
            message: msg('over_rollout ratio is not compatible with the fixed sync_style: set `synchronizer.sync_style` to `explorer_driven` or `trainer_driven`.', 'over_rollout 的 ratio 与 fixed 同步方式不兼容：请将 `synchronizer.sync_style` 设为 `explorer_driven` 或 `trainer_driven`。'),
            path: 'explorer.over_rollout.ratio',
            related: [{ path: 'synchronizer.sync_style', message: msg(`sync_style is '${style ?? 'fixed'}'`, `sync_style 为 '${style ?? 'fixed'}'`) }],
            fixes: fix ? [fix] : undefined,
          });
        }
      }
    }
    const lora = v.get('model.lora_configs');
    if (Array.isArray(lora) && lora.length > 1 && !v.bool('model.tinker.enable')) {
      report(ctx, {
        severity: 'error',
        code: 'trinity.model.lora-count',
        message: msg(`Only one lora adapter is supported for now (${lora.length} configured).`, `目前只支持一个 LoRA 适配器（已配置 ${lora.length} 个）。`),
        path: 'model.lora_configs[1]',
        span: v.span('model.lora_configs[1]'),
        related: [{ path: 'model.lora_configs[0]', message: msg('first adapter', '第一个适配器') }],
      });
    }
    const mode = v.str('explorer.concurrent_mode');
    if (mode !== undefined && !CONCURRENT.includes(mode)) {
      const best = suggest(mode, CONCURRENT, 1)[0];
      const fix = best ? setValueFix(ctx, 'explorer.concurrent_mode', best, msg(`Change to '${best}'`, `改为 '${best}'`)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'trinity.explorer.concurrent-mode',
        message: msg(`Invalid explorer.concurrent_mode: ${mode} (expected ${CONCURRENT.join(', ')}).`, `无效的 explorer.concurrent_mode：${mode}（应为 ${CONCURRENT.join('、')}）。`),
        path: 'explorer.concurrent_mode',
        span: v.span('explorer.concurrent_mode'),
        fixes: fix ? [fix] : undefined,
      });
    } else if (mode === 'asynchronous' || mode === 'multi-threading') {
      const bs = v.num('buffer.batch_size');
      const engines = v.num('explorer.rollout_model.engine_num');
      const runners = v.num('explorer.runner_per_model');
      if (bs && engines && runners !== undefined) {
        const cap = Math.ceil(bs / engines);
        if (runners > cap) {
          report(ctx, {
            severity: 'info',
            code: 'trinity.explorer.runner-cap',
            message: msg(`runner_per_model (${runners}) is too large for concurrent_mode '${mode}' with batch_size ${bs} and ${engines} engines; Trinity uses ${cap}.`, `对于 concurrent_mode '${mode}'（batch_size ${bs}、${engines} 个引擎），runner_per_model（${runners}）过大；Trinity 会使用 ${cap}。`),
            path: v.has('explorer.runner_per_model') ? 'explorer.runner_per_model' : 'explorer.concurrent_mode',
          });
        }
      }
    }
    const engineType = v.str('explorer.rollout_model.engine_type');
    // `sglang` with an older release in force is reported as a 0.6 value (version.newer-value)
    if (engineType !== undefined && !/^(vllm|sglang$|tinker|external)/.test(engineType)) {
      const names = atLeast06(ctx) ? '`vllm`, `sglang`, `tinker` or `external`' : '`vllm`, `tinker` or `external`';
      report(ctx, { severity: 'error', code: 'trinity.explorer.engine-type', message: msg(`Unknown engine type '${engineType}': use ${names}.`, `未知的引擎类型 '${engineType}'：请使用 ${names.replace(' or ', ' 或 ').replace(/, /g, '、')}。`), path: 'explorer.rollout_model.engine_type', span: v.span('explorer.rollout_model.engine_type') });
    }
  },
};
