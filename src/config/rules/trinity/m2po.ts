// M2POAlgorithm.check_config (trinity/algorithm/algorithm.py, agentscope-ai/Trinity-RFT
// @ 402adb2b), run for every mode: M2PO needs the veRL ≥ 0.8 engine backend (a verl trainer,
// `is_verl_legacy()` false) and `algorithm.bypass_old_logprobs: true`. Whether verl ≥ 0.8 is
// there is known only when the workspace installs or pins verl; without that, information
// (Trinity-RFT 0.6 itself pins verl==0.7.1, which M2PO refuses).
import { l10n } from '../../core/l10n-text';
import { report, setValueFix, type Rule } from '../context';
import { algorithmOf, atLeast06 } from './common';
import { verlEngine, verlSource } from './verl';

export const m2poRule: Rule = {
  id: 'trinity.algorithm.m2po',
  upstream: ['M2POAlgorithm.check_config'],
  run(ctx) {
    const v = ctx.view;
    if (algorithmOf(v) !== 'm2po' || !atLeast06(ctx)) return;
    const related = [{ path: 'algorithm.algorithm_type', message: l10n.t("algorithm_type is '{0}'", 'm2po') }];
    if (v.bool('algorithm.bypass_old_logprobs') === false) {
      const fix = setValueFix(ctx, 'algorithm.bypass_old_logprobs', 'true', l10n.t('Set bypass_old_logprobs to true'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.algorithm.m2po-bypass',
        message: l10n.t('M2PO requires `algorithm.bypass_old_logprobs=true` so the importance ratio is measured against the rollout behavior policy.'),
        path: 'algorithm.bypass_old_logprobs',
        related,
        fixes: fix ? [fix] : undefined,
      });
    }
    const trainer = v.str('trainer.trainer_type') ?? 'verl';
    const engine = verlEngine(ctx);
    if (trainer !== 'verl') {
      report(ctx, {
        severity: 'error',
        code: 'trinity.algorithm.m2po-engine',
        message: l10n.t(
          'M2PO requires the veRL >= 0.8 engine backend. Legacy veRL and Tinker split the objective before Trinity can construct one global optimizer-batch mask.',
        ),
        path: 'trainer.trainer_type',
        related,
      });
    } else if (engine === false && ctx.verl) {
      report(ctx, {
        severity: 'error',
        code: 'trinity.algorithm.m2po-engine',
        message: l10n.t(
          'M2PO requires the veRL >= 0.8 engine backend ({0}). Legacy veRL and Tinker split the objective before Trinity can construct one global optimizer-batch mask.',
          verlSource(ctx.verl),
        ),
        path: 'algorithm.algorithm_type',
      });
    } else if (engine === undefined) {
      report(ctx, {
        severity: 'info',
        code: 'trinity.algorithm.m2po-verl-unknown',
        message: l10n.t(
          'M2PO requires the veRL >= 0.8 engine backend; this workspace does not say which verl it has (Trinity-RFT 0.6 itself pins verl==0.7.1, which M2PO refuses). Pin `verl>=0.8`.',
        ),
        path: 'algorithm.algorithm_type',
      });
    }
  },
};
