// Rules 1 and 5: who may import whom. Every folder of src/ is a feature or a library. Features
// never import each other — not even a type: src/extension.ts and src/cli.ts wire them — and
// import library folders instead (each named for what it holds: the relay protocol, the config
// checker other features are handed, …); a library imports no feature. Only VS Code adapters
// import `vscode`, so the pure logic runs in plain node (CLI, tests, bench) and the webviews.
import { type FileSet, type Violation, isTypeScript, sortViolations } from './files';
import { type ModuleRef, moduleRefs } from './imports';

/** The features: one folder each, in the shape CONTRIBUTING gives (activate.ts, host.ts, cli.ts…). */
export const FEATURES: ReadonlySet<string> = new Set(['config', 'scaffold', 'debug', 'eval', 'metrics', 'relay', 'ray', 'online', 'welcome']);

/** Library folders: what features may import. Each holds one kind of thing and imports no feature. */
export const LIBRARIES: ReadonlySet<string> = new Set([
  'base',
  'relay-protocol',
  'feature-api',
  'webview-shell',
  'webview-ui',
  'tokens',
  'workspace-files',
  'tfrecord',
  'sqlite',
  'types',
  'pipeline',
  'tasks',
]);

type Layer =
  { kind: 'wiring' } | { kind: 'library'; name: string } | { kind: 'feature'; name: string } | { kind: 'unknown'; name: string } | { kind: 'outside' };

/** Where a repo path sits: a file directly in src/ wires features; src/<f>/… is in a feature or a library. */
export function layerOf(file: string): Layer {
  const parts = file.split('/');
  if (parts[0] !== 'src') return { kind: 'outside' };
  if (parts.length === 2) return { kind: 'wiring' };
  const name = parts[1];
  return LIBRARIES.has(name) ? { kind: 'library', name } : FEATURES.has(name) ? { kind: 'feature', name } : { kind: 'unknown', name };
}

const libraryList = (): string => [...LIBRARIES].map((l) => `src/${l}`).join(', ');

function layeringReason(ref: ModuleRef & { target: string }): string | undefined {
  const from = layerOf(ref.file);
  const to = layerOf(ref.target);
  if (from.kind === 'wiring' || from.kind === 'outside') return undefined;
  const what = ref.typeOnly ? 'imports types from' : 'imports';
  if (to.kind === 'wiring') return `src/${from.name} ${what} the wiring ${ref.target}: only the wiring imports features, never the reverse`;
  if (to.kind !== 'feature' || from.name === to.name) return undefined;
  if (from.kind === 'library') return `library src/${from.name} ${what} feature ${to.name} (${ref.target}): a library imports no feature`;
  return `feature ${from.name} ${what} the internals of feature ${to.name} (${ref.target}): features import library folders only (${libraryList()}); move what both need into one`;
}

/**
 * Rule 1: a feature importing another feature, a library importing a feature, anything importing
 * the wiring — and a folder of src/ that is neither a feature nor a library (once, at its first file).
 */
export function featureImports(files: FileSet): Violation[] {
  const out: Violation[] = [];
  for (const ref of moduleRefs(files)) {
    if (ref.target === undefined) continue;
    const reason = layeringReason({ ...ref, target: ref.target });
    if (reason) out.push({ file: ref.file, line: ref.line, reason });
  }
  const unknown = new Map<string, string>();
  for (const file of [...files.keys()].sort()) {
    const layer = layerOf(file);
    if (layer.kind === 'unknown' && isTypeScript(file) && !unknown.has(layer.name)) unknown.set(layer.name, file);
  }
  for (const [name, file] of unknown) {
    out.push({
      file,
      line: 1,
      reason: `src/${name} is neither a feature nor a library folder: name it in FEATURES or LIBRARIES (test/harness/architecture/layers.ts) and in CONTRIBUTING`,
    });
  }
  return sortViolations(out);
}

/**
 * Why `file` may not import vscode, or undefined where it may: src/extension.ts, files at a
 * feature's root (src/<feature>/*.ts, the adapters) and src/<feature>/vscode/**. Type-only imports
 * count as imports: `import type … from 'vscode'` is as welcome as a value import in an adapter
 * and as unwelcome in pure logic (it drags @types/vscode into code meant to run without it).
 */
export function vscodeBan(file: string): string | undefined {
  const parts = file.split('/');
  const layer = layerOf(file);
  if (layer.kind === 'outside' || file === 'src/extension.ts') return undefined;
  if (layer.kind === 'wiring') return `${file} runs outside VS Code`;
  if (layer.kind === 'library') return `library src/${layer.name} is shared with the CLI and the webviews`;
  if (layer.name === 'relay') return 'src/relay runs outside VS Code (the relay CLI)';
  if (parts[parts.length - 1] === 'cli.ts') return 'a cli.ts runs outside VS Code';
  if (parts.length === 3 || parts[2] === 'vscode') return undefined;
  return `src/${layer.name}/${parts[2]}/ is pure logic (only src/${layer.name}/*.ts and src/${layer.name}/vscode/ may import vscode)`;
}

/** Rule 5: `vscode` imported (import, import type, require, import()) where only adapters may. */
export function vscodeImports(files: FileSet): Violation[] {
  const out: Violation[] = [];
  for (const ref of moduleRefs(files)) {
    if (ref.spec !== 'vscode') continue;
    const ban = vscodeBan(ref.file);
    if (ban) out.push({ file: ref.file, line: ref.line, reason: `${ref.typeOnly ? 'type-only ' : ''}vscode import: ${ban}` });
  }
  return sortViolations(out);
}
