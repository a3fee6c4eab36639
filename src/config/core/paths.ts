// Paths in configs (datasets, models, chat templates, workflow files): where they point on
// this machine and whether we may call a missing one a problem. Relative paths resolve
// against the run directory — the workspace folder (CLI: --root, default cwd) — or the
// config's own folder. We only judge paths we can see: a relative path of a config inside
// the workspace, or an absolute path inside it. `/mnt/...` on a cluster, Hugging Face ids
// (`openai/gsm8k`) and database URLs are links at most, never warnings.
import { exists } from './fscache';
import { remembered } from './remember';
import * as os from 'os';
import * as path from 'path';

export type PathKind = 'url' | 'db' | 'hf' | 'local' | 'empty';

const URL_RE = /^[a-z][a-z0-9+.-]*:\/\//i;
const FILE_EXT = /\.(jsonl?|parquet|csv|tsv|txt|ya?ml|py|jinja2?|j2|db|sqlite3?|arrow|pt|safetensors|bin|md)$/i;

export function classifyPath(value: string): PathKind {
  const v = value.trim();
  if (!v) return 'empty';
  if (/^(sqlite|postgresql|postgres|mysql|mssql|oracle)(\+\w+)?:/i.test(v)) return 'db';
  if (URL_RE.test(v)) return 'url';
  if (/^(\.{1,2}[/\\]|[/\\]|~[/\\]?|[A-Za-z]:[/\\])/.test(v)) return 'local';
  const slashes = (v.match(/\//g) ?? []).length;
  if (slashes >= 2 || FILE_EXT.test(v)) return 'local';
  return 'hf';
}

export interface ResolvedPath {
  kind: PathKind;
  /** The existing file or directory, if any. */
  found?: string;
  /** Whether a missing path is a problem we can report. */
  checkable: boolean;
  /** Where we looked. */
  candidates: string[];
}

const inside = (p: string, roots: readonly string[]) =>
  roots.some((r) => {
    const rel = path.relative(r, p);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });

export function resolveLocalPath(value: string, roots: readonly string[], configFile?: string): ResolvedPath {
  const w = whereToLook(value, roots, configFile);
  return { ...w, found: w.candidates.find(exists) };
}

/** Where a path value may be (pure string work, memoised: rules ask on every keystroke; only
 *  the existence checks, which fscache bounds, touch the disk). */
const looked = new Map<string, Omit<ResolvedPath, 'found'>>();

function whereToLook(value: string, roots: readonly string[], configFile?: string): Omit<ResolvedPath, 'found'> {
  return remembered(looked, `${value}\0${configFile ?? ''}\0${roots.join('\0')}`, () => whereToLookUncached(value, roots, configFile));
}

function whereToLookUncached(value: string, roots: readonly string[], configFile?: string): Omit<ResolvedPath, 'found'> {
  const kind = classifyPath(value);
  if (kind === 'empty' || kind === 'url' || kind === 'db') return { kind, checkable: false, candidates: [] };
  let v = value.trim();
  if (v.startsWith('~')) v = path.join(os.homedir(), v.slice(1));
  const candidates: string[] = [];
  if (path.isAbsolute(v)) candidates.push(path.normalize(v));
  else {
    for (const r of roots) candidates.push(path.resolve(r, v));
    if (configFile) candidates.push(path.resolve(path.dirname(configFile), v));
  }
  const unique = [...new Set(candidates)];
  const configInside = !!configFile && inside(configFile, roots);
  const checkable = kind === 'local' && (path.isAbsolute(v) ? inside(v, roots) : configInside && roots.length > 0);
  return { kind, checkable, candidates: unique };
}

/** A config's folder and its ancestors (6 levels): where `pkg.mod` / `file.py` references of
 *  upstream repositories (run from their root) may resolve from. */
export function configAncestors(file: string | undefined): readonly string[] {
  if (!file) return [];
  // the same file is asked about many times per analysis: keep the last answer
  if (lastAncestors?.file === file) return lastAncestors.dirs;
  const out: string[] = [];
  let dir = path.dirname(file);
  for (let i = 0; i < 6; i++) {
    out.push(dir);
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  lastAncestors = { file, dirs: out };
  return out;
}

let lastAncestors: { file: string; dirs: readonly string[] } | undefined;
