// ASTuner (`astuner:`) and AgentJet (`ajet:`) rules, from astuner.md §2.5: the Hydra
// skeleton the launcher edits, `.yaml` only, `module->Class` references, reader types,
// launcher asserts; legacy keys are reported through schema/version-findings.ts.
import * as path from 'path';
import { msg, suggest, type Fix } from '../../core/findings';
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
export function isLayer(ctx: RuleContext): boolean {
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
        message: msg(`The launcher only accepts \`.yaml\` files (\`assert yaml_path.endswith(".yaml")\`); rename \`${path.basename(ctx.file)}\`.`, `启动器只接受 \`.yaml\` 文件（\`assert yaml_path.endswith(".yaml")\`）；请重命名 \`${path.basename(ctx.file)}\`。`),
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
      const fix = setValueFix(ctx, `${root}.task_reader.type`, 'jsonl_dataset_file', msg('Change to jsonl_dataset_file', '改为 jsonl_dataset_file'));
      const fixes: Fix[] = fix ? [fix] : [];
      const blockKey = locate(ctx.root, [root, 'task_reader', 'dataset_file']);
      if (blockKey?.keySpan && fix) fix.edits.push({ span: blockKey.keySpan, newText: 'jsonl_dataset_file' });
      report(ctx, {
        severity: 'warning',
        code: 'agent.legacy-reader',
        message: msg('Reader type `dataset_file` was renamed `jsonl_dataset_file` (2025-12-18); the launcher raises "Unsupported task reader type".', '读取器类型 `dataset_file` 已于 2025-12-18 更名为 `jsonl_dataset_file`；启动器会报 "Unsupported task reader type"。'),
        path: `${root}.task_reader.type`,
        span: v.span(`${root}.task_reader.type`),
        fixes,
      });
    } else if (!READERS.includes(type)) {
      const best = suggest(type, READERS, 1)[0];
      const fix = best ? setValueFix(ctx, `${root}.task_reader.type`, best, msg(`Change to ${best}`, `改为 ${best}`)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'agent.reader-type',
        message: msg(`Unsupported task reader type '${type}' (expected ${READERS.join(', ')}).`, `不支持的任务读取器类型 '${type}'（应为 ${READERS.join('、')}）。`),
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
          message: msg(`Reader \`${type}\` reads \`task_reader.${block}\`, which this file does not set (the default layer has only placeholders).`, `读取器 \`${type}\` 会读取 \`task_reader.${block}\`，但本文件未设置（默认层只有占位值）。`),
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
      message: msg(`The launcher asserts \`rollout.max_env_worker > 4\` (got ${workers}) unless it runs with \`--debug\`.`, `除非使用 \`--debug\` 运行，启动器要求 \`rollout.max_env_worker > 4\`（实际为 ${workers}）。`),
      path: `${root}.rollout.max_env_worker`,
      span: v.span(`${root}.rollout.max_env_worker`),
    });
  }
  const gamma = v.num(`${root}.rollout.gamma`);
  if (gamma !== undefined && gamma !== 1 && v.has(`${root}.rollout.gamma`)) {
    const fix = setValueFix(ctx, `${root}.rollout.gamma`, '1.0', msg('Set gamma to 1.0', '将 gamma 设为 1.0'));
    report(ctx, { severity: 'error', code: 'agent.gamma', message: msg(`\`rollout.gamma\` must be 1.0 (asserted by the step-reward tracker), got ${gamma}.`, `\`rollout.gamma\` 必须为 1.0（步级奖励跟踪器会断言），实际为 ${gamma}。`), path: `${root}.rollout.gamma`, span: v.span(`${root}.rollout.gamma`), fixes: fix ? [fix] : undefined });
  }
  const checklist = v.get(`${root}.rollout.compute_madness_checklist`);
  if (Array.isArray(checklist)) {
    checklist.forEach((c, i) => {
      if (typeof c !== 'string' || MADNESS.includes(c)) return;
      const best = suggest(c, MADNESS, 1)[0];
      const p = `${root}.rollout.compute_madness_checklist[${i}]`;
      const fix = best ? setValueFix(ctx, p, best, msg(`Change to ${best}`, `改为 ${best}`)) : undefined;
      report(ctx, { severity: 'warning', code: 'agent.madness-check', message: msg(`Unknown madness check '${c}' (known: ${MADNESS.join(', ')}).`, `未知的失控检查项 '${c}'（已知：${MADNESS.join('、')}）。`), path: p, span: v.span(p), fixes: fix ? [fix] : undefined });
    });
  }
  // trinity backbone: rollout engines must leave GPUs for FSDP
  const engines = v.num(`${root}.rollout.n_vllm_engine`);
  const tp = v.num(`${root}.rollout.tensor_model_parallel_size`);
  const nodes = v.num(`${root}.trainer_common.nnodes`);
  const gpn = v.num(`${root}.trainer_common.n_gpus_per_node`);
  if (engines && tp && nodes && gpn && engines * tp >= nodes * gpn && (v.has(`${root}.rollout.n_vllm_engine`) || v.has(`${root}.rollout.tensor_model_parallel_size`))) {
    report(ctx, {
      severity: 'warning',
      code: 'agent.gpu-budget',
      message: msg(`With \`--backbone trinity\`, rollout takes ${engines * tp} GPUs (n_vllm_engine × tensor_model_parallel_size) of ${nodes * gpn}, leaving none for training.`, `使用 \`--backbone trinity\` 时，rollout 占用 ${nodes * gpn} 个 GPU 中的 ${engines * tp} 个（n_vllm_engine × tensor_model_parallel_size），训练没有剩余 GPU。`),
      path: v.has(`${root}.rollout.n_vllm_engine`) ? `${root}.rollout.n_vllm_engine` : `${root}.rollout.tensor_model_parallel_size`,
      related: [`${root}.trainer_common.nnodes`, `${root}.trainer_common.n_gpus_per_node`].map((p) => ({ path: p, message: msg(`\`${p}\``, `\`${p}\``) })),
    });
  }
  const mml = v.num(`${root}.rollout.max_model_len`);
  const mpl = v.num(`${root}.data.max_prompt_length`);
  const mrl = v.num(`${root}.data.max_response_length`);
  if (mml && mpl && mrl && mml < mpl + mrl && [`${root}.rollout.max_model_len`, `${root}.data.max_prompt_length`, `${root}.data.max_response_length`].some((p) => v.has(p))) {
    report(ctx, {
      severity: 'warning',
      code: 'agent.length',
      message: msg(`\`rollout.max_model_len\` (${mml}) is below \`data.max_prompt_length\` + \`data.max_response_length\` (${mpl} + ${mrl}).`, `\`rollout.max_model_len\`（${mml}）小于 \`data.max_prompt_length\` + \`data.max_response_length\`（${mpl} + ${mrl}）。`),
      path: v.has(`${root}.rollout.max_model_len`) ? `${root}.rollout.max_model_len` : `${root}.data.max_response_length`,
      related: [`${root}.data.max_prompt_length`, `${root}.data.max_response_length`].map((p) => ({ path: p, message: msg(`\`${p}\``, `\`${p}\``) })),
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
      message: msg(`\`defaults\` is required: the launcher edits it (${need.join(', ')}).`, `必须设置 \`defaults\`：启动器会修改它（${need.join('、')}）。`),
      path: 'defaults',
      span: { start: 0, end: 0 },
    });
  } else {
    for (const n of need) {
      if (names.includes(n)) continue;
      const wrong = names.find((x) => suggest(n, [x], 1).length && x !== n && !need.includes(x));
      const idx = wrong ? names.indexOf(wrong) : -1;
      const fix = idx >= 0 ? setValueFix(ctx, `defaults[${idx}]`, n, msg(`Change to ${n}`, `改为 ${n}`)) : undefined;
      report(ctx, {
        severity: 'error',
        code: 'agent.defaults',
        message: msg(`\`defaults\` must list \`${n}\`${wrong ? ` (found \`${wrong}\`)` : ''}.`, `\`defaults\` 必须包含 \`${n}\`${wrong ? `（找到的是 \`${wrong}\`）` : ''}。`),
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
    report(ctx, { severity: 'error', code: 'agent.searchpath', message: msg(`\`hydra.searchpath\` is required (${needPaths.join(', ')}).`, `必须设置 \`hydra.searchpath\`（${needPaths.join('、')}）。`), path: 'hydra.searchpath', span: v.keySpan('hydra.searchpath') });
    return;
  }
  for (const n of needPaths) {
    if (paths.map((p) => p.replace(/\/+$/, '')).includes(n)) continue;
    const idx = paths.findIndex((p) => p.replace(/\/+$/, '') === n.replace(`file://${A}/`, `file://${other}/`) || p.replace(/\/+$/, '') === n.replace(`file://${A}/`, 'file://agentscope_tuner/'));
    const fix = idx >= 0 ? setValueFix(ctx, `hydra.searchpath[${idx}]`, n, msg(`Change to ${n}`, `改为 ${n}`)) : undefined;
    report(ctx, {
      severity: 'error',
      code: 'agent.searchpath',
      message: msg(`\`hydra.searchpath\` must contain \`${n}\`${idx >= 0 ? ` (this entry is for ${other === 'ajet' ? 'AgentJet' : paths[idx].includes('agentscope_tuner') ? 'agentscope_tuner' : 'ASTuner'})` : ''}.`, `\`hydra.searchpath\` 必须包含 \`${n}\`${idx >= 0 ? '（此条目属于另一个版本）' : ''}。`),
      path: idx >= 0 ? `hydra.searchpath[${idx}]` : 'hydra.searchpath',
      span: idx >= 0 ? v.span(`hydra.searchpath[${idx}]`) : v.keySpan('hydra.searchpath'),
      fixes: fix ? [fix] : undefined,
    });
  }
}

function refs(ctx: RuleContext, root: string): void {
  const v = ctx.view;
  const wfKey = ctx.kind === 'astuner' ? 'agentscope_workflow' : 'user_workflow';
  for (const [p, what] of [[`${root}.rollout.${wfKey}`, 'workflow'], [`${root}.task_judge.judge_protocol`, 'judge']] as const) {
    if (!v.has(p)) continue;
    const ref = v.str(p);
    if (ref === undefined) continue;
    const span = v.span(p);
    if (!REF_RE.test(ref) && !FILE_REF_RE.test(ref)) {
      report(ctx, {
        severity: 'error',
        code: 'agent.ref-format',
        message: msg(`\`${p}\` must be \`module.path->Class\` or \`path/to/file.py->Class\`, got '${ref}'.`, `\`${p}\` 必须是 \`module.path->Class\` 或 \`path/to/file.py->Class\`，实际为 '${ref}'。`),
        path: p,
        span,
      });
      continue;
    }
    const found = ctx.python?.resolveArrow(ref, configAncestors(ctx.file));
    if (found && isLocation(found)) continue;
    const mod = ref.split('->')[0].trim();
    if (found && !isLocation(found)) {
      report(ctx, { severity: 'warning', code: 'agent.ref-unresolved', message: msg(`Class \`${found.missingClass}\` is not defined in \`${mod}\`.`, `\`${mod}\` 中没有定义类 \`${found.missingClass}\`。`), path: p, span });
    } else if (codeVisible(mod, [...ctx.roots, ...configAncestors(ctx.file)])) {
      report(ctx, { severity: 'warning', code: 'agent.ref-unresolved', message: msg(`Cannot find \`${mod}\` from the repository root; the ${what} will fail to import.`, `从仓库根目录找不到 \`${mod}\`；${what === 'workflow' ? '工作流' : '评判器'}将导入失败。`), path: p, span });
    }
  }
}
