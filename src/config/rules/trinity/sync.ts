// SynchronizerConfigValidator and IntervalConfigValidator: sync_interval > 0, eval_interval
// rounded to a multiple of it, and NCCL replaced where it cannot work.
import { msg } from '../../core/findings';
import { enumValue } from '../../schema/coerce';
import { report, setValueFix, type Rule } from '../context';
import { algorithmOf, isSftOrDpo, modeOf } from './common';

const SYNC_METHOD = { values: ['nccl', 'checkpoint', 'memory'], aliases: { online: 'nccl', offline: 'checkpoint' }, caseInsensitive: true };

export const syncRule: Rule = {
  id: 'trinity.sync',
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    const algo = algorithmOf(v);
    if (isSftOrDpo(algo)) return; // sync_interval := save_interval (algorithm rule)
    const sync = v.num('synchronizer.sync_interval');
    if (sync !== undefined && sync <= 0) {
      const fix = setValueFix(ctx, 'synchronizer.sync_interval', '1', msg('Set sync_interval to 1', '将 sync_interval 设为 1'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.sync.interval',
        message: msg('`sync_interval` must be positive.', '`sync_interval` 必须为正数。'),
        path: 'synchronizer.sync_interval',
        fixes: fix ? [fix] : undefined,
      });
      return;
    }
    const evalInterval = v.num('explorer.eval_interval');
    if (mode && mode !== 'bench' && sync && evalInterval !== undefined && evalInterval % sync !== 0) {
      const rounded = Math.max(Math.floor(evalInterval / sync), 1) * sync;
      const fix = setValueFix(ctx, 'explorer.eval_interval', String(rounded), msg(`Set eval_interval to ${rounded}`, `将 eval_interval 设为 ${rounded}`));
      report(ctx, {
        severity: 'info',
        code: 'trinity.sync.eval-interval-rounded',
        message: msg(`\`eval_interval\` (${evalInterval}) is not a multiple of \`sync_interval\` (${sync}); Trinity uses ${rounded}.`, `\`eval_interval\`（${evalInterval}）不是 \`sync_interval\`（${sync}）的倍数；Trinity 会使用 ${rounded}。`),
        path: v.has('explorer.eval_interval') ? 'explorer.eval_interval' : 'synchronizer.sync_interval',
        related: [{ path: 'synchronizer.sync_interval', message: msg(`sync_interval = ${sync}`, `sync_interval = ${sync}`) }],
        fixes: fix ? [fix] : undefined,
      });
    }
    const raw = v.str('synchronizer.sync_method');
    const method = raw ? enumValue(raw, SYNC_METHOD) : undefined;
    if (method === 'nccl' && v.has('synchronizer.sync_method') && mode) {
      const to = mode === 'colocate' ? 'memory' : ['train', 'explore', 'bench', 'serve'].includes(mode) || v.get('model.lora_configs') ? 'checkpoint' : undefined;
      if (to) {
        const why = mode === 'colocate' ? msg('colocate mode', 'colocate 模式') : v.get('model.lora_configs') && !['train', 'explore', 'bench', 'serve'].includes(mode) ? msg('LoRA', 'LoRA') : msg(`\`${mode}\` mode`, `\`${mode}\` 模式`);
        const fix = setValueFix(ctx, 'synchronizer.sync_method', to, msg(`Set sync_method to ${to}`, `将 sync_method 设为 ${to}`));
        report(ctx, {
          severity: 'info',
          code: 'trinity.sync.nccl-replaced',
          message: msg(`NCCL synchronization does not work with ${why.en}; Trinity uses \`${to}\`.`, `NCCL 同步不适用于 ${why.zh}；Trinity 会改用 \`${to}\`。`),
          path: 'synchronizer.sync_method',
          fixes: fix ? [fix] : undefined,
        });
      }
    }
  },
};
