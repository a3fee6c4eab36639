// What the workspace's Python code defines, for names and class references in configs:
// `@WORKFLOWS.register_module("my_workflow")` registrations (any Trinity registry), the
// classes each module defines, and the module ↔ file mapping used to resolve dotted class
// paths (`pkg.mod.MyWorkflow`) and ASTuner's `pkg.mod->Class` / `path/file.py->Class`.
// A bounded, regex-level scan (no Python needed): enough to find definitions, not to run them.
import * as fs from 'fs';
import * as path from 'path';
import { listDir, statKind } from '../core/fscache';
import { remembered } from '../core/remember';
import { REGISTRY_BY_PY, type RegistryId } from '../names/registries';
import { walkFiles } from './walk';

export interface PyLocation {
  file: string;
  /** 0-based line and UTF-16 column range of the name. */
  line: number;
  character: number;
  endCharacter: number;
}

export interface PyRegistration extends PyLocation {
  registry: RegistryId;
  name: string;
  /** The class (or function) the decorator applies to. */
  target?: string;
}

export interface PyFileInfo {
  classes: Map<string, PyLocation>;
  registrations: PyRegistration[];
}

const SCAN_LIMITS = { maxFiles: 5000, maxDirs: 20000, maxDepth: 12, maxFileBytes: 1024 * 1024 };

const CLASS_RE = /^([ \t]*)(?:class|def|async[ \t]+def)[ \t]+([A-Za-z_]\w*)/gm;
const REG_RE = /@[ \t]*((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)\.register_module\(\s*(?:(?:module_name|name)\s*=\s*)?(["'])([^"'\n]+)\3/g;
const ALIAS_RE = /import[ \t]+([^\n]*)/g;

/** Parses one Python source for class definitions and registry registrations. */
export function scanPythonSource(file: string, text: string): PyFileInfo {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const pos = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - lineStarts[lo] };
  };
  const classes = new Map<string, PyLocation>();
  const defs: { name: string; offset: number; loc: PyLocation }[] = [];
  for (const m of text.matchAll(CLASS_RE)) {
    const nameOffset = m.index + m[0].length - m[2].length;
    const p = pos(nameOffset);
    const loc = { file, line: p.line, character: p.character, endCharacter: p.character + m[2].length };
    defs.push({ name: m[2], offset: nameOffset, loc });
    if (m[1].length === 0 && m[0].includes('class') && !classes.has(m[2])) classes.set(m[2], loc);
  }
  // `from x import WORKFLOWS as W`
  const aliases = new Map<string, string>();
  for (const m of text.matchAll(ALIAS_RE)) {
    for (const part of m[1].split(',')) {
      const a = /^\s*\(?\s*(\w+)\s+as\s+(\w+)/.exec(part);
      if (a && REGISTRY_BY_PY[a[1]]) aliases.set(a[2], a[1]);
    }
  }
  const registrations: PyRegistration[] = [];
  for (const m of text.matchAll(REG_RE)) {
    const obj = aliases.get(m[2]) ?? m[2];
    const registry = REGISTRY_BY_PY[obj];
    if (!registry) continue;
    const nameOffset = m.index + m[0].length - 1 - m[4].length;
    const target = defs.find((d) => d.offset > m.index);
    const at = target?.loc ?? { file, ...pos(nameOffset), endCharacter: pos(nameOffset).character + m[4].length };
    registrations.push({ registry, name: m[4], target: target?.name, file, line: at.line, character: at.character, endCharacter: at.endCharacter });
  }
  return { classes, registrations };
}

/** Module name of a file under a root (`a/b/c.py` → `a.b.c`, `a/b/__init__.py` → `a.b`). */
function moduleOf(root: string, file: string): string | undefined {
  const rel = path.relative(root, file);
  if (rel.startsWith('..') || path.isAbsolute(rel) || !rel.endsWith('.py')) return undefined;
  const parts = rel.slice(0, -3).split(path.sep);
  if (parts[parts.length - 1] === '__init__') parts.pop();
  if (!parts.length || parts.some((p) => !/^[A-Za-z_]\w*$/.test(p))) return undefined;
  return parts.join('.');
}

export class PythonIndex {
  private files = new Map<string, PyFileInfo>();
  private roots: string[] = [];
  /** Set when a scan stopped at a limit. */
  truncated = false;

  /** Scans the roots (synchronously, bounded by SCAN_LIMITS). */
  scan(roots: readonly string[]): this {
    this.roots = [...roots];
    this.candidateMemo.clear();
    this.files.clear();
    this.byRegistry = undefined;
    this.truncated = false;
    for (const r of roots) {
      const left = SCAN_LIMITS.maxFiles - this.files.size;
      const found = walkFiles(r, {
        accept: (_rel, name) => name.endsWith('.py'),
        maxDepth: SCAN_LIMITS.maxDepth,
        maxDirs: SCAN_LIMITS.maxDirs,
        maxFiles: left,
      });
      this.truncated ||= found.truncated;
      for (const f of found.files) this.updateFile(f);
    }
    return this;
  }

  /** Re-reads one file (or drops it when `text` is null and it cannot be read). */
  updateFile(file: string, text?: string | null): void {
    let src = text ?? undefined;
    if (src === undefined) {
      try {
        const st = fs.statSync(file);
        if (st.size > SCAN_LIMITS.maxFileBytes) return;
        src = fs.readFileSync(file, 'utf8');
      } catch {
        this.removeFile(file);
        return;
      }
    }
    if (text === null) {
      this.removeFile(file);
      return;
    }
    this.files.set(file, scanPythonSource(file, src));
    this.byRegistry = undefined;
  }

  removeFile(file: string): void {
    if (this.files.delete(file)) this.byRegistry = undefined;
  }

  get fileCount(): number {
    return this.files.size;
  }

  /** Names registered in the workspace for a registry (the same array until the index changes:
   *  rules ask on every keystroke and memoise on it). */
  registered(registry: RegistryId): readonly PyRegistration[] {
    this.byRegistry ??= new Map();
    let out = this.byRegistry.get(registry);
    if (!out) {
      out = [];
      for (const f of this.files.values()) for (const r of f.registrations) if (r.registry === registry) out.push(r);
      this.byRegistry.set(registry, out);
    }
    return out;
  }

  private byRegistry: Map<RegistryId, PyRegistration[]> | undefined;

  findRegistration(registry: RegistryId, name: string): PyRegistration | undefined {
    for (const f of this.files.values()) for (const r of f.registrations) if (r.registry === registry && r.name === name) return r;
    return undefined;
  }

  /** Top-level classes of scanned files with their module names (at most `max`). */
  classes(max: number): { module: string; cls: string; file: string; line: number }[] {
    const out: { module: string; cls: string; file: string; line: number }[] = [];
    for (const [file, info] of this.files) {
      const root = this.roots.find((r) => moduleOf(r, file));
      const module = root ? moduleOf(root, file) : undefined;
      if (!module) continue;
      for (const [cls, loc] of info.classes) {
        out.push({ module, cls, file, line: loc.line });
        if (out.length >= max) return out;
      }
    }
    return out;
  }

  /** The file of a dotted module, relative to the roots (scanned or on disk). */
  moduleFile(module: string, extraRoots: readonly string[] = []): string | undefined {
    for (const cand of this.candidates(`m\0${module}`, extraRoots, (root) => {
      const rel = module.split('.');
      return [path.join(root, ...rel) + '.py', path.join(root, ...rel, '__init__.py')];
    })) {
      if (this.files.has(cand)) return cand;
      if (statKind(cand) === 'file') return cand;
    }
    return undefined;
  }

  /** Candidate files for a reference under the roots, in order (pure path work, memoised per
   *  reference and set of extra roots: rules resolve the same references on every keystroke). */
  private candidates(key: string, extraRoots: readonly string[], under: (root: string) => string[]): readonly string[] {
    return remembered(this.candidateMemo, `${key}\0${extraRoots.join('\0')}`, () => [...this.roots, ...extraRoots].flatMap(under));
  }

  private candidateMemo = new Map<string, readonly string[]>();

  /** Where a class is defined in a file (reads it if it was not scanned). */
  classIn(file: string, cls: string): PyLocation | undefined {
    if (!this.files.has(file)) this.updateFile(file);
    return this.files.get(file)?.classes.get(cls);
  }

  /** `pkg.mod.Class` → its definition. */
  resolveDotted(ref: string, extraRoots: readonly string[] = []): PyLocation | { file: string; missingClass: string } | undefined {
    const i = ref.lastIndexOf('.');
    if (i <= 0) return undefined;
    const file = this.moduleFile(ref.slice(0, i), extraRoots);
    if (!file) return undefined;
    return this.classIn(file, ref.slice(i + 1)) ?? { file, missingClass: ref.slice(i + 1) };
  }

  /** ASTuner `pkg.mod->Class` or `path/to/file.py->Class`. */
  resolveArrow(ref: string, extraRoots: readonly string[] = []): PyLocation | { file: string; missingClass: string } | undefined {
    const m = /^\s*(.+?)\s*->\s*([A-Za-z_]\w*)\s*$/.exec(ref);
    if (!m) return undefined;
    const [, mod, cls] = m;
    let file: string | undefined;
    if (mod.endsWith('.py')) file = this.candidates(`f\0${mod}`, extraRoots, (root) => [path.resolve(root, mod)]).find((cand) => statKind(cand) === 'file');
    else file = this.moduleFile(mod, extraRoots);
    if (!file) return undefined;
    return this.classIn(file, cls) ?? { file, missingClass: cls };
  }
}

export const isLocation = (x: unknown): x is PyLocation => !!x && typeof x === 'object' && 'line' in x;

/**
 * Whether the workspace holds the Python code a module path lives in, so that "not found"
 * means something: some folder along `a/b/c` exists under a root and contains `.py` files.
 * A folder of YAML only (a copy of configs without their code) does not count.
 */
export function codeVisible(module: string, roots: readonly string[]): boolean {
  for (const chain of folderChains(module, roots)) {
    for (const dir of chain) {
      const entries = listDir(dir);
      if (!entries) break;
      if (entries.some((e) => e.endsWith('.py'))) return true;
    }
  }
  return false;
}

const chains = new Map<string, string[][]>();

/** Per root, the folders along a module's path (`root/a`, `root/a/b`…): pure, memoised. */
function folderChains(module: string, roots: readonly string[]): string[][] {
  return remembered(chains, `${module}\0${roots.join('\0')}`, () => {
    const parts = module.endsWith('.py') ? module.replace(/\.py$/, '').split(/[/\\]/).filter(Boolean) : module.split('.');
    const along = parts.slice(0, -1).length ? parts.slice(0, -1) : parts;
    return roots.map((root) => {
      let dir = root;
      return along.map((part) => (dir = path.join(dir, part)));
    });
  });
}
