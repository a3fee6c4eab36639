// The tokenizer of a run the metrics view shows, found once per job dir: Trinity-RFT keeps a copy
// of the run's config in its job dir (`config.json`, written by OmegaConf as YAML; `config.yaml`
// when a launcher copied it there), whose `model.model_path` names a model folder or a hub id the
// local Hugging Face cache may hold. A relay URL has no job dir on this machine: no tokenizer, and
// the view says why.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { TokenizerOrReason } from '../../tokens/build';
import { tokenizerFor } from '../../tokens/tokenizer-files';

const CONFIG_FILES = ['config.json', 'config.yaml'];
/** A job dir's config copy larger than this is not a config. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** `model.model_path` of the run's config in `jobDir`, or why there is none. */
export function modelPathOf(jobDir: string): { modelPath: string } | { reason: string } {
  for (const name of CONFIG_FILES) {
    const file = path.join(jobDir, name);
    let text: string;
    try {
      if (fs.statSync(file).size > MAX_CONFIG_BYTES) return { reason: `${file} is larger than ${MAX_CONFIG_BYTES} bytes` };
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    let doc: unknown;
    try {
      doc = parse(text);
    } catch (e) {
      return { reason: `${file} is not valid YAML: ${e instanceof Error ? e.message : String(e)}` };
    }
    const model = doc && typeof doc === 'object' ? (doc as { model?: unknown }).model : undefined;
    const p = model && typeof model === 'object' ? (model as { model_path?: unknown }).model_path : undefined;
    if (typeof p === 'string' && p) return { modelPath: path.isAbsolute(p) || !p.startsWith('.') ? p : path.resolve(jobDir, p) };
    return { reason: `${file} names no model.model_path` };
  }
  return { reason: `no run config (${CONFIG_FILES.join(', ')}) in ${jobDir}` };
}

/** Tokenizers by job dir, each looked up once (a missing one is looked up again: the run may write its config later). */
export class TrainingRunTokenizers {
  private readonly found = new Map<string, TokenizerOrReason>();

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  /** The tokenizer of the run in `jobDir`; undefined jobDir: a relay URL, whose config is not here. */
  get(jobDir: string | undefined): TokenizerOrReason {
    if (jobDir === undefined) return { reason: 'the run is read through a relay URL: its config and model are not on this machine' };
    const known = this.found.get(jobDir);
    if (known) return known;
    const m = modelPathOf(jobDir);
    const t = 'modelPath' in m ? tokenizerFor(m.modelPath, this.env) : m;
    if ('tokenizer' in t) this.found.set(jobDir, t);
    return t;
  }
}
