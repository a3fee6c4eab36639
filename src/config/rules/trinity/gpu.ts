// RayClusterConfigValidator's GPU accounting and veRL's parallel checks, statically, when
// `cluster.node_num` and `cluster.gpu_per_node` are set (0 means "ask the running Ray
// cluster", which only happens at launch). Auxiliary models take GPUs from the trainer too.
import { l10n, type Text, verbatim } from '../../core/l10n-text';
import type { ConfigView } from '../view';
import { report, setValueFix, type Rule, type RuleContext } from '../context';
import { algorithmOf, atLeast06, intOf, items, modeOf, trainBatchSize, trainerValidatorRuns, type Mode } from './common';
import { enginesOf } from './parallel';

interface Budget {
  mode: Mode;
  total: number;
  gpuPerNode: number;
  rollout: number;
  aux: number;
  /** GPUs per rollout engine: tensor_parallel_size (0.5), DP × TP × PP (0.6). */
  tp: number;
  /** The parallel sizes that make up `tp` (each with its key), so a message names each factor. */
  factors: { key: string; value: number }[];
  engines: number;
  /** GPUs left for the trainer (undefined where Trinity does not compute it). */
  trainer?: number;
}

/** Computes the GPU budget as `_set_gpu_allocation_info` does; undefined when it cannot be known here. */
function gpuBudget(v: ConfigView, ctx?: RuleContext): Budget | undefined {
  const mode = modeOf(v);
  if (!mode) return undefined;
  if (v.bool('model.tinker.enable') || v.bool('model.external_model.enable')) return undefined;
  if (v.str('explorer.rollout_model.engine_type') === 'external') return undefined;
  const nodes = v.num('cluster.node_num');
  const gpn = v.num('cluster.gpu_per_node');
  if (!nodes || !gpn || nodes <= 0 || gpn <= 0) return undefined;
  const tp = v.num('explorer.rollout_model.tensor_parallel_size');
  const engines = v.num('explorer.rollout_model.engine_num');
  if (tp === undefined || engines === undefined) return undefined;
  let aux = 0;
  let perEngine = tp;
  let factors = [{ key: 'explorer.rollout_model.tensor_parallel_size', value: tp }];
  if (ctx && atLeast06(ctx)) {
    // 0.6: an engine takes DP × TP × PP GPUs (tinker / external none)
    const all = enginesOf(ctx);
    if (!all) return undefined;
    perEngine = all[0].gpus;
    const r = all[0];
    factors = [
      { key: 'explorer.rollout_model.data_parallel_size', value: r.dp },
      { key: 'explorer.rollout_model.tensor_parallel_size', value: r.tp },
      { key: 'explorer.rollout_model.pipeline_parallel_size', value: r.pp },
    ].filter((f) => f.value !== 1 || v.has(f.key));
    aux = all.slice(1).reduce((n, e) => n + e.gpus * e.engines, 0);
  } else {
    for (const m of items(v, 'explorer.auxiliary_models')) {
      const t = intOf(m, 'tensor_parallel_size', 1);
      const e = intOf(m, 'engine_num', 1);
      if (t === undefined || e === undefined) return undefined;
      aux += t * e;
    }
  }
  const rollout = mode === 'train' ? 0 : perEngine * engines;
  if (mode === 'train') aux = 0;
  const total = nodes * gpn;
  const b: Budget = { mode, total, gpuPerNode: gpn, rollout, aux, tp: perEngine, factors, engines };
  if (mode === 'colocate') b.trainer = 1;
  else if (mode === 'both' || mode === 'train') b.trainer = total - rollout - aux;
  return b;
}

const CLUSTER = ['cluster.node_num', 'cluster.gpu_per_node'];
const ROLLOUT = ['explorer.rollout_model.engine_num', 'explorer.rollout_model.tensor_parallel_size'];
/** The rollout keys a budget message names: engine_num and each parallel factor. */
const rolloutKeys = (b: Budget) => [...new Set([ROLLOUT[0], ...b.factors.map((f) => f.key), ROLLOUT[1]])];

/** The key to mark for a rollout-size problem: engine_num if written, else tp, else the cluster. */
function rolloutKey(v: ConfigView): string {
  if (v.has('explorer.rollout_model.engine_num')) return 'explorer.rollout_model.engine_num';
  if (v.has('explorer.rollout_model.tensor_parallel_size')) return 'explorer.rollout_model.tensor_parallel_size';
  return v.has('cluster.gpu_per_node') ? 'cluster.gpu_per_node' : 'cluster.node_num';
}

function relatedOf(v: ConfigView, keys: string[]) {
  return keys.map((k) => ({ path: k, message: verbatim(`\`${k}\` = ${String(v.get(k))}`) }));
}

const gpuCount = (n: number): Text => (n === 1 ? l10n.t('1 GPU') : l10n.t('{0} GPUs', n));
const engineCount = (n: number): Text => (n === 1 ? l10n.t('1 engine') : l10n.t('{0} engines', n));

/** What the explorer takes, each factor named: "2 engines × 4 GPUs (tensor_parallel_size 2 × pipeline_parallel_size 2)". */
function explorerShare(b: Budget): Text {
  const named = b.factors.filter((f) => f.value !== 1);
  const factors = named.length ? verbatim(` (${named.map((f) => `${f.key.split('.').pop()!} ${f.value}`).join(' × ')})`) : verbatim('');
  const aux = b.aux ? l10n.t(' + {0} for auxiliary models', b.aux) : verbatim('');
  return l10n.t('{0} × {1}{2}{3}', engineCount(b.engines), gpuCount(b.tp), factors, aux);
}

/** The most engines that fit in `maxExplorer` GPUs, when that is fewer (and at least 1). */
function fittingEngines(b: Budget, maxExplorer: number): number | undefined {
  const engines = Math.floor((maxExplorer - b.aux) / b.tp);
  return engines < 1 || engines >= b.engines ? undefined : engines;
}

function engineFix(ctx: RuleContext, b: Budget, maxExplorer: number) {
  const engines = fittingEngines(b, maxExplorer);
  if (engines === undefined) return undefined;
  return setValueFix(ctx, 'explorer.rollout_model.engine_num', String(engines), l10n.t('Set engine_num to {0}', engines));
}

/** mode both/train with no GPU left for the trainer: said once, at the key to change, with the ways out. */
function noTrainerGpus(ctx: RuleContext, b: Budget, explorer: number, related: { path: string; message: Text }[]): void {
  const v = ctx.view;
  const nodes = b.total / b.gpuPerNode;
  const engines = fittingEngines(b, b.total - 1);
  const gpn = Math.ceil((explorer + 1) / nodes);
  const ways: Text[] = [];
  if (engines !== undefined) ways.push(verbatim(`\`explorer.rollout_model.engine_num: ${engines}\``));
  ways.push(verbatim(`\`cluster.gpu_per_node: ${gpn}\``));
  const gpnFix = setValueFix(ctx, 'cluster.gpu_per_node', String(gpn), l10n.t('Set cluster.gpu_per_node to {0}', gpn), engines === undefined);
  const modeFix = v.loc('mode') ? setValueFix(ctx, 'mode', 'explore', l10n.t("Use mode 'explore' (the explorer alone)"), false) : undefined;
  const path = engines !== undefined ? 'explorer.rollout_model.engine_num' : v.has('cluster.gpu_per_node') ? 'cluster.gpu_per_node' : rolloutKey(v);
  report(ctx, {
    severity: 'error',
    code: 'trinity.gpu.no-trainer-gpus',
    message: l10n.t(
      "Not enough GPUs for the trainer: the explorer needs {0} ({1}) of the cluster's {2}, and the trainer needs at least 1. Set {3}, or use `mode: explore` to run the explorer alone.",
      gpuCount(explorer),
      explorerShare(b),
      b.total,
      ways.length === 1 ? ways[0] : l10n.t('{0} or {1}', ways[0], ways[1]),
    ),
    path,
    related: [...related, ...relatedOf(v, ['mode'])],
    fixes: [engineFix(ctx, b, b.total - 1), gpnFix, modeFix].filter((f): f is NonNullable<typeof f> => !!f),
    once: true,
  });
}

export const gpuRule: Rule = {
  id: 'trinity.gpu',
  upstream: ['RayClusterConfigValidator._set_gpu_allocation_info'],
  run(ctx) {
    const v = ctx.view;
    const b = gpuBudget(v, ctx);
    if (!b) return;
    const explorer = b.rollout + b.aux;
    const related = relatedOf(v, [...CLUSTER, ...rolloutKeys(b), ...(b.aux ? ['explorer.auxiliary_models'] : [])]);
    if (b.mode === 'explore' || b.mode === 'bench' || b.mode === 'serve') {
      if (explorer > b.total) {
        const fix = engineFix(ctx, b, b.total);
        report(ctx, {
          severity: 'error',
          code: 'trinity.gpu.explorer-exceeds-total',
          message: l10n.t('Total GPU number ({0}) is less than the number of GPUs required for rollout ({1} = {2}).', b.total, explorer, explorerShare(b)),
          path: rolloutKey(v),
          related,
          fixes: fix ? [fix] : undefined,
          once: true,
        });
      }
      return;
    }
    if (b.mode === 'colocate') {
      colocate(ctx, b);
    } else if (explorer >= b.total) {
      noTrainerGpus(ctx, b, explorer, related);
      return;
    } else if (b.trainer! > b.gpuPerNode && b.trainer! % b.gpuPerNode !== 0) {
      // engines such that the trainer keeps whole nodes
      const fixes = [];
      for (let e = b.engines - 1; e >= 1 && fixes.length < 1; e--) {
        const t = b.total - e * b.tp - b.aux;
        if (t > 0 && (t <= b.gpuPerNode || t % b.gpuPerNode === 0))
          fixes.push(setValueFix(ctx, 'explorer.rollout_model.engine_num', String(e), l10n.t('Set engine_num to {0} (trainer gets {1} GPUs)', e, t)));
      }
      for (let e = b.engines + 1; e * b.tp + b.aux < b.total && fixes.length < 2; e++) {
        const t = b.total - e * b.tp - b.aux;
        if (t > 0 && (t <= b.gpuPerNode || t % b.gpuPerNode === 0))
          fixes.push(setValueFix(ctx, 'explorer.rollout_model.engine_num', String(e), l10n.t('Set engine_num to {0} (trainer gets {1} GPUs)', e, t), false));
      }
      report(ctx, {
        severity: 'error',
        code: 'trinity.gpu.trainer-whole-nodes',
        message: l10n.t(
          'Trainer must use an integer number of nodes, but got trainer_gpu_num ({0}) with gpu_per_node ({1}). Change `engine_num` or `tensor_parallel_size` in the explorer config.',
          b.trainer,
          b.gpuPerNode,
        ),
        path: rolloutKey(v),
        related,
        fixes: fixes.filter((f): f is NonNullable<typeof f> => !!f),
        once: true,
      });
      return;
    }
    batchRules(ctx, b);
  },
};

function colocate(ctx: RuleContext, b: Budget): void {
  const v = ctx.view;
  if (b.total !== 1) {
    const fix = setValueFix(ctx, 'mode', 'both', l10n.t("Use mode 'both'"));
    report(ctx, {
      severity: 'error',
      code: 'trinity.gpu.colocate-total',
      message: l10n.t('Colocate mode requires exactly 1 GPU, but got {0} GPUs. Use `both` mode instead.', b.total),
      path: 'mode',
      related: relatedOf(v, CLUSTER),
      fixes: fix ? [fix] : undefined,
    });
  }
  const one = (path: string, code: string, message: Text) => {
    const fix = setValueFix(ctx, path, '1', l10n.t('Set to 1'));
    report(ctx, { severity: 'error', code, message, path, related: [{ path: 'mode', message: l10n.t("mode is 'colocate'") }], fixes: fix ? [fix] : undefined });
  };
  if (b.engines !== 1)
    one('explorer.rollout_model.engine_num', 'trinity.gpu.colocate-engines', l10n.t('In colocate mode, `explorer.rollout_model.engine_num` must be set to 1.'));
  if (b.tp !== 1 && atLeast06(ctx)) {
    // 0.6 checks the whole engine: gpu_per_engine = DP × TP × PP
    const key =
      ['tensor_parallel_size', 'data_parallel_size', 'pipeline_parallel_size'].map((k) => `explorer.rollout_model.${k}`).find((k) => (v.num(k) ?? 1) > 1) ??
      'explorer.rollout_model.tensor_parallel_size';
    one(
      key,
      'trinity.gpu.colocate-tp',
      l10n.t(
        'In colocate mode, `explorer.rollout_model.gpu_per_engine` must be set to 1 (it is {0} = data_parallel_size × tensor_parallel_size × pipeline_parallel_size).',
        b.tp,
      ),
    );
  } else if (b.tp !== 1)
    one(
      'explorer.rollout_model.tensor_parallel_size',
      'trinity.gpu.colocate-tp',
      l10n.t('In colocate mode, `explorer.rollout_model.tensor_parallel_size` must be set to 1.'),
    );
  if (v.len('explorer.auxiliary_models') > 0) {
    report(ctx, {
      severity: 'error',
      code: 'trinity.gpu.colocate-aux',
      message: l10n.t('In colocate mode, auxiliary models are not supported.'),
      path: 'explorer.auxiliary_models',
      related: [{ path: 'mode', message: l10n.t("mode is 'colocate'") }],
    });
  }
  const sp = v.num('trainer.ulysses_sequence_parallel_size');
  if (sp !== undefined && sp > 1)
    one(
      'trainer.ulysses_sequence_parallel_size',
      'trinity.gpu.colocate-sp',
      l10n.t('In colocate mode, `trainer.ulysses_sequence_parallel_size` must be set to 1.'),
    );
}

/** veRL's `_check_parallel_config`: sp divides the trainer GPUs; the batch divides GPUs ÷ sp. */
function batchRules(ctx: RuleContext, b: Budget): void {
  const v = ctx.view;
  if (b.trainer === undefined || b.trainer <= 0) return;
  if (!trainerValidatorRuns(v, ctx.trinityVersion)) return;
  if ((v.str('trainer.trainer_type') ?? 'verl') !== 'verl') return;
  if (!(v.str('trainer.trainer_strategy') ?? 'fsdp').startsWith('fsdp')) return;
  const actorSp = v.num('trainer.trainer_config.actor_rollout_ref.actor.ulysses_sequence_parallel_size');
  const spKey =
    actorSp !== undefined && actorSp > 0
      ? 'trainer.trainer_config.actor_rollout_ref.actor.ulysses_sequence_parallel_size'
      : 'trainer.ulysses_sequence_parallel_size';
  let sp = v.num(spKey);
  if (sp === undefined) return;
  if (sp < 1) sp = 1;
  const world = b.trainer;
  const gpuRelated = [...relatedOf(v, CLUSTER), ...relatedOf(v, ROLLOUT)];
  if (world % sp !== 0) {
    const divisors = [1, 2, 4, 8, 16].filter((d) => world % d === 0 && d < sp);
    const best = divisors[divisors.length - 1];
    const fix = best ? setValueFix(ctx, spKey, String(best), l10n.t('Set sequence parallel size to {0}', best)) : undefined;
    report(ctx, {
      severity: 'error',
      code: 'trinity.batch.sp-divides-gpus',
      message: l10n.t('The number of trainer GPUs ({0}) must be divisible by `{1}` ({2}).', world, spKey.split('.').slice(-2).join('.'), sp),
      path: spKey,
      related: gpuRelated,
      fixes: fix ? [fix] : undefined,
    });
    return;
  }
  const algo = algorithmOf(v);
  if ((v.get('buffer.train_batch_size') === 0 || v.num('buffer.train_batch_size') === 0) && (b.mode === 'train' || algo === 'sft' || algo === 'dpo')) return; // reported as required
  const tbs = trainBatchSize(v);
  if (tbs === undefined) return;
  const div = world / sp;
  if (tbs % div !== 0) {
    const explicit = (v.num('buffer.train_batch_size') ?? 0) > 0;
    const key = explicit ? 'buffer.train_batch_size' : v.has('buffer.batch_size') ? 'buffer.batch_size' : 'buffer.train_batch_size';
    const up = Math.ceil(tbs / div) * div;
    const down = Math.floor(tbs / div) * div;
    const fixes = [setValueFix(ctx, 'buffer.train_batch_size', String(up), l10n.t('Set train_batch_size to {0}', up))];
    if (down > 0) fixes.push(setValueFix(ctx, 'buffer.train_batch_size', String(down), l10n.t('Set train_batch_size to {0}', down), false));
    const derived = explicit ? verbatim('') : l10n.t(' (train_batch_size = batch_size × repeat_times = {0})', tbs);
    report(ctx, {
      severity: 'error',
      code: 'trinity.batch.divisible',
      message: l10n.t(
        'The batch size ({0}) must be divisible by the number of trainer GPUs ({1}) divided by the sequence parallelism size ({2}){3}.',
        tbs,
        world,
        sp,
        derived,
      ),
      path: key,
      related: [...gpuRelated, ...relatedOf(v, [spKey]), ...(explicit ? [] : relatedOf(v, ['algorithm.repeat_times']))],
      fixes: fixes.filter((f): f is NonNullable<typeof f> => !!f),
    });
  }
  // fsdp_size must divide the trainer world size
  const fsdpKey = 'trainer.trainer_config.actor_rollout_ref.actor.fsdp_config.fsdp_size';
  const fsdp = v.num(fsdpKey);
  if (fsdp !== undefined && fsdp > 0 && fsdp < world && world % fsdp !== 0) {
    report(ctx, {
      severity: 'error',
      code: 'trinity.trainer.fsdp-size',
      message: l10n.t('The number of GPUs ({0}) must be divisible by `actor.fsdp_config.fsdp_size` ({1}).', world, fsdp),
      path: fsdpKey,
      related: gpuRelated,
    });
  }
}
