// ExplorerConfigValidator: auxiliary models need model_path, over-rollout limits, one LoRA
// adapter at most, the concurrent_mode values, and the runner cap for concurrent modes.
import { suggest } from '../../core/findings';
import { l10n, list } from '../../core/l10n-text';
import { enumValue } from '../../schema/coerce';
import { report, setValueFix, type Rule } from '../context';
import { atLeast06, items } from './common';

const CONCURRENT = ['sequential', 'asynchronous', 'multi-threading'];
const SYNC_STYLE = {
  values: ['fixed', 'trainer_driven', 'explorer_driven'],
  aliases: { dynamic_by_explorer: 'explorer_driven', dynamic_by_trainer: 'trainer_driven' },
  caseInsensitive: true,
};

export const explorerRule: Rule = {
  id: 'trinity.explorer',
  upstream: ['ExplorerConfigValidator.validate', 'ExplorerConfigValidator._validate_lora'],
  run(ctx) {
    const v = ctx.view;
    items(v, 'explorer.auxiliary_models').forEach((m, i) => {
      const p = `explorer.auxiliary_models[${i}]`;
      if (!v.unknown(`${p}.model_path`) && !m.model_path) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.explorer.aux-model-path',
          message: l10n.t("Auxiliary model's `model_path` is required."),
          path: p,
          span: v.keySpan(`${p}.model_path`),
        });
      }
    });
    const ratio = v.num('explorer.over_rollout.ratio');
    if (ratio !== undefined && ratio > 0) {
      if (ratio >= 1) {
        const fix = setValueFix(ctx, 'explorer.over_rollout.ratio', '0.5', l10n.t('Set ratio to 0.5'));
        report(ctx, {
          severity: 'error',
          code: 'trinity.explorer.over-rollout-ratio',
          message: l10n.t('over_rollout_ratio should be in [0.0, 1.0) (got {0}).', ratio),
          path: 'explorer.over_rollout.ratio',
          fixes: fix ? [fix] : undefined,
        });
      } else {
        const style = v.str('synchronizer.sync_style');
        if ((style ? enumValue(style, SYNC_STYLE) : 'fixed') === 'fixed') {
          const fix = setValueFix(ctx, 'synchronizer.sync_style', 'explorer_driven', l10n.t('Set sync_style to explorer_driven'));
          report(ctx, {
            severity: 'error',
            code: 'trinity.explorer.over-rollout-sync-style',
            message: l10n.t(
              'over_rollout is not compatible with fixed sync_style, please set `synchronizer.sync_style` to `explorer_driven` or `trainer_driven`.',
            ),
            path: 'explorer.over_rollout.ratio',
            related: [{ path: 'synchronizer.sync_style', message: l10n.t("sync_style is '{0}'", style ?? 'fixed') }],
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
        message: l10n.t('Only one lora adapter is supported for now ({0} configured).', lora.length),
        path: 'model.lora_configs[1]',
        span: v.span('model.lora_configs[1]'),
        related: [{ path: 'model.lora_configs[0]', message: l10n.t('first adapter') }],
      });
    }
    const mode = v.str('explorer.concurrent_mode');
    if (mode !== undefined && !CONCURRENT.includes(mode)) {
      const best = suggest(mode, CONCURRENT, 1)[0];
      const fix = best ? setValueFix(ctx, 'explorer.concurrent_mode', best, l10n.t("Change to '{0}'", best)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'trinity.explorer.concurrent-mode',
        message: l10n.t('Invalid explorer.concurrent_mode: {0} (expected {1}).', mode, list(CONCURRENT)),
        path: 'explorer.concurrent_mode',
        span: v.span('explorer.concurrent_mode'),
        fixes: fix ? [fix] : undefined,
      });
    } else if (mode === 'asynchronous' || mode === 'multi-threading') {
      const bs = v.num('buffer.batch_size');
      const engines = v.num('explorer.rollout_model.engine_num');
      const runners = v.num('explorer.runner_per_model');
      if (engines !== undefined && engines < 1 && v.has('explorer.rollout_model.engine_num')) {
        // `math.ceil(batch_size / engine_num)` (0: ZeroDivisionError)
        const fix = setValueFix(ctx, 'explorer.rollout_model.engine_num', '1', l10n.t('Set engine_num to {0}', 1));
        report(ctx, {
          severity: 'error',
          code: 'trinity.explorer.engine-num',
          message: l10n.t(
            "`explorer.rollout_model.engine_num` must be >= 1 with concurrent_mode '{0}', but got {1}: Trinity divides `buffer.batch_size` by it (0 stops the run with ZeroDivisionError).",
            mode,
            engines,
          ),
          path: 'explorer.rollout_model.engine_num',
          related: [{ path: 'explorer.concurrent_mode', message: l10n.t("concurrent_mode is '{0}'", mode) }],
          fixes: fix ? [fix] : undefined,
        });
      } else if (bs && engines && runners !== undefined) {
        const cap = Math.ceil(bs / engines);
        if (runners > cap) {
          report(ctx, {
            severity: 'info',
            code: 'trinity.explorer.runner-cap',
            message: l10n.t(
              "runner_per_model ({0}) is too large for concurrent_mode '{1}' with batch_size {2} and {3} engines; Trinity uses {4}.",
              runners,
              mode,
              bs,
              engines,
              cap,
            ),
            path: v.has('explorer.runner_per_model') ? 'explorer.runner_per_model' : 'explorer.concurrent_mode',
          });
        }
      }
    }
    const engineType = v.str('explorer.rollout_model.engine_type');
    // `sglang` with an older release in force is reported as a 0.6 value (version.newer-value)
    if (engineType !== undefined && !/^(vllm|sglang$|tinker|external)/.test(engineType)) {
      const message = atLeast06(ctx)
        ? l10n.t("Unknown engine type '{0}': use `vllm`, `sglang`, `tinker` or `external`.", engineType)
        : l10n.t("Unknown engine type '{0}': use `vllm`, `tinker` or `external`.", engineType);
      report(ctx, {
        severity: 'error',
        code: 'trinity.explorer.engine-type',
        message,
        path: 'explorer.rollout_model.engine_type',
        span: v.span('explorer.rollout_model.engine_type'),
      });
    }
  },
};
