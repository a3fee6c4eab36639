// Algorithm-specific checks (AlgorithmType.check_config and the buffer validator's batch
// requirement): SFT/DPO (and 0.6's CPT, an SFTAlgorithm) only in train mode, with a dataset
// path and a positive save interval.
import { l10n } from '../../core/l10n-text';
import { insertKeyFix, report, setValueFix, type Rule } from '../context';
import { algorithmOf, CRITIC_ALGORITHMS, isSftLike, isSftOrDpo, modeOf } from './common';

export const algorithmRule: Rule = {
  id: 'trinity.algorithm',
  upstream: ['SFTAlgorithm.check_config', 'DPOAlgorithm.check_config', 'BufferConfigValidator.validate', 'ModelConfigValidator._check_tinker'],
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    const algo = algorithmOf(v);
    if (!mode) return;
    if (isSftLike(algo)) {
      if (mode === 'both' || mode === 'explore') {
        const fix = setValueFix(ctx, 'mode', 'train', l10n.t("Use mode 'train'"));
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.mode',
          // CPT runs SFT's check_config, whose message says SFT
          message:
            algo === 'dpo' ? l10n.t('DPO does not support `{0}` mode: use `train`.', mode) : l10n.t('SFT does not support `{0}` mode: use `train`.', mode),
          path: v.has('mode') ? 'mode' : 'algorithm.algorithm_type',
          related: [{ path: 'algorithm.algorithm_type', message: l10n.t("algorithm_type is '{0}'", algo) }],
          fixes: fix ? [fix] : undefined,
        });
      }
      // a path set through an unset `${oc.env:X}` is unknown here, not missing
      if (mode === 'train' && !v.str('buffer.trainer_input.experience_buffer.path') && !v.unknown('buffer.trainer_input.experience_buffer.path')) {
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.dataset-path',
          message: l10n.t('`buffer.trainer_input.experience_buffer.path` is required when `algorithm.algorithm_type == {0}`.', algo),
          path: 'buffer.trainer_input.experience_buffer.path',
          related: [{ path: 'algorithm.algorithm_type', message: l10n.t("algorithm_type is '{0}'", algo) }],
        });
      }
      const save = v.num('trainer.save_interval');
      if (save !== undefined && save <= 0) {
        const sync = v.num('synchronizer.sync_interval');
        const value = sync && sync > 0 ? sync : 100;
        const fix = setValueFix(ctx, 'trainer.save_interval', String(value), l10n.t('Set save_interval to {0}', value));
        report(ctx, {
          severity: 'error',
          code: 'trinity.algorithm.save-interval',
          message: l10n.t('`trainer.save_interval` must be > 0 for {0}: it becomes `synchronizer.sync_interval`, which must be positive.', algo),
          path: v.has('trainer.save_interval') ? 'trainer.save_interval' : 'trainer.save_interval',
          related: [{ path: 'algorithm.algorithm_type', message: l10n.t("algorithm_type is '{0}'", algo) }],
          fixes: fix ? [fix] : undefined,
        });
      }
      if (v.has('synchronizer.sync_interval') && v.num('synchronizer.sync_interval') !== v.num('trainer.save_interval')) {
        report(ctx, {
          severity: 'info',
          code: 'trinity.sync.overwritten',
          message: l10n.t('For {0}, `sync_interval` is replaced by `trainer.save_interval` ({1}).', algo, v.num('trainer.save_interval')),
          path: 'synchronizer.sync_interval',
          tags: ['unnecessary'],
        });
      }
      if (algo === 'dpo' && v.has('algorithm.repeat_times') && v.num('algorithm.repeat_times') !== 2) {
        report(ctx, {
          severity: 'info',
          code: 'trinity.algorithm.dpo-repeat',
          message: l10n.t('DPO forces `repeat_times` to 2.'),
          path: 'algorithm.repeat_times',
        });
      }
    }
    // train_batch_size is required in train mode and for SFT/DPO
    if ((mode === 'train' || isSftOrDpo(algo)) && !v.unknown('buffer.train_batch_size') && !(v.num('buffer.train_batch_size') ?? 0)) {
      const bs = v.num('buffer.batch_size');
      const rt = algo === 'dpo' ? 2 : v.num('algorithm.repeat_times');
      const value = bs && rt ? bs * rt : undefined;
      const fix = value
        ? v.has('buffer.train_batch_size')
          ? setValueFix(ctx, 'buffer.train_batch_size', String(value), l10n.t('Set train_batch_size to {0}', value))
          : insertKeyFix(ctx, 'buffer.train_batch_size', String(value), l10n.t('Add train_batch_size: {0}', value))
        : undefined;
      report(ctx, {
        severity: 'error',
        code: 'trinity.buffer.train-batch-size-required',
        message: l10n.t("`buffer.train_batch_size` is required when `mode` is 'train' or `algorithm.algorithm_type` is 'sft' or 'dpo'."),
        path: v.has('buffer.train_batch_size') ? 'buffer.train_batch_size' : 'buffer',
        related: [{ path: v.has('mode') ? 'mode' : 'algorithm.algorithm_type', message: l10n.t("mode '{0}', algorithm '{1}'", mode, algo) }],
        fixes: fix ? [fix] : undefined,
      });
    }
    if (v.bool('model.tinker.enable') && algo && CRITIC_ALGORITHMS.has(algo)) {
      report(ctx, {
        severity: 'error',
        code: 'trinity.model.tinker-critic',
        message: l10n.t('Critic model is not supported when using tinker (`{0}` needs a critic).', algo),
        path: 'model.tinker.enable',
        related: [{ path: 'algorithm.algorithm_type', message: l10n.t("algorithm_type is '{0}'", algo) }],
      });
    }
  },
};
