// What the workspace says about a Python package's version: a pin in requirements*.txt or
// pyproject.toml, else the version installed in a workspace venv. Read through the short-lived
// fs memo (rules ask on every keystroke); never runs Python.
import * as fs from 'fs';
import * as path from 'path';
import { listDir, statKind } from '../core/fscache';

export interface PackagePin {
  /** The lowest version the pin allows (`==2.0.6`, `>=2.0` → `2.0.6`, `2.0`), or the installed one. */
  version: string;
  /** The requirement as written (`agentscope[tuner]>=1.0.19,<2`) or `installed`. */
  spec: string;
  /** File it was read from. */
  file: string;
}

const cache = new Map<string, { at: number; pin: PackagePin | undefined }>();

function read(file: string): string | undefined {
  if (statKind(file) !== 'file') return undefined;
  try {
    return fs.readFileSync(file, 'utf8').slice(0, 200_000);
  } catch {
    return undefined;
  }
}

/** The pin of `pkg` in `text` (requirements or pyproject dependency strings). */
export function pinIn(text: string, pkg: string): { version: string; spec: string } | undefined {
  const name = pkg.replace(/[-_.]/g, '[-_.]');
  const re = new RegExp(
    `(?:^|["'\\s])(${name}(?:\\[[^\\]]*\\])?\\s*((?:===?|>=|~=|>|<=|<|!=)\\s*[\\w.*]+(?:\\s*,\\s*(?:===?|>=|~=|>|<=|<|!=)\\s*[\\w.*]+)*))`,
    'im',
  );
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const m = re.exec(line);
    if (!m) continue;
    const lower = /(?:===?|>=|~=|>)\s*([\d][\w.]*)/.exec(m[2]);
    if (lower) return { version: lower[1], spec: m[1].trim() };
  }
  return undefined;
}

/** A pin of `pkg` in the roots' requirements*.txt / pyproject.toml, else an installed version. */
export function workspacePin(roots: readonly string[], pkg: string): PackagePin | undefined {
  const key = `${pkg}|${roots.join('|')}`;
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < 2000) return hit.pin;
  const pin = find(roots, pkg);
  if (cache.size > 200) cache.clear();
  cache.set(key, { at: Date.now(), pin });
  return pin;
}

function find(roots: readonly string[], pkg: string): PackagePin | undefined {
  for (const root of roots) {
    const files = (listDir(root) ?? []).filter((f) => /^requirements.*\.txt$/.test(f) || f === 'pyproject.toml').sort();
    for (const f of files) {
      const text = read(path.join(root, f));
      const p = text ? pinIn(text, pkg) : undefined;
      if (p) return { ...p, file: path.join(root, f) };
    }
    for (const venv of ['.venv', 'venv']) {
      const lib = path.join(root, venv, 'lib');
      for (const py of (listDir(lib) ?? []).filter((d) => d.startsWith('python'))) {
        const site = path.join(lib, py, 'site-packages');
        const dist = (listDir(site) ?? []).find((e) => new RegExp(`^${pkg.replace(/-/g, '_')}-[\\w.]+\\.dist-info$`, 'i').test(e));
        if (dist) return { version: dist.replace(/^[^-]+-/, '').replace(/\.dist-info$/, ''), spec: 'installed', file: path.join(site, dist) };
      }
    }
  }
  return undefined;
}
