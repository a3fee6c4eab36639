// Finding the run's tokenizer on this machine: `model.model_path` when it is a folder (a
// checkpoint, a downloaded model), else the model id in the local Hugging Face cache
// (hub/models--ORG--NAME/snapshots/<revision>/, the revision refs/main names, else the newest),
// else nothing — with the reason, which the view shows next to the bare ids. Files are read
// with a size cap: a model folder is not trusted to hold a sane tokenizer.json.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTokenizer, type RunTokenizer, TokenizerError } from './tokenizer';

/** Larger than any real tokenizer.json (Qwen's is 7 MB, Gemma's 33 MB). */
const MAX_TOKENIZER_BYTES = 64 * 1024 * 1024;
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export type TokenizerLookup = { found: true; dir: string; via: 'folder' | 'hf-cache' } | { found: false; reason: string };

/** The hub folder of the local Hugging Face cache, as huggingface_hub resolves it. */
export function hfHubCache(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HUGGINGFACE_HUB_CACHE) return env.HUGGINGFACE_HUB_CACHE;
  const home = env.HF_HOME ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'huggingface');
  return path.join(home, 'hub');
}

const isFile = (p: string): boolean => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The snapshot of `modelId` (ORG/NAME) in the hub cache that holds a tokenizer.json. */
function cachedSnapshot(hub: string, modelId: string): string | undefined {
  const repo = path.join(hub, `models--${modelId.split('/').join('--')}`);
  const snapshots = path.join(repo, 'snapshots');
  let revs: string[];
  try {
    revs = fs.readdirSync(snapshots);
  } catch {
    return undefined;
  }
  let main: string | undefined;
  try {
    main = fs.readFileSync(path.join(repo, 'refs', 'main'), 'utf8').trim();
  } catch {
    /* no refs/main: the newest snapshot */
  }
  const withTokenizer = revs.filter((r) => isFile(path.join(snapshots, r, 'tokenizer.json')));
  if (main && withTokenizer.includes(main)) return path.join(snapshots, main);
  const newest = withTokenizer.map((r) => ({ r, t: fs.statSync(path.join(snapshots, r, 'tokenizer.json')).mtimeMs })).sort((a, b) => b.t - a.t)[0];
  return newest && path.join(snapshots, newest.r);
}

/**
 * Where the tokenizer of `model` (a folder path or a hub model id) is: the folder itself, a
 * tokenizer.json given directly, or the hub cache's snapshot of that id.
 */
export function findTokenizer(model: string, env: NodeJS.ProcessEnv = process.env): TokenizerLookup {
  if (!model) return { found: false, reason: 'the run names no model path' };
  const expanded = model.startsWith('~/') ? path.join(os.homedir(), model.slice(2)) : model;
  if (path.basename(expanded) === 'tokenizer.json' && isFile(expanded)) return { found: true, dir: path.dirname(expanded), via: 'folder' };
  if (isFile(path.join(expanded, 'tokenizer.json'))) return { found: true, dir: path.resolve(expanded), via: 'folder' };
  let isDir = false;
  try {
    isDir = fs.statSync(expanded).isDirectory();
  } catch {
    /* not a path here */
  }
  if (isDir) return { found: false, reason: `${expanded} has no tokenizer.json` };
  const hub = hfHubCache(env);
  if (/^[\w.-]+\/[\w.-]+$/.test(model)) {
    const snap = cachedSnapshot(hub, model);
    if (snap) return { found: true, dir: snap, via: 'hf-cache' };
    return { found: false, reason: `${model} is not a folder on this machine and not in the Hugging Face cache (${hub})` };
  }
  return { found: false, reason: `${model} is not a folder on this machine` };
}

function readCapped(file: string, cap: number): string {
  const size = fs.statSync(file).size;
  if (size > cap) throw new TokenizerError(`${file} is ${size} bytes, over the ${cap}-byte limit for a tokenizer file`);
  return fs.readFileSync(file, 'utf8');
}

function parseJson(file: string, cap: number): unknown {
  const text = readCapped(file, cap);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TokenizerError(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The tokenizer in `dir` (tokenizer.json, tokenizer_config.json when present, chat_template.jinja when present). */
export function loadTokenizer(dir: string, name = dir): RunTokenizer {
  const cfgFile = path.join(dir, 'tokenizer_config.json');
  const config = isFile(cfgFile) ? parseJson(cfgFile, MAX_CONFIG_BYTES) : {};
  const jinja = path.join(dir, 'chat_template.jinja');
  const chatTemplate = isFile(jinja) ? readCapped(jinja, MAX_CONFIG_BYTES) : undefined;
  return createTokenizer(parseJson(path.join(dir, 'tokenizer.json'), MAX_TOKENIZER_BYTES), config, { name, chatTemplate });
}

/** findTokenizer then loadTokenizer: the tokenizer, or why there is none (never throws). */
export function tokenizerFor(model: string, env: NodeJS.ProcessEnv = process.env): { tokenizer: RunTokenizer } | { reason: string } {
  const where = findTokenizer(model, env);
  if (!where.found) return { reason: where.reason };
  try {
    return { tokenizer: loadTokenizer(where.dir, model) };
  } catch (e) {
    return { reason: e instanceof Error ? e.message : String(e) };
  }
}
