// ModelConfigValidator: an external API model only in bench mode with its three settings,
// and a readable chat template file.
import * as fs from 'fs';
import { l10n, list } from '../../core/l10n-text';
import { resolveLocalPath } from '../../core/paths';
import { report, setValueFix, type Rule } from '../context';
import { modeOf } from './common';

export const modelRule: Rule = {
  id: 'trinity.model',
  upstream: ['ModelConfigValidator.validate', 'ModelConfigValidator._check_external_model'],
  run(ctx) {
    const v = ctx.view;
    const mode = modeOf(v);
    if (v.bool('model.external_model.enable')) {
      if (mode && mode !== 'bench') {
        const fix = setValueFix(ctx, 'mode', 'bench', l10n.t("Use mode 'bench'"));
        report(ctx, {
          severity: 'error',
          code: 'trinity.model.external-not-bench',
          message: l10n.t('External model is only supported in `bench` mode.'),
          path: 'model.external_model.enable',
          related: [{ path: 'mode', message: l10n.t("mode is '{0}'", mode) }],
          fixes: fix ? [fix] : undefined,
        });
      }
      for (const key of ['base_url_env', 'api_key_env', 'model_name']) {
        const p = `model.external_model.${key}`;
        if (v.unknown(p)) continue;
        const val = v.get(p);
        if (val === null || val === undefined || val === '') {
          report(ctx, {
            severity: 'error',
            code: 'trinity.model.external-required',
            message: l10n.t('`{0}` is required for external engine.', p),
            path: p,
          });
        }
      }
    }
    const tpl = v.str('model.chat_template_path');
    if (tpl && !v.has('model.custom_chat_template') && ctx.checkPaths) {
      const r = resolveLocalPath(tpl, ctx.roots, ctx.file);
      if (r.checkable && !r.found) {
        let readable: boolean;
        try {
          fs.accessSync(r.candidates[0], fs.constants.R_OK);
          readable = true;
        } catch {
          readable = false;
        }
        if (!readable) {
          report(ctx, {
            severity: 'error',
            code: 'trinity.model.chat-template-missing',
            message: l10n.t('Failed to read chat template from `{0}`: no such file (looked in {1}).', tpl, list(r.candidates)),
            path: 'model.chat_template_path',
            span: v.span('model.chat_template_path'),
          });
        }
      }
    }
  },
};
