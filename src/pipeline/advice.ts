// What to change for a bottleneck: config keys of the run with their current value (from the
// run's config copy, else Trinity-RFT 0.5's default) and a suggestion. A suggestion is a
// direction to try, not a proof: `fits` says when the GPUs the config declares leave room for it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { Bottleneck } from './analyze';

export type ConfigValue = string | number | boolean | null;

export interface Advice {
  key: string;
  now: ConfigValue;
  suggest: ConfigValue;
  /** The value is Trinity's default (the config does not set it). */
  defaulted: boolean;
  /** The config declares enough GPUs for the suggestion (undefined: not a GPU question, or unknown). */
  fits?: boolean;
}

/** Trinity-RFT 0.5's defaults of the keys we advise on. */
const DEFAULTS: Record<string, ConfigValue> = {
  'explorer.rollout_model.engine_num': 1,
  'explorer.rollout_model.tensor_parallel_size': 1,
  'buffer.batch_size': 1,
  'synchronizer.sync_interval': 1,
  'synchronizer.sync_style': 'fixed',
  'explorer.over_rollout.ratio': 0,
  'explorer.dynamic_timeout.enable': false,
  'trainer.save_interval': 0,
  'explorer.eval_interval': 100,
  'cluster.node_num': null,
  'cluster.gpu_per_node': null,
};

/** The run's config as a nested object (parsed YAML/JSON); values looked up by dotted key. */
export class RunConfig {
  constructor(
    readonly doc: unknown,
    /** The file it was read from (for "open at key"), when any. */
    readonly file?: string,
  ) {}

  /** The value at a dotted key, or undefined when the config does not set it. */
  set(key: string): ConfigValue | undefined {
    let cur: unknown = this.doc;
    for (const part of key.split('.')) {
      if (!cur || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return typeof cur === 'string' || typeof cur === 'number' || typeof cur === 'boolean' || cur === null ? cur : undefined;
  }

  value(key: string): { value: ConfigValue; defaulted: boolean } {
    const v = this.set(key);
    return v === undefined ? { value: DEFAULTS[key] ?? null, defaulted: true } : { value: v, defaulted: false };
  }

  /** GPUs of the rollout engines, and of the whole cluster when the config says. */
  gpus(): { explorer: number; total: number | null } {
    const num = (k: string) => {
      const v = this.value(k).value;
      return typeof v === 'number' && v >= 0 ? v : null;
    };
    const explorer = (num('explorer.rollout_model.engine_num') ?? 1) * (num('explorer.rollout_model.tensor_parallel_size') ?? 1);
    const nodes = num('cluster.node_num');
    const per = num('cluster.gpu_per_node');
    return { explorer, total: nodes !== null && per !== null ? nodes * per : null };
  }
}

const CONFIG_FILES = ['config.json', 'config.yaml'];
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** The config copy Trinity keeps in a job dir (OmegaConf YAML in `config.json`), or why there is none. */
export function readRunConfig(jobDir: string): RunConfig | { reason: string } {
  for (const name of CONFIG_FILES) {
    const file = path.join(jobDir, name);
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_CONFIG_BYTES) return { reason: `${file} is larger than ${MAX_CONFIG_BYTES} bytes` };
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    try {
      return new RunConfig(parse(text), file);
    } catch (e) {
      return { reason: `${file} is not valid YAML: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  return { reason: `no run config (${CONFIG_FILES.join(', ')}) in ${jobDir}` };
}

const twice = (v: ConfigValue): ConfigValue => (typeof v === 'number' && v > 0 ? v * 2 : v);

/** The keys worth changing for a bottleneck, most promising first. */
export function adviceFor(b: Bottleneck, cfg: RunConfig): Advice[] {
  const at = (key: string, suggest: (now: ConfigValue) => ConfigValue, fits?: boolean): Advice => {
    const { value, defaulted } = cfg.value(key);
    return { key, now: value, suggest: suggest(value), defaulted, ...(fits === undefined ? {} : { fits }) };
  };
  const g = cfg.gpus();
  const tp = cfg.value('explorer.rollout_model.tensor_parallel_size').value;
  const engineGpus = typeof tp === 'number' && tp > 0 ? tp : 1;
  // One more engine fits when the cluster keeps at least one GPU for the trainer.
  const oneMore = g.total === null ? undefined : g.explorer + engineGpus < g.total;
  switch (b) {
    case 'explorer':
      return [
        at('explorer.rollout_model.engine_num', (n) => (typeof n === 'number' ? n + 1 : n), oneMore),
        at('buffer.batch_size', (n) => (typeof n === 'number' && n > 1 ? Math.max(1, Math.floor(n / 2)) : n)),
      ];
    case 'trainer':
      return [at('explorer.rollout_model.engine_num', (n) => (typeof n === 'number' && n > 1 ? n - 1 : n)), at('synchronizer.sync_interval', twice)];
    case 'sync':
      return [at('synchronizer.sync_interval', twice)];
    case 'stragglers': {
      const out = [at('explorer.over_rollout.ratio', (r) => (typeof r === 'number' && r < 0.25 ? 0.25 : r)), at('explorer.dynamic_timeout.enable', () => true)];
      // Trinity's config_validator.py refuses over_rollout with the fixed sync_style.
      const style = at('synchronizer.sync_style', (s) => (String(s).toLowerCase() === 'fixed' ? 'explorer_driven' : s));
      if (style.suggest !== style.now) out.splice(1, 0, style);
      return out;
    }
    case 'checkpoint':
      return [at('trainer.save_interval', twice)];
    case 'eval':
      return [at('explorer.eval_interval', twice)];
    default:
      return [];
  }
}
