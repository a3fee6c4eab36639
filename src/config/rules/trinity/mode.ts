// GlobalConfigValidator: `mode` must be one of six values — case-sensitive, unlike the enums.
import { suggest } from '../../core/findings';
import { l10n, list } from '../../core/l10n-text';
import { UNKNOWN } from '../view';
import { report, setValueFix, type Rule } from '../context';
import { MODES } from './common';
import { valueText } from '../../../base/value-text';

export const modeRule: Rule = {
  id: 'trinity.mode',
  upstream: ['GlobalConfigValidator.validate'],
  run(ctx) {
    const v = ctx.view;
    const mode = v.get('mode');
    if (mode === UNKNOWN || mode === undefined) return;
    if (typeof mode === 'string' && (MODES as readonly string[]).includes(mode)) return;
    const text = mode === null ? 'None' : valueText(mode);
    const best = MODES.find((m) => m === text.toLowerCase()) ?? suggest(text, MODES, 1)[0];
    const fix = best ? setValueFix(ctx, 'mode', best, l10n.t("Change to '{0}'", best)) : undefined;
    report(ctx, {
      severity: 'error',
      code: 'trinity.mode.invalid',
      message: l10n.t("Invalid mode '{0}': expected one of {1} (case-sensitive).", text, list(MODES)),
      path: 'mode',
      span: v.span('mode'),
      fixes: fix ? [fix] : undefined,
    });
  },
};
