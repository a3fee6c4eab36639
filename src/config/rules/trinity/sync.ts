// SynchronizerConfigValidator and IntervalConfigValidator: sync_interval > 0, eval_interval
// rounded to a multiple of it, and NCCL replaced where it cannot work.
import { l10n, verbatim } from '../../core/l10n-text';
import { enumValue } from '../../schema/coerce';
import { report, setValueFix, type Rule } from '../context';
import { algorithmOf, atLeast06, isSftLike, modeOf } from './common';

const SYNC_METHOD = { values: ['nccl', 'checkpoint', 'memory'], aliases: { online: 'nccl', offline: 'checkpoint' }, caseInsensitive: true };

export const syncRule: Rule = {
  id: 'trinity.sync',
  upstream: ['SynchronizerConfigValidator.validate', 'IntervalConfigValidator.validate'],
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    const algo = algorithmOf(v);
    if (isSftLike(algo)) return; // sync_interval := save_interval (algorithm rule)
    const sync = v.num('synchronizer.sync_interval');
    if (sync !== undefined && sync <= 0) {
      const fix = setValueFix(ctx, 'synchronizer.sync_interval', '1', l10n.t('Set sync_interval to 1'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.sync.interval',
        message: l10n.t('`sync_interval` must be positive.'),
        path: 'synchronizer.sync_interval',
        fixes: fix ? [fix] : undefined,
      });
      return;
    }
    const evalInterval = v.num('explorer.eval_interval');
    // 0.6 rounds to explorer_sync_interval (null: sync_interval)
    const own = atLeast06(ctx) ? v.num('synchronizer.explorer_sync_interval') : undefined;
    if (own !== undefined && own < 1 && mode && mode !== 'bench' && algo !== 'dpo' && algo !== 'sft') {
      // IntervalConfigValidator: `eval_interval % explorer_sync_interval` (0: ZeroDivisionError)
      const fix = setValueFix(ctx, 'synchronizer.explorer_sync_interval', '1', l10n.t('Set explorer_sync_interval to 1'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.sync.explorer-interval',
        message: l10n.t(
          '`synchronizer.explorer_sync_interval` must be >= 1, but got {0}: Trinity divides `explorer.eval_interval` by it (0 stops the run with ZeroDivisionError). Leave it out to use `sync_interval`.',
          own,
        ),
        path: 'synchronizer.explorer_sync_interval',
        fixes: fix ? [fix] : undefined,
      });
    }
    const every = own && own > 0 ? own : sync;
    const by = own && own > 0 ? 'synchronizer.explorer_sync_interval' : 'synchronizer.sync_interval';
    if (mode && mode !== 'bench' && every && evalInterval !== undefined && evalInterval % every !== 0) {
      const rounded = Math.max(Math.floor(evalInterval / every), 1) * every;
      const fix = setValueFix(ctx, 'explorer.eval_interval', String(rounded), l10n.t('Set eval_interval to {0}', rounded));
      report(ctx, {
        severity: 'info',
        code: 'trinity.sync.eval-interval-rounded',
        message: atLeast06(ctx)
          ? l10n.t('`eval_interval` ({0}) is not a multiple of `explorer_sync_interval` ({1}); Trinity uses {2}.', evalInterval, every, rounded)
          : l10n.t('`eval_interval` ({0}) is not a multiple of `sync_interval` ({1}); Trinity uses {2}.', evalInterval, every, rounded),
        path: v.has('explorer.eval_interval') ? 'explorer.eval_interval' : by,
        related: [{ path: by, message: verbatim(`${by.split('.').pop()} = ${every}`) }],
        fixes: fix ? [fix] : undefined,
      });
    }
    const raw = v.str('synchronizer.sync_method');
    const method = raw ? enumValue(raw, SYNC_METHOD) : undefined;
    if (method === 'nccl' && v.has('synchronizer.sync_method') && mode) {
      const to =
        mode === 'colocate' ? 'memory' : ['train', 'explore', 'bench', 'serve'].includes(mode) || v.get('model.lora_configs') ? 'checkpoint' : undefined;
      if (to) {
        const why =
          mode === 'colocate'
            ? l10n.t('colocate mode')
            : v.get('model.lora_configs') && !['train', 'explore', 'bench', 'serve'].includes(mode)
              ? verbatim('LoRA')
              : l10n.t('`{0}` mode', mode);
        const fix = setValueFix(ctx, 'synchronizer.sync_method', to, l10n.t('Set sync_method to {0}', to));
        report(ctx, {
          severity: 'info',
          code: 'trinity.sync.nccl-replaced',
          message: l10n.t('NCCL synchronization does not work with {0}; Trinity uses `{1}`.', why, to),
          path: 'synchronizer.sync_method',
          fixes: fix ? [fix] : undefined,
        });
      }
    }
  },
};
