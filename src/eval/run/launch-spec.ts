// A comparison described by an `agentrl` launch configuration: the debug entry's own attributes
// (config, cwd, python, tasks, repeat, concurrency, split, env) plus `compareModels`, the models
// to compare, the baseline first. A launch entry with `compareModels` runs the comparison
// instead of a debug session. Pure: the configuration arrives resolved (variables substituted).
import * as path from 'path';
import { EvalSetupError, parseModels, type EvalOptions } from './run-eval';

/** One entry of `compareModels`: `"name=URL"` or `{ name, baseUrl, apiKeyEnv?, timeout? }`. */
export type CompareModelEntry = string | { name?: unknown; baseUrl?: unknown; apiKeyEnv?: unknown; timeout?: unknown };

export type LaunchEval = Omit<EvalOptions, 'progress' | 'onEpisode' | 'signal'>;

export const DEFAULT_TASKS = 10;
export const DEFAULT_REPEAT = 4;

/** Whether a launch configuration asks for a comparison rather than a debug session. */
export function isCompareLaunch(config: Record<string, unknown>): boolean {
  return config.compareModels !== undefined;
}

const positiveInt = (v: unknown, what: string, dflt: number | undefined): number | undefined => {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
    throw new EvalSetupError(`"${what}" must be a positive integer for a comparison, not ${JSON.stringify(v)}`);
  return v;
};

/** The comparison a launch configuration describes; EvalSetupError says what is wrong. */
export function evalFromLaunch(config: Record<string, unknown>, workspaceRoot: string | undefined): LaunchEval {
  const entries = config.compareModels;
  if (!Array.isArray(entries))
    throw new EvalSetupError('"compareModels" is a list of models, the baseline first: ["base=http://127.0.0.1:8000/v1", "new=http://127.0.0.1:8001/v1"]');
  const specs = (entries as CompareModelEntry[]).map((e, i) => {
    if (typeof e === 'string') return e;
    if (e && typeof e === 'object' && typeof e.name === 'string' && typeof e.baseUrl === 'string') return `${e.name}=${e.baseUrl}`;
    throw new EvalSetupError(`"compareModels"[${i}] is "name=URL" or { "name", "baseUrl" }`);
  });
  const models = parseModels(specs);
  (entries as CompareModelEntry[]).forEach((e, i) => {
    if (typeof e !== 'object') return;
    if (typeof e.apiKeyEnv === 'string') models[i].apiKeyEnv = e.apiKeyEnv;
    if (typeof e.timeout === 'number' && e.timeout > 0) models[i].timeout = e.timeout;
  });
  if (typeof config.config !== 'string' || !config.config)
    throw new EvalSetupError('"config" is required: the workflow config whose tasks and reward the models are compared on');
  const root = workspaceRoot ?? process.cwd();
  const cwd = typeof config.cwd === 'string' && config.cwd ? path.resolve(root, config.cwd) : root;
  if (Array.isArray(config.tasks)) throw new EvalSetupError('"tasks" must be a number of tasks for a comparison (the first N of the taskset), not a list');
  const env = config.env && typeof config.env === 'object' ? (config.env as Record<string, string>) : undefined;
  return {
    config: path.resolve(root, config.config),
    cwd,
    root,
    models,
    tasks: positiveInt(config.tasks, 'tasks', DEFAULT_TASKS)!,
    repeat: positiveInt(config.repeat, 'repeat', DEFAULT_REPEAT)!,
    concurrency: positiveInt(config.concurrency, 'concurrency', undefined),
    split: typeof config.split === 'string' ? config.split : undefined,
    python: typeof config.python === 'string' ? config.python : undefined,
    ...(env ? { env: { ...process.env, ...env } } : {}),
  };
}
