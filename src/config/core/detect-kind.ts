// Which kind of RL config a YAML file is, without touching other YAML: a `# agentrl: kind`
// modeline or a user glob (`agentrl.config.files`) decides first; otherwise an `ajet:` or
// `astuner:` root, a lone `trinity:` root (an ASTuner/AgentJet default layer), or enough of
// Trinity-RFT's top-level sections with few foreign keys.
import picomatch from 'picomatch';
import type { ConfigKind } from '../../feature-api/config-checker';
import { remembered } from './remember';
import { deref, type VNode } from '../yaml/tree';

export type KindSetting = ConfigKind | 'none';

export interface Detection {
  kind: ConfigKind | null;
  /** How it was decided (`guess`: a file named on `agentrl check`'s command line that matched
   *  no kind, checked as the likeliest one rather than skipped). */
  by: 'modeline' | 'glob' | 'option' | 'content' | 'guess' | 'none';
  /** Span of the modeline, when one decided; `version` from `trinity@0.5`. */
  modeline?: { start: number; end: number; value: string; version?: string };
}

const TRINITY_SECTIONS = new Set([
  'algorithm',
  'buffer',
  'explorer',
  'trainer',
  'model',
  'cluster',
  'synchronizer',
  'monitor',
  'data_processor',
  'stages',
  'service',
  'log',
]);
const TRINITY_SCALARS = new Set([
  'mode',
  'project',
  'group',
  'name',
  'checkpoint_root_dir',
  'checkpoint_job_dir',
  'ray_namespace',
  'continue_from_checkpoint',
  'ignore_validator_suggestions',
]);
const MODELINE = /^#\s*agentrl\s*:\s*([A-Za-z-]+)(?:\s*@\s*([0-9][\w.+-]*))?\s*$/;
const KINDS: readonly string[] = ['trinity', 'astuner', 'ajet', 'none', 'off'];

/** A `# agentrl: trinity|astuner|ajet|none` comment (`trinity@0.5` names the release) in the first lines. */
export function findModeline(text: string): Detection['modeline'] | undefined {
  if (!text.includes('agentrl')) return undefined; // the common case, without splitting lines
  let offset = 0;
  for (let i = 0; i < 10 && offset < text.length; i++) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(offset, end).replace(/\r$/, '');
    const m = MODELINE.exec(line.trim());
    if (m && KINDS.includes(m[1].toLowerCase())) {
      const at = offset + line.indexOf(m[1]);
      return { start: at, end: at + m[1].length, value: m[1].toLowerCase(), ...(m[2] ? { version: m[2] } : {}) };
    }
    offset = end + 1;
  }
  return undefined;
}

/** Matches a file against `{ glob: kind }` (globs relative to a workspace root or absolute). */
export function kindFromGlobs(file: string | undefined, globs: Record<string, string> | undefined, roots: readonly string[] = []): KindSetting | undefined {
  if (!file || !globs) return undefined;
  const entries = Object.entries(globs);
  if (!entries.length) return undefined;
  const norm = file.replace(/\\/g, '/');
  const candidates = [
    norm,
    ...roots
      .map((r) => r.replace(/\\/g, '/').replace(/\/$/, ''))
      .filter((r) => norm.startsWith(r + '/'))
      .map((r) => norm.slice(r.length + 1)),
  ];
  for (const [glob, kind] of entries) {
    const k = String(kind).toLowerCase();
    if (!KINDS.includes(k)) continue;
    const isMatch = matcher(glob);
    if (candidates.some((c) => isMatch(c))) return k === 'off' ? 'none' : (k as KindSetting);
  }
  return undefined;
}

/** Compiled globs (the setting changes rarely; documents are checked on every keystroke). */
const matchers = new Map<string, (p: string) => boolean>();

const matcher = (glob: string) => remembered(matchers, glob, () => picomatch(glob, { dot: true, matchBase: !glob.includes('/') }), 1000);

/** Top-level keys of a document root (empty for non-mappings). */
function topKeys(root: VNode | undefined): string[] {
  if (!root) return [];
  const d = deref(root, 0).node;
  return d.kind === 'map' ? d.entries.map((e) => e.key) : [];
}

/** Decides the kind from content alone. */
export function kindFromContent(keys: readonly string[], file?: string, text?: string): ConfigKind | null {
  if (keys.includes('ajet')) return 'ajet';
  if (keys.includes('astuner')) return 'astuner';
  if (keys.includes('trinity') && keys.every((k) => k === 'trinity' || k === 'hydra' || k === 'defaults')) {
    // a `trinity:`-only file is an ASTuner/AgentJet default layer (trinity_default.yaml)
    const hint = `${file ?? ''}\n${text?.slice(0, 4000) ?? ''}`;
    return /(^|[/\\])ajet([/\\]|_)|ajet_/.test(hint) ? 'ajet' : 'astuner';
  }
  let sections = 0;
  let known = 0;
  for (const k of keys) {
    if (TRINITY_SECTIONS.has(k)) {
      sections++;
      known++;
    } else if (TRINITY_SCALARS.has(k)) known++;
  }
  if (sections >= 2 && known * 2 >= keys.length) return 'trinity';
  return null;
}

export function detectKind(opts: {
  text: string;
  root: VNode | undefined;
  file?: string;
  globs?: Record<string, string>;
  roots?: readonly string[];
  /** `--kind` / explicit override ('auto' = decide). */
  forced?: ConfigKind | 'auto';
}): Detection {
  const modeline = findModeline(opts.text);
  // an explicit `--kind` beats the file's own modeline (whose `trinity@X` still names the release)
  if (opts.forced && opts.forced !== 'auto') return { kind: opts.forced, by: 'option', ...(modeline ? { modeline } : {}) };
  if (modeline) {
    const v = modeline.value === 'off' ? 'none' : modeline.value;
    return { kind: v === 'none' ? null : (v as ConfigKind), by: 'modeline', modeline };
  }
  const g = kindFromGlobs(opts.file, opts.globs, opts.roots);
  if (g) return { kind: g === 'none' ? null : g, by: 'glob' };
  const k = kindFromContent(topKeys(opts.root), opts.file, opts.text);
  return { kind: k, by: k ? 'content' : 'none' };
}

/** Top-level keys read off the text line by line (column 0 `key:`), for documents the parser
 *  could not give a root for (a tab in the indentation, a limit hit before parsing). */
function textTopKeys(text: string, maxLines = 5000): string[] {
  const keys: string[] = [];
  let offset = 0;
  for (let i = 0; i < maxLines && offset < text.length; i++) {
    const nl = text.indexOf('\n', offset);
    const end = nl < 0 ? text.length : nl;
    const m = /^["']?([A-Za-z_][\w.-]*)["']?\s*:(?:\s|$)/.exec(text.slice(offset, Math.min(end, offset + 200)));
    if (m) keys.push(m[1]);
    offset = end + 1;
  }
  return keys;
}

export interface KindGuess {
  kind: ConfigKind;
  /** Trinity-RFT top-level sections among the keys (0 for the agent kinds). */
  sections: number;
  keys: number;
}

/** The kind a file most likely is when its content decides nothing: an `ajet:` / `astuner:`
 *  key, else Trinity-RFT (a standalone config without an agent framework's root). */
export function likeliestKind(text: string, root: VNode | undefined): KindGuess {
  const parsed = topKeys(root);
  const keys = parsed.length ? parsed : textTopKeys(text);
  if (keys.includes('ajet')) return { kind: 'ajet', sections: 0, keys: keys.length };
  if (keys.includes('astuner')) return { kind: 'astuner', sections: 0, keys: keys.length };
  return { kind: 'trinity', sections: keys.filter((k) => TRINITY_SECTIONS.has(k)).length, keys: keys.length };
}
