// ASTuner (`astuner:`) and AgentJet (`ajet:`) rules, from ASTuner's launcher code: the Hydra
// skeleton the launcher edits, `.yaml` only, `module->Class` references, reader types,
// launcher asserts; legacy keys are reported through schema/version-findings.ts.
import * as path from 'path';
import { suggest, type Fix } from '../../core/findings';
import { l10n, list, verbatim } from '../../core/l10n-text';
import { codeVisible, isLocation } from '../../workspace/pyindex';
import { legacyAgentKeys } from '../../schema/version-findings';
import { configAncestors } from '../../core/paths';
import { locate } from '../../yaml/tree';
import { report, setValueFix, type RuleContext } from '../context';

const READERS = ['env_service', 'jsonl_dataset_file', 'huggingface_dat_repo', 'tracing', 'data_generation', 'random_dummy'];
const MADNESS = ['nonsense', 'non_ascii', 'format_type_1', 'wrong_toolcall'];
const REF_RE = /^[\w.]+->\w+$/;
const FILE_REF_RE = /^.+\.py->\w+$/;

/** A default layer (astune_default.yaml, trinity_default.yaml…) is merged into real configs, not launched. */
function isLayer(ctx: RuleContext): boolean {
  const v = ctx.view;
  if (v.has('hydra') || v.has('defaults')) return false;
  const f = ctx.file ? path.basename(ctx.file) : '';
  return /_default\.ya?ml$|_launch\.ya?ml$/.test(f) || /[/\\]default_config[/\\]/.test(ctx.file ?? '') || !ctx.file || !v.has(ctx.kind);
}

export function runAgentRules(ctx: RuleContext): void {
  const v = ctx.view;
  const A = ctx.kind; // 'astuner' | 'ajet'
  const root = A;
  const layer = isLayer(ctx);
  const defaultsName = A === 'astuner' ? 'astune_default' : 'ajet_default';
  if (!layer) {
    skeleton(ctx, defaultsName);
    if (ctx.file && !ctx.file.endsWith('.yaml')) {
      report(ctx, {
        severity: 'error',
        code: 'agent.extension',
        message: l10n.t('The launcher only accepts `.yaml` files (`assert yaml_path.endswith(".yaml")`); rename `{0}`.', path.basename(ctx.file)),
        path: root,
        span: { start: 0, end: 0 },
      });
    }
  }
  if (!v.has(root)) return;
  refs(ctx, root);
  const type = v.str(`${root}.task_reader.type`);
  if (type !== undefined && v.has(`${root}.task_reader.type`)) {
    if (type === 'dataset_file') {
      const fix = setValueFix(ctx, `${root}.task_reader.type`, 'jsonl_dataset_file', l10n.t('Change to jsonl_dataset_file'));
      const fixes: Fix[] = fix ? [fix] : [];
      const blockKey = locate(ctx.root, [root, 'task_reader', 'dataset_file']);
      if (blockKey?.keySpan && fix) fix.edits.push({ span: blockKey.keySpan, newText: 'jsonl_dataset_file' });
      report(ctx, {
        severity: 'warning',
        code: 'agent.legacy-reader',
        message: l10n.t('Reader type `dataset_file` was renamed `jsonl_dataset_file` (2025-12-18); the launcher raises "Unsupported task reader type".'),
        path: `${root}.task_reader.type`,
        span: v.span(`${root}.task_reader.type`),
        fixes,
      });
    } else if (!READERS.includes(type)) {
      const best = suggest(type, READERS, 1)[0];
      const fix = best ? setValueFix(ctx, `${root}.task_reader.type`, best, l10n.t('Change to {0}', best)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'agent.reader-type',
        message: l10n.t("Unsupported task reader type '{0}' (expected {1}).", type, list(READERS)),
        path: `${root}.task_reader.type`,
        span: v.span(`${root}.task_reader.type`),
        fixes: fix ? [fix] : undefined,
      });
    } else {
      const block = type === 'tracing' ? 'feedback_tracing' : type;
      if ((type === 'jsonl_dataset_file' || type === 'tracing') && !v.has(`${root}.task_reader.${block}`)) {
        report(ctx, {
          severity: 'warning',
          code: 'agent.reader-block',
          message: l10n.t('Reader `{0}` reads `task_reader.{1}`, which this file does not set (the default layer has only placeholders).', type, block),
          path: `${root}.task_reader.type`,
          span: v.span(`${root}.task_reader.type`),
        });
      }
    }
  }
  const workers = v.num(`${root}.rollout.max_env_worker`);
  if (workers !== undefined && v.has(`${root}.rollout.max_env_worker`) && workers <= 4) {
    report(ctx, {
      severity: 'warning',
      code: 'agent.max-env-worker',
      message: l10n.t('The launcher asserts `rollout.max_env_worker > 4` (got {0}) unless it runs with `--debug`.', workers),
      path: `${root}.rollout.max_env_worker`,
      span: v.span(`${root}.rollout.max_env_worker`),
    });
  }
  const gamma = v.num(`${root}.rollout.gamma`);
  if (gamma !== undefined && gamma !== 1 && v.has(`${root}.rollout.gamma`)) {
    const fix = setValueFix(ctx, `${root}.rollout.gamma`, '1.0', l10n.t('Set gamma to 1.0'));
    report(ctx, {
      severity: 'error',
      code: 'agent.gamma',
      message: l10n.t('`rollout.gamma` must be 1.0 (asserted by the step-reward tracker), got {0}.', gamma),
      path: `${root}.rollout.gamma`,
      span: v.span(`${root}.rollout.gamma`),
      fixes: fix ? [fix] : undefined,
    });
  }
  const checklist = v.get(`${root}.rollout.compute_madness_checklist`);
  if (Array.isArray(checklist)) {
    checklist.forEach((c, i) => {
      if (typeof c !== 'string' || MADNESS.includes(c)) return;
      const best = suggest(c, MADNESS, 1)[0];
      const p = `${root}.rollout.compute_madness_checklist[${i}]`;
      const fix = best ? setValueFix(ctx, p, best, l10n.t('Change to {0}', best)) : undefined;
      report(ctx, {
        severity: 'warning',
        code: 'agent.madness-check',
        message: l10n.t("Unknown madness check '{0}' (known: {1}).", c, list(MADNESS)),
        path: p,
        span: v.span(p),
        fixes: fix ? [fix] : undefined,
      });
    });
  }
  // trinity backbone: rollout engines must leave GPUs for FSDP
  const engines = v.num(`${root}.rollout.n_vllm_engine`);
  const tp = v.num(`${root}.rollout.tensor_model_parallel_size`);
  const nodes = v.num(`${root}.trainer_common.nnodes`);
  const gpn = v.num(`${root}.trainer_common.n_gpus_per_node`);
  if (
    engines &&
    tp &&
    nodes &&
    gpn &&
    engines * tp >= nodes * gpn &&
    (v.has(`${root}.rollout.n_vllm_engine`) || v.has(`${root}.rollout.tensor_model_parallel_size`))
  ) {
    report(ctx, {
      severity: 'warning',
      code: 'agent.gpu-budget',
      message: l10n.t(
        'With `--backbone trinity`, rollout takes {0} GPUs (n_vllm_engine × tensor_model_parallel_size) of {1}, leaving none for training.',
        engines * tp,
        nodes * gpn,
      ),
      path: v.has(`${root}.rollout.n_vllm_engine`) ? `${root}.rollout.n_vllm_engine` : `${root}.rollout.tensor_model_parallel_size`,
      related: [`${root}.trainer_common.nnodes`, `${root}.trainer_common.n_gpus_per_node`].map((p) => ({ path: p, message: verbatim(`\`${p}\``) })),
    });
  }
  const mml = v.num(`${root}.rollout.max_model_len`);
  const mpl = v.num(`${root}.data.max_prompt_length`);
  const mrl = v.num(`${root}.data.max_response_length`);
  if (
    mml &&
    mpl &&
    mrl &&
    mml < mpl + mrl &&
    [`${root}.rollout.max_model_len`, `${root}.data.max_prompt_length`, `${root}.data.max_response_length`].some((p) => v.has(p))
  ) {
    report(ctx, {
      severity: 'warning',
      code: 'agent.length',
      message: l10n.t('`rollout.max_model_len` ({0}) is below `data.max_prompt_length` + `data.max_response_length` ({1} + {2}).', mml, mpl, mrl),
      path: v.has(`${root}.rollout.max_model_len`) ? `${root}.rollout.max_model_len` : `${root}.data.max_response_length`,
      related: [`${root}.data.max_prompt_length`, `${root}.data.max_response_length`].map((p) => ({ path: p, message: verbatim(`\`${p}\``) })),
    });
  }
  legacyAgentKeys(ctx, root);
}

function skeleton(ctx: RuleContext, defaultsName: string): void {
  const v = ctx.view;
  const A = ctx.kind;
  const other = A === 'astuner' ? 'ajet' : 'astuner';
  const defaults = v.get('defaults');
  const names = Array.isArray(defaults) ? defaults.map((d) => (typeof d === 'string' ? d : '')) : [];
  // today's AgentJet ships verl-only layers (ajet_swarm_default.yaml @ 1b4afc7d): the trinity
  // layer is needed only with the trinity backbone (and always for ASTuner)
  const withTrinity = A === 'astuner' || v.str(`${A}.backbone`) === 'trinity';
  const need = ['verl_default', ...(withTrinity ? ['trinity_default'] : []), defaultsName, '_self_'];
  if (!v.has('defaults')) {
    report(ctx, {
      severity: 'error',
      code: 'agent.defaults',
      message: l10n.t('`defaults` is required: the launcher edits it ({0}).', list(need)),
      path: 'defaults',
      span: { start: 0, end: 0 },
    });
  } else {
    for (const n of need) {
      if (names.includes(n)) continue;
      const wrong = names.find((x) => suggest(n, [x], 1).length && x !== n && !need.includes(x));
      const idx = wrong ? names.indexOf(wrong) : -1;
      const fix = idx >= 0 ? setValueFix(ctx, `defaults[${idx}]`, n, l10n.t('Change to {0}', n)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'agent.defaults',
        message: l10n.t('`defaults` must list `{0}`{1}.', n, wrong ? l10n.t(' (found `{0}`)', wrong) : verbatim('')),
        path: idx >= 0 ? `defaults[${idx}]` : 'defaults',
        span: idx >= 0 ? v.span(`defaults[${idx}]`) : v.keySpan('defaults'),
        fixes: fix ? [fix] : undefined,
      });
    }
  }
  const sp = v.get('hydra.searchpath');
  const paths = Array.isArray(sp) ? sp.map(String) : [];
  const needPaths = [`file://${A}/default_config`, `file://${A}/default_config/verl`, ...(withTrinity ? [`file://${A}/default_config/trinity`] : [])];
  if (!v.has('hydra.searchpath')) {
    report(ctx, {
      severity: 'error',
      code: 'agent.searchpath',
      message: l10n.t('`hydra.searchpath` is required ({0}).', list(needPaths)),
      path: 'hydra.searchpath',
      span: v.keySpan('hydra.searchpath'),
    });
    return;
  }
  for (const n of needPaths) {
    if (paths.map((p) => p.replace(/\/+$/, '')).includes(n)) continue;
    const idx = paths.findIndex(
      (p) =>
        p.replace(/\/+$/, '') === n.replace(`file://${A}/`, `file://${other}/`) ||
        p.replace(/\/+$/, '') === n.replace(`file://${A}/`, 'file://agentscope_tuner/'),
    );
    const fix = idx >= 0 ? setValueFix(ctx, `hydra.searchpath[${idx}]`, n, l10n.t('Change to {0}', n)) : undefined;
    report(ctx, {
      severity: 'error',
      code: 'agent.searchpath',
      message: l10n.t(
        '`hydra.searchpath` must contain `{0}`{1}.',
        n,
        idx >= 0
          ? l10n.t(' (this entry is for {0})', other === 'ajet' ? 'AgentJet' : paths[idx].includes('agentscope_tuner') ? 'agentscope_tuner' : 'ASTuner')
          : verbatim(''),
      ),
      path: idx >= 0 ? `hydra.searchpath[${idx}]` : 'hydra.searchpath',
      span: idx >= 0 ? v.span(`hydra.searchpath[${idx}]`) : v.keySpan('hydra.searchpath'),
      fixes: fix ? [fix] : undefined,
    });
  }
}

function refs(ctx: RuleContext, root: string): void {
  const v = ctx.view;
  const wfKey = ctx.kind === 'astuner' ? 'agentscope_workflow' : 'user_workflow';
  for (const [p, what] of [
    [`${root}.rollout.${wfKey}`, 'workflow'],
    [`${root}.task_judge.judge_protocol`, 'judge'],
  ] as const) {
    if (!v.has(p)) continue;
    const ref = v.str(p);
    if (ref === undefined) continue;
    const span = v.span(p);
    if (!REF_RE.test(ref) && !FILE_REF_RE.test(ref)) {
      report(ctx, {
        severity: 'error',
        code: 'agent.ref-format',
        message: l10n.t("`{0}` must be `module.path->Class` or `path/to/file.py->Class`, got '{1}'.", p, ref),
        path: p,
        span,
      });
      continue;
    }
    const found = ctx.python?.resolveArrow(ref, configAncestors(ctx.file));
    if (found && isLocation(found)) continue;
    const mod = ref.split('->')[0].trim();
    if (found && !isLocation(found)) {
      report(ctx, {
        severity: 'warning',
        code: 'agent.ref-unresolved',
        message: l10n.t('Class `{0}` is not defined in `{1}`.', found.missingClass, mod),
        path: p,
        span,
      });
    } else if (codeVisible(mod, [...ctx.roots, ...configAncestors(ctx.file)])) {
      report(ctx, {
        severity: 'warning',
        code: 'agent.ref-unresolved',
        message:
          what === 'workflow'
            ? l10n.t('Cannot find `{0}` from the repository root; the workflow will fail to import.', mod)
            : l10n.t('Cannot find `{0}` from the repository root; the judge will fail to import.', mod),
        path: p,
        span,
      });
    }
  }
}
