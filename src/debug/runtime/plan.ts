// From a launch configuration plus the config engine's resolved YAML to what the runner
// needs (RunnerPlan) and where the model is. Pure: no vscode, no processes.
import * as fs from 'fs';
import * as path from 'path';
import type { ConfigKind } from '../../feature-api/config-checker';
import type { RunnerPlan, TaskSource } from '../trajectory/runner-protocol';

export type Backbone = 'native' | 'trinity' | 'astuner' | 'ajet';

/** The `agentrl` launch attributes (package.json contributes.debuggers[].configurationAttributes). */
export interface RolloutLaunchArgs {
  config: string;
  workflow?: string;
  tasks?: number | (string | number)[];
  split?: string;
  repeat?: number;
  model?: { baseUrl?: string; name?: string; apiKeyEnv?: string; timeout?: number; maxReplyMB?: number };
  /** Index-aligned with explorer.auxiliary_models: each one's endpoint (default: the main one). */
  auxiliaryModels?: { baseUrl?: string; name?: string; apiKeyEnv?: string; timeout?: number }[];
  /** Episodes run at once (default: the config's runner count, as Trinity's explorer). */
  concurrency?: number;
  /** Extra arguments for an upstream backbone's command, after ours: e.g. AgentJet's launcher
   *  flags (`--exp-dir DIR`, `--with-ray-cluster`, `--autokill`; ajet/launcher.py). */
  launcherArgs?: string[];
  /** AgentJet breakpoint tags: `bp("TAG")` in the workflow stops only for the tags named here
   *  (passed as the launcher's `--debug=TAG1|TAG2`, which AgentJet splits on `|`). */
  debugTags?: string[];
  backbone?: Backbone;
  python?: string;
  cwd?: string;
  env?: Record<string, string>;
  breakOn?: string[];
  record?: boolean;
  replay?: string;
  /** Replay one experience of a training run: its job dir (or relay URL) and row id. */
  rollout?: {
    fromJob: string;
    id: string | number;
    /** At a divergence, go on against the live model ("model", else $OPENAI_BASE_URL) without asking. */
    liveAfterDivergence?: boolean;
  };
  noDebug?: boolean;
  /** Set by the extension: start the runner under debugpy and attach a child session. */
  pythonDebugger?: boolean;
  /** Where .agentrl/runs lives (default: cwd). Set by the extension to the workspace folder. */
  workspaceRoot?: string;
}

export interface PlanResult {
  plan?: Omit<RunnerPlan, 'model' | 'clientTimeout' | 'auxiliaryModels'>;
  /** Sampling/model defaults read from the config (model name to ask for). */
  modelName?: string;
  /** The config's explorer.auxiliary_models, by name (name, else model_path). */
  auxiliaryNames?: string[];
  errors: string[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** A taskset path: local file/folder (relative to cwd, else to the config's folder) or an HF id;
 *  `subset` is Trinity's `subset_name` (datasets' configuration name), for a folder as for an id. */
export function taskSource(p: string, split: string, cwd: string, configDir: string, subset?: string): TaskSource {
  for (const base of [cwd, configDir]) {
    const abs = path.isAbsolute(p) ? p : path.join(base, p);
    if (fs.existsSync(abs)) return { type: 'file', path: abs, ...(split ? { split } : {}), ...(subset ? { name: subset } : {}) };
  }
  const looksLocal = path.isAbsolute(p) || p.startsWith('.') || /\.(jsonl|json|csv|parquet)$/i.test(p);
  if (looksLocal) return { type: 'file', path: path.isAbsolute(p) ? p : path.join(cwd, p), ...(split ? { split } : {}), ...(subset ? { name: subset } : {}) };
  return { type: 'hf', path: p, split, ...(subset ? { name: subset } : {}) };
}

function taskSelection(args: RolloutLaunchArgs, fallbackCount: number): { count?: number; ids?: (string | number)[] } {
  if (Array.isArray(args.tasks)) return { ids: args.tasks };
  if (typeof args.tasks === 'number') return { count: args.tasks };
  return { count: fallbackCount };
}

function trinityPlan(args: RolloutLaunchArgs, doc: Obj, cwd: string, configDir: string): PlanResult {
  const errors: string[] = [];
  const input = obj(obj(doc.buffer).explorer_input);
  const tasksets = Array.isArray(input.tasksets) ? input.tasksets.map(obj) : [];
  const evalSets = Array.isArray(input.eval_tasksets) ? input.eval_tasksets.map(obj) : [];
  let ts = input.taskset ? obj(input.taskset) : tasksets[0];
  if (!ts && evalSets.length) ts = evalSets[0];
  if (!ts) return { errors: ['the config has no buffer.explorer_input.taskset (or tasksets / eval_tasksets) to take tasks from'] };
  const p = str(ts.path);
  if (!p) errors.push('buffer.explorer_input.taskset.path is not set');
  const split = args.split ?? str(ts.split) ?? 'train';
  const workflow = args.workflow ?? str(ts.default_workflow_type) ?? str(input.default_workflow_type);
  if (!workflow) errors.push('no workflow: set buffer.explorer_input.taskset.default_workflow_type, or "workflow" in launch.json');
  const reward = str(ts.default_reward_fn_type) ?? str(input.default_reward_fn_type);
  const model = obj(doc.model);
  const rollout = { ...obj(ts.rollout_args) };
  for (const [k, src] of [
    ['temperature', 'temperature'],
    ['top_p', 'top_p'],
    ['logprobs', 'logprobs'],
    ['max_tokens', 'max_response_tokens'],
  ] as const) {
    if (rollout[k] === undefined || rollout[k] === null) if (model[src] !== undefined) rollout[k] = model[src];
  }
  if (errors.length) return { errors };
  const explorer = obj(doc.explorer);
  const aux = Array.isArray(explorer.auxiliary_models) ? explorer.auxiliary_models.map(obj) : [];
  return {
    errors,
    modelName: str(model.model_path),
    auxiliaryNames: aux.map((a) => str(a.name) ?? str(a.model_path) ?? ''),
    plan: {
      kind: 'trinity',
      cwd,
      tasks: { source: taskSource(p!, split, cwd, configDir, str(ts.subset_name)), ...taskSelection(args, 1) },
      repeat: args.repeat ?? 1,
      workflow: workflow!,
      workflowArgs: obj(ts.workflow_args),
      reward,
      rewardArgs: obj(ts.reward_fn_args),
      format: obj(ts.format),
      rolloutArgs: rollout,
      config: doc,
      concurrency: args.concurrency ?? trinityConcurrency(explorer),
    },
  };
}

/** Trinity's workflow runners: explorer.runner_num (deprecated, 0.5) when set, else
 *  runner_per_model x rollout_model.engine_num (defaults 8 x 1). */
function trinityConcurrency(explorer: Obj): number {
  const pos = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);
  const legacy = pos(explorer.runner_num);
  if (legacy) return legacy;
  return (pos(explorer.runner_per_model) ?? 8) * (pos(obj(explorer.rollout_model).engine_num) ?? 1);
}

function astunerPlan(args: RolloutLaunchArgs, doc: Obj, kind: 'astuner' | 'ajet', cwd: string, configDir: string): PlanResult {
  const errors: string[] = [];
  const root = obj(doc[kind]);
  const rollout = obj(root.rollout);
  const reader = obj(root.task_reader);
  const type = str(reader.type) ?? 'huggingface_dat_repo';
  const useTrain = args.split === 'train' || args.split === 'training';
  let source: TaskSource | undefined;
  if (type === 'jsonl_dataset_file') {
    const files = obj(reader.jsonl_dataset_file);
    const p = str(obj(files[useTrain ? 'training' : 'validation']).file_path) ?? str(obj(files.training).file_path);
    if (!p) errors.push(`${kind}.task_reader.jsonl_dataset_file.${useTrain ? 'training' : 'validation'}.file_path is not set`);
    else source = taskSource(p, '', cwd, configDir);
  } else if (type === 'huggingface_dat_repo') {
    const hf = obj(reader.huggingface_dat_repo);
    const p = str(hf.dataset_path) ?? 'gsm8k';
    const split = args.split ?? str(useTrain ? hf.training_split : hf.validation_split) ?? 'validation';
    source = taskSource(p, split, cwd, configDir);
  } else {
    errors.push(
      `task_reader.type '${type}' needs the ${kind} debug backbone (set "backbone": "${kind}"); the native backbone reads jsonl_dataset_file and huggingface_dat_repo`,
    );
  }
  const workflow = args.workflow ?? str(rollout.user_workflow) ?? str(rollout.agentscope_workflow);
  if (!workflow) errors.push(`no workflow: set ${kind}.rollout.${kind === 'ajet' ? 'user_workflow' : 'agentscope_workflow'}, or "workflow" in launch.json`);
  const judge = str(obj(root.task_judge).judge_protocol);
  const debug = obj(root.debug);
  if (errors.length) return { errors };
  const valKwargs = obj(rollout.val_kwargs);
  return {
    errors,
    modelName: str(obj(root.model).path),
    plan: {
      kind,
      cwd,
      tasks: { source: source!, ...taskSelection(args, typeof debug.debug_first_n_tasks === 'number' ? debug.debug_first_n_tasks : 1) },
      repeat: args.repeat ?? 1,
      workflow: workflow!,
      workflowArgs: {},
      reward: judge,
      rewardArgs: {},
      format: {},
      // ASTuner's debug backbone samples with val_kwargs (temperature 0 by default).
      rolloutArgs: { temperature: valKwargs.temperature ?? 0, top_p: valKwargs.top_p ?? 1, max_tokens: rollout.max_response_length_in_one_turn },
      config: doc,
      concurrency: args.concurrency ?? 1,
    },
  };
}

/** Builds the runner plan for a checked config (`resolved` from the config engine). */
export function buildPlan(args: RolloutLaunchArgs, kind: ConfigKind | null, resolved: unknown, configPath: string): PlanResult {
  const doc = obj(resolved);
  const configDir = path.dirname(configPath);
  const cwd = args.cwd ? path.resolve(args.cwd) : (args.workspaceRoot ?? configDir);
  if (!kind) {
    return { errors: [`${configPath} is not a Trinity-RFT, ASTuner or AgentJet config (no buffer/explorer sections, no astuner: or ajet: root)`] };
  }
  if (kind === 'astuner' || kind === 'ajet') return astunerPlan(args, doc, kind, cwd, configDir);
  return trinityPlan(args, doc, cwd, configDir);
}

/** Problems with the launch attributes themselves (before anything runs). */
export function validateLaunchArgs(args: Partial<RolloutLaunchArgs>): string[] {
  const errors: string[] = [];
  if (!args.config || typeof args.config !== 'string') errors.push('"config" must name a Trinity-RFT / ASTuner / AgentJet YAML file');
  if (args.tasks !== undefined && typeof args.tasks !== 'number' && !Array.isArray(args.tasks)) errors.push('"tasks" must be a number or a list of task ids');
  if (args.repeat !== undefined && (!Number.isInteger(args.repeat) || args.repeat < 1)) errors.push('"repeat" must be a positive integer');
  if (args.backbone && !['native', 'trinity', 'astuner', 'ajet'].includes(args.backbone))
    errors.push(`"backbone" must be native, trinity, astuner or ajet (got '${args.backbone}')`);
  if (args.model?.timeout !== undefined && !(args.model.timeout > 0)) errors.push('"model.timeout" must be a positive number of seconds');
  if (args.model?.maxReplyMB !== undefined && !(args.model.maxReplyMB > 0)) errors.push('"model.maxReplyMB" must be a positive number of megabytes');
  if (args.replay !== undefined && typeof args.replay !== 'string') errors.push('"replay" must be the folder of a recorded run');
  if (args.rollout !== undefined) {
    const r = args.rollout as { fromJob?: unknown; id?: unknown } | null;
    if (!r || typeof r !== 'object' || typeof r.fromJob !== 'string' || !r.fromJob)
      errors.push('"rollout.fromJob" must be a Trinity job directory or a relay URL (ws:// or wss://)');
    if (!r || !((typeof r.id === 'number' && Number.isSafeInteger(r.id) && r.id > 0) || (typeof r.id === 'string' && /^[0-9]+$/.test(r.id))))
      errors.push('"rollout.id" must be the experience\'s row id, as the metrics view shows it (a positive whole number)');
    if (args.replay !== undefined)
      errors.push('"rollout" and "replay" cannot be used together: one replays a training run\'s experience, the other a debug run');
    if ((args.backbone ?? 'native') !== 'native') errors.push('"rollout" replays with the native backbone only');
    const live = (r as { liveAfterDivergence?: unknown } | null)?.liveAfterDivergence;
    if (live !== undefined && typeof live !== 'boolean') errors.push('"rollout.liveAfterDivergence" must be true or false');
  }
  if (args.concurrency !== undefined && (!Number.isInteger(args.concurrency) || args.concurrency < 1)) errors.push('"concurrency" must be a positive integer');
  if (args.launcherArgs !== undefined && (!Array.isArray(args.launcherArgs) || args.launcherArgs.some((a) => typeof a !== 'string'))) {
    errors.push('"launcherArgs" must be a list of strings such as ["--exp-dir", "saved_experiments", "--autokill"]');
  }
  if (args.launcherArgs?.length && (args.backbone ?? 'native') === 'native')
    errors.push('"launcherArgs" go to an upstream CLI: set "backbone" to "ajet", "astuner" or "trinity"');
  if (args.debugTags !== undefined) {
    if (!Array.isArray(args.debugTags) || args.debugTags.some((t) => typeof t !== 'string' || !/^[^|\s]+$/.test(t))) {
      errors.push('"debugTags" must be a list of tags such as ["TAG_1"], each without spaces or "|", the names your code passes to `bp("TAG_1")`');
    } else if (args.debugTags.length && !['ajet', 'astuner'].includes(args.backbone ?? 'native')) {
      errors.push('"debugTags" go to the AgentJet launcher\'s --debug flag: set "backbone" to "ajet" or "astuner"');
    }
  }
  if (args.auxiliaryModels !== undefined) {
    if (!Array.isArray(args.auxiliaryModels))
      errors.push('"auxiliaryModels" must be a list like [{ "baseUrl": "http://127.0.0.1:8001/v1" }], one entry per explorer.auxiliary_models');
    else
      args.auxiliaryModels.forEach((a, i) => {
        if (!a || typeof a !== 'object') errors.push(`"auxiliaryModels[${i}]" must be an object`);
        else if (a.timeout !== undefined && !(a.timeout > 0)) errors.push(`"auxiliaryModels[${i}].timeout" must be a positive number of seconds`);
      });
  }
  for (const k of ['cwd', 'workspaceRoot', 'python'] as const) if (args[k] !== undefined && typeof args[k] !== 'string') errors.push(`"${k}" must be a path`);
  if (args.breakOn !== undefined && !Array.isArray(args.breakOn)) errors.push('"breakOn" must be a list such as ["llm", "tool:get_weather", "reward<1"]');
  return errors;
}
