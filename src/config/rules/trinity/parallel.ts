// Trinity-RFT 0.6's per-engine parallelism (RayClusterConfigValidator.
// _validate_multinode_inference_models, agentscope-ai/Trinity-RFT @ 1c35a79b): an engine takes
// data_parallel_size × tensor_parallel_size × pipeline_parallel_size GPUs; one larger than a
// node spans whole nodes; vLLM keeps data parallelism on one node; SGLang needs TP divisible
// by DP; each parallel size at least 1 (_validate_inference_parallel_config). Also 0.6's
// over_rollout.return_partial_tasks, which needs a non-fixed sync style (ExplorerConfigValidator,
// pan-x-c/Trinity-RFT @ 03782715). One rule per upstream check, so each can be shown to be the
// one that reports.
import { l10n, verbatim } from '../../core/l10n-text';
import { report, setValueFix, type Rule, type RuleContext } from '../context';
import { atLeast06, intOf, items, syncStyleOf } from './common';
import { valueText } from '../../../base/value-text';

export interface Engine {
  /** Dotted path of the model section. */
  path: string;
  type: string;
  engines: number;
  tp: number;
  dp: number;
  pp: number;
  /** GPUs one engine takes (0 for tinker / external). */
  gpus: number;
}

/** The rollout model and the auxiliary models, with 0.6's GPU count per engine. */
export function enginesOf(ctx: RuleContext): Engine[] | undefined {
  const v = ctx.view;
  const sections: [string, Record<string, unknown>][] = [];
  const rollout = v.get('explorer.rollout_model');
  sections.push(['explorer.rollout_model', rollout && typeof rollout === 'object' ? (rollout as Record<string, unknown>) : {}]);
  items(v, 'explorer.auxiliary_models').forEach((m, i) => sections.push([`explorer.auxiliary_models[${i}]`, m]));
  const out: Engine[] = [];
  for (const [path, m] of sections) {
    const type = typeof m.engine_type === 'string' ? m.engine_type : 'vllm';
    const tp = intOf(m, 'tensor_parallel_size', 1);
    const dp = intOf(m, 'data_parallel_size', 1);
    const pp = intOf(m, 'pipeline_parallel_size', 1);
    const engines = intOf(m, 'engine_num', 1);
    if (tp === undefined || dp === undefined || pp === undefined || engines === undefined) return undefined;
    const gpus = type === 'tinker' || type === 'external' ? 0 : dp * tp * pp;
    out.push({ path, type, engines, tp, dp, pp, gpus });
  }
  return out;
}

const related = (ctx: RuleContext, keys: string[]) =>
  keys.map((k) => {
    const x = ctx.view.get(k);
    return { path: k, message: x === undefined || x === null ? l10n.t('`{0}` = (default)', k) : verbatim(`\`${k}\` = ${valueText(x)}`) };
  });
const written = (ctx: RuleContext, e: Engine, key: string) => (ctx.view.has(`${e.path}.${key}`) ? `${e.path}.${key}` : undefined);
const parallelKeys = (ctx: RuleContext, e: Engine) =>
  ['data_parallel_size', 'tensor_parallel_size', 'pipeline_parallel_size'].map((k) => written(ctx, e, k)).filter((k): k is string => !!k);

/** Runs `check` for each engine when 0.6 is in force and `cluster.gpu_per_node` is known. */
function perEngine(ctx: RuleContext, check: (e: Engine, gpn: number | undefined) => void): void {
  if (!atLeast06(ctx)) return;
  const engines = enginesOf(ctx);
  if (!engines) return;
  const gpn = ctx.view.num('cluster.gpu_per_node');
  for (const e of engines) check(e, gpn && gpn > 0 ? gpn : undefined);
}

const multiNodeEngineRule: Rule = {
  id: 'trinity.engine.multinode',
  upstream: ['RayClusterConfigValidator._validate_multinode_inference_models'],
  run(ctx) {
    perEngine(ctx, (e, gpn) => {
      if (!gpn || e.gpus <= gpn || e.gpus % gpn === 0) return;
      const keys = parallelKeys(ctx, e);
      report(ctx, {
        severity: 'error',
        code: 'trinity.engine.multinode-whole-nodes',
        message: l10n.t(
          'Multi-node inference requires gpu_per_engine to be a multiple of cluster.gpu_per_node ({0}), but got gpu_per_engine={1} (data_parallel_size {2} × tensor_parallel_size {3} × pipeline_parallel_size {4}).',
          gpn,
          e.gpus,
          e.dp,
          e.tp,
          e.pp,
        ),
        path: keys[0] ?? `${e.path}.tensor_parallel_size`,
        related: related(ctx, [...keys.slice(1), 'cluster.gpu_per_node']),
      });
    });
  },
};

const vllmDataParallelRule: Rule = {
  id: 'trinity.engine.vllm-dp',
  upstream: ['RayClusterConfigValidator._validate_multinode_inference_models'],
  run(ctx) {
    perEngine(ctx, (e, gpn) => {
      if (!e.type.startsWith('vllm') || e.dp <= 1 || !gpn || e.gpus <= gpn || e.gpus % gpn !== 0) return;
      const fix = setValueFix(ctx, `${e.path}.data_parallel_size`, '1', l10n.t('Set data_parallel_size to 1'));
      report(ctx, {
        severity: 'error',
        code: 'trinity.engine.vllm-dp-multinode',
        message: l10n.t(
          'vLLM does not support data parallelism in multi-node setups: this engine takes {0} GPUs (DP {1} × TP {2} × PP {3}), more than one node ({4}).',
          e.gpus,
          e.dp,
          e.tp,
          e.pp,
          gpn,
        ),
        path: written(ctx, e, 'data_parallel_size') ?? `${e.path}.engine_type`,
        related: related(ctx, [...parallelKeys(ctx, e).filter((k) => !k.endsWith('data_parallel_size')), 'cluster.gpu_per_node']),
        fixes: fix ? [fix] : undefined,
      });
    });
  },
};

const sglangTpDpRule: Rule = {
  id: 'trinity.engine.sglang-tp-dp',
  upstream: ['RayClusterConfigValidator._validate_multinode_inference_models'],
  run(ctx) {
    perEngine(ctx, (e) => {
      if (e.type !== 'sglang' || e.dp <= 0 || e.tp % e.dp === 0) return;
      report(ctx, {
        severity: 'error',
        code: 'trinity.engine.sglang-tp-dp',
        message: l10n.t(
          'SGLang inference requires tensor_parallel_size to be a multiple of data_parallel_size, but got tensor_parallel_size={0} and data_parallel_size={1}.',
          e.tp,
          e.dp,
        ),
        path: written(ctx, e, 'data_parallel_size') ?? `${e.path}.tensor_parallel_size`,
        related: related(ctx, [`${e.path}.tensor_parallel_size`, `${e.path}.engine_type`]),
      });
    });
  },
};

const partialTasksRule: Rule = {
  id: 'trinity.explorer.partial-tasks',
  upstream: ['ExplorerConfigValidator.validate'],
  run(ctx) {
    if (!atLeast06(ctx)) return;
    const v = ctx.view;
    // the ratio > 0 case is explorerRule's (0.5 already had it)
    if (!v.bool('explorer.over_rollout.return_partial_tasks') || (v.num('explorer.over_rollout.ratio') ?? 0) > 0) return;
    const style = v.str('synchronizer.sync_style');
    if (syncStyleOf(v) !== 'fixed') return;
    const fix = setValueFix(ctx, 'synchronizer.sync_style', 'explorer_driven', l10n.t('Set sync_style to explorer_driven'));
    report(ctx, {
      severity: 'error',
      code: 'trinity.explorer.partial-tasks-sync-style',
      message: l10n.t(
        'over_rollout is not compatible with fixed sync_style (`return_partial_tasks` is on): set `synchronizer.sync_style` to `explorer_driven` or `trainer_driven`.',
      ),
      path: 'explorer.over_rollout.return_partial_tasks',
      related: [{ path: 'synchronizer.sync_style', message: l10n.t("sync_style is '{0}'", style ?? 'fixed') }],
      fixes: fix ? [fix] : undefined,
    });
  },
};

/** ExplorerConfigValidator._validate_inference_parallel_config (both stored 0.6 lines): each
 *  parallel size of a vLLM / SGLang engine, rollout or auxiliary, at least 1. */
const parallelMinRule: Rule = {
  id: 'trinity.engine.parallel-min',
  upstream: ['ExplorerConfigValidator._validate_inference_parallel_config'],
  run(ctx) {
    if (!atLeast06(ctx)) return;
    const engines = enginesOf(ctx);
    if (!engines) return;
    for (const e of engines) {
      if (e.type === 'tinker' || e.type === 'external') continue;
      const name = e.path === 'explorer.rollout_model' ? 'rollout_model' : 'auxiliary_model';
      for (const [key, value] of [
        ['tensor_parallel_size', e.tp],
        ['data_parallel_size', e.dp],
        ['pipeline_parallel_size', e.pp],
      ] as const) {
        if (value >= 1) continue;
        const fix = setValueFix(ctx, `${e.path}.${key}`, '1', l10n.t('Set {0} to 1', key));
        report(ctx, {
          severity: 'error',
          code: 'trinity.engine.parallel-min',
          message: l10n.t('`{0}.{1}` must be >= 1, but got {2}.', name, key, value),
          path: `${e.path}.${key}`,
          fixes: fix ? [fix] : undefined,
        });
      }
    }
  },
};

/** The 0.6 rules, in the engine's order. */
export const PARALLEL_RULES: Rule[] = [parallelMinRule, multiNodeEngineRule, vllmDataParallelRule, sglangTpDpRule, partialTasksRule];
