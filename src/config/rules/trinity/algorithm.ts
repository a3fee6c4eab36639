// Algorithm-specific checks (AlgorithmType.check_config and the buffer validator's batch
// requirement): SFT/DPO only in train mode, with a dataset path and a positive save interval.
import { msg } from '../../core/findings';
import { insertKeyFix, report, setValueFix, type Rule } from '../context';
import { algorithmOf, CRITIC_ALGORITHMS, isSftOrDpo, modeOf } from './common';

export const algorithmRule: Rule = {
  id: 'trinity.algorithm',
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    const algo = algorithmOf(v);
    if (!mode) return;
    const ALGO = algo?.toUpperCase();
    if (isSftOrDpo(algo)) {
      if (mode === 'both' || mode === 'explore') {
        const fix = setValueFix(ctx, 'mode', 'train', msg("Use mode 'train'", "使用 mode 'train'"));
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.mode',
          message: msg(`${ALGO} does not support \`${mode}\` mode: use \`train\`.`, `${ALGO} 不支持 \`${mode}\` 模式：请使用 \`train\`。`),
          path: v.has('mode') ? 'mode' : 'algorithm.algorithm_type',
          related: [{ path: 'algorithm.algorithm_type', message: msg(`algorithm_type is '${algo}'`, `algorithm_type 为 '${algo}'`) }],
          fixes: fix ? [fix] : undefined,
        });
      }
      // a path set through an unset `${oc.env:X}` is unknown here, not missing
      if (mode === 'train' && !v.str('buffer.trainer_input.experience_buffer.path') && !v.unknown('buffer.trainer_input.experience_buffer.path')) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.dataset-path',
          message: msg(`\`buffer.trainer_input.experience_buffer.path\` is required when \`algorithm.algorithm_type == ${algo}\`.`, `\`algorithm.algorithm_type == ${algo}\` 时必须设置 \`buffer.trainer_input.experience_buffer.path\`。`),
          path: 'buffer.trainer_input.experience_buffer.path',
          related: [{ path: 'algorithm.algorithm_type', message: msg(`algorithm_type is '${algo}'`, `algorithm_type 为 '${algo}'`) }],
        });
      }
      const save = v.num('trainer.save_interval');
      if (save !== undefined && save <= 0) {
        const sync = v.num('synchronizer.sync_interval');
        const value = sync && sync > 0 ? sync : 100;
        const fix = setValueFix(ctx, 'trainer.save_interval', String(value), msg(`Set save_interval to ${value}`, `将 save_interval 设为 ${value}`));
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.save-interval',
          message: msg(`\`trainer.save_interval\` must be > 0 for ${algo}: it becomes \`synchronizer.sync_interval\`, which must be positive.`, `${algo} 的 \`trainer.save_interval\` 必须 > 0：它会成为 \`synchronizer.sync_interval\`，而后者必须为正。`),
          path: v.has('trainer.save_interval') ? 'trainer.save_interval' : 'trainer.save_interval',
          related: [{ path: 'algorithm.algorithm_type', message: msg(`algorithm_type is '${algo}'`, `algorithm_type 为 '${algo}'`) }],
          fixes: fix ? [fix] : undefined,
        });
      }
      if (v.has('synchronizer.sync_interval') && v.num('synchronizer.sync_interval') !== v.num('trainer.save_interval')) {
        report(ctx, {
          severity: 'info',
          code: 'trinity.sync.overwritten',
          message: msg(`For ${algo}, \`sync_interval\` is replaced by \`trainer.save_interval\` (${v.num('trainer.save_interval')}).`, `对于 ${algo}，\`sync_interval\` 会被 \`trainer.save_interval\`（${v.num('trainer.save_interval')}）替换。`),
          path: 'synchronizer.sync_interval',
          tags: ['unnecessary'],
        });
      }
      if (algo === 'dpo' && v.has('algorithm.repeat_times') && v.num('algorithm.repeat_times') !== 2) {
        report(ctx, { severity: 'info', code: 'trinity.algorithm.dpo-repeat', message: msg('DPO forces `repeat_times` to 2.', 'DPO 会强制 `repeat_times` 为 2。'), path: 'algorithm.repeat_times' });
      }
    }
    // train_batch_size is required in train mode and for SFT/DPO
    if ((mode === 'train' || isSftOrDpo(algo)) && !v.unknown('buffer.train_batch_size') && !(v.num('buffer.train_batch_size') ?? 0)) {
      const bs = v.num('buffer.batch_size');
      const rt = algo === 'dpo' ? 2 : v.num('algorithm.repeat_times');
      const value = bs && rt ? bs * rt : undefined;
      const fix = value ? (v.has('buffer.train_batch_size') ? setValueFix(ctx, 'buffer.train_batch_size', String(value), msg(`Set train_batch_size to ${value}`, `将 train_batch_size 设为 ${value}`)) : insertKeyFix(ctx, 'buffer.train_batch_size', String(value), msg(`Add train_batch_size: ${value}`, `添加 train_batch_size: ${value}`))) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'trinity.buffer.train-batch-size-required',
        message: msg("`buffer.train_batch_size` is required when `mode` is 'train' or `algorithm.algorithm_type` is 'sft' or 'dpo'.", "当 `mode` 为 'train' 或 `algorithm.algorithm_type` 为 'sft'/'dpo' 时必须设置 `buffer.train_batch_size`。"),
        path: v.has('buffer.train_batch_size') ? 'buffer.train_batch_size' : 'buffer',
        related: [{ path: v.has('mode') ? 'mode' : 'algorithm.algorithm_type', message: msg(`mode '${mode}', algorithm '${algo}'`, `mode '${mode}'，algorithm '${algo}'`) }],
        fixes: fix ? [fix] : undefined,
      });
    }
    if (v.bool('model.tinker.enable') && algo && CRITIC_ALGORITHMS.has(algo)) {
      report(ctx, {
        severity: 'error',
        code: 'trinity.model.tinker-critic',
        message: msg(`Critic model is not supported when using tinker (\`${algo}\` needs a critic).`, `使用 tinker 时不支持 critic 模型（\`${algo}\` 需要 critic）。`),
        path: 'model.tinker.enable',
        related: [{ path: 'algorithm.algorithm_type', message: msg(`algorithm_type is '${algo}'`, `algorithm_type 为 '${algo}'`) }],
      });
    }
  },
};
