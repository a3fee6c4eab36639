// The verl under the trainer (Trinity-RFT ≥ 0.6 runs either backend, see facts/verl.ts): with
// verl ≥ 0.8 `trainer.trainer_config` is never read, so whatever a user put there does nothing —
// one warning naming the Trinity key that now sets each thing, where one exists.
import { compareVersions } from '../../core/versions';
import { l10n, list, verbatim, type Text } from '../../core/l10n-text';
import { trinityKeyFor, VERL_ENGINE_SINCE, VERL_ENGINE_TRINITY } from '../../facts/verl';
import type { PackageInForce } from '../../workspace/trinity-version';
import { report, type Rule, type RuleContext } from '../context';

/** `verl 0.8.0, pinned in requirements.txt`. */
export function verlSource(v: PackageInForce): Text {
  if (v.source === 'pin') return l10n.t('verl {0}, pinned in {1}', v.version, v.from);
  if (v.source === 'installed') return l10n.t('verl {0}, installed in {1}', v.version, v.from);
  return l10n.t('verl {0}, {1}', v.version, v.from);
}

/** True / false when the workspace says which verl it has, undefined when it does not. */
export function verlEngine(ctx: Pick<RuleContext, 'verl' | 'trinityVersion'>): boolean | undefined {
  if (compareVersions(ctx.trinityVersion, VERL_ENGINE_TRINITY) < 0) return false;
  return ctx.verl ? compareVersions(ctx.verl.version, VERL_ENGINE_SINCE) >= 0 : undefined;
}

/** Leaf paths written below a mapping, dotted. */
function leaves(value: unknown, prefix = ''): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return prefix ? [prefix] : [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out.push(...leaves(v, prefix ? `${prefix}.${k}` : k));
  return out;
}

const SHOWN = 6;

export const verlEngineRule: Rule = {
  id: 'trinity.trainer.verl-engine',
  upstream: ['TrainerConfigValidator.validate'],
  run(ctx) {
    const v = ctx.view;
    if (!verlEngine(ctx) || !ctx.verl || !v.has('trainer.trainer_config')) return;
    if ((v.str('trainer.trainer_type') ?? 'verl') !== 'verl') return;
    const paths = leaves(v.get('trainer.trainer_config'));
    if (!paths.length) return;
    const mapped = paths.map((p) => [p, trinityKeyFor(p)] as const);
    const use = mapped
      .filter(([, k]) => k)
      .slice(0, SHOWN)
      .map(([p, k]) => l10n.t('`{0}` for `{1}`', k, p));
    const none = mapped.filter(([, k]) => !k).map(([p]) => `\`${p}\``);
    const parts: Text[] = [];
    if (use.length) parts.push(l10n.t(' Use {0} instead.', list(use)));
    if (none.length)
      parts.push(l10n.t(' No Trinity key sets {0}: veRL uses its own default.', list(none.length > SHOWN ? [...none.slice(0, SHOWN), '…'] : none)));
    report(ctx, {
      severity: 'warning',
      code: 'trinity.trainer.verl-config-ignored',
      message: l10n.t(
        "verl ≥ {0} ({1}): Trinity-RFT builds veRL's config from Trinity keys, so `trainer.trainer_config` is ignored.{2}{3}",
        VERL_ENGINE_SINCE.replace(/\.0$/, ''),
        verlSource(ctx.verl),
        parts[0] ?? verbatim(''),
        parts[1] ?? verbatim(''),
      ),
      path: 'trainer.trainer_config',
      tags: ['unnecessary'],
    });
  },
};
