// Rules 1 and 5 of issue 17: who may import whom. Features (top-level folders of src/ other
// than shared and types) never import each other — src/extension.ts and src/cli.ts wire them —
// and only VS Code adapters import `vscode`, so the pure logic runs in plain node (CLI, tests,
// bench) and the webviews.
import { type FileSet, type Violation, sortViolations } from './files';
import { type ModuleRef, moduleRefs } from './imports';

/**
 * Folders of src/ that are not features: what features share, ambient declarations, and the
 * libraries several features use (the token model, the browser components of their webviews).
 */
const COMMON = new Set(['shared', 'types', 'tokens', 'webview-ui']);

type Layer = { kind: 'wiring' } | { kind: 'common'; name: string } | { kind: 'feature'; name: string } | { kind: 'outside' };

/** Where a repo path sits: a file directly in src/ wires features; src/<f>/… belongs to a feature or to the common folders. */
export function layerOf(file: string): Layer {
  const parts = file.split('/');
  if (parts[0] !== 'src') return { kind: 'outside' };
  if (parts.length === 2) return { kind: 'wiring' };
  return COMMON.has(parts[1]) ? { kind: 'common', name: parts[1] } : { kind: 'feature', name: parts[1] };
}

function layeringReason(ref: ModuleRef & { target: string }): string | undefined {
  const from = layerOf(ref.file);
  const to = layerOf(ref.target);
  if (from.kind === 'wiring' || from.kind === 'outside') return undefined;
  const what = ref.typeOnly ? 'imports types from' : 'imports';
  if (to.kind === 'wiring') return `src/${from.name} ${what} the wiring ${ref.target}: only the wiring imports features, never the reverse`;
  if (to.kind !== 'feature' || (from.kind === 'feature' && from.name === to.name)) return undefined;
  if (from.kind === 'common') return `src/${from.name} ${what} feature ${to.name} (${ref.target}): src/${from.name} imports no feature`;
  return `feature ${from.name} ${what} feature ${to.name} (${ref.target}): move what both need to src/shared`;
}

/** Rule 1: a feature importing another feature, src/shared or src/types importing a feature, anything importing the wiring. */
export function featureImports(files: FileSet): Violation[] {
  const out: Violation[] = [];
  for (const ref of moduleRefs(files)) {
    if (ref.target === undefined) continue;
    const reason = layeringReason({ ...ref, target: ref.target });
    if (reason) out.push({ file: ref.file, line: ref.line, reason });
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
  if (layer.kind === 'common') return `src/${layer.name} is shared with the CLI and the webviews`;
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
