// GlobalConfigValidator: `mode` must be one of six values — case-sensitive, unlike the enums.
import { msg, suggest } from '../../core/findings';
import { UNKNOWN } from '../view';
import { report, setValueFix, type Rule } from '../context';
import { MODES } from './common';

export const modeRule: Rule = {
  id: 'trinity.mode',
  run(ctx) {
    const v = ctx.view;
    const mode = v.get('mode');
    if (mode === UNKNOWN || mode === undefined) return;
    if (typeof mode === 'string' && (MODES as readonly string[]).includes(mode)) return;
    const text = mode === null ? 'None' : String(mode);
    const best = MODES.find((m) => m === text.toLowerCase()) ?? suggest(text, MODES, 1)[0];
    const fix = best ? setValueFix(ctx, 'mode', best, msg(`Change to '${best}'`, `改为 '${best}'`)) : undefined;
    report(ctx, {
      severity: 'error',
      code: 'trinity.mode.invalid',
      message: msg(`Invalid mode '${text}': expected one of ${MODES.join(', ')} (case-sensitive).`, `无效的 mode '${text}'：应为 ${MODES.join('、')} 之一（区分大小写）。`),
      path: 'mode',
      span: v.span('mode'),
      fixes: fix ? [fix] : undefined,
    });
  },
};
