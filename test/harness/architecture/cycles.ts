// An architecture rule: no import cycle between folders. The graph has one node per folder of
// src/ and an edge a → b when a file directly in a imports (relative, type-only included: the
// folders still depend on each other) a file directly in b; parent ↔ child edges count like any
// other. Every edge inside a strongly connected set is reported on at least one shortest cycle,
// each edge with the import sites that make it, so the list says exactly which imports to cut.
// Rule 2b reads the same way one level down: no import cycle between files (type-only included:
// two files that import each other are one unit to read, whichever way the compiler erases it).
import * as path from 'node:path';
import { type FileSet, type Violation, sortViolations } from './files';
import { moduleRefs } from './imports';

interface Site {
  readonly file: string;
  readonly line: number;
}

/** folder → folder → the imports making that edge. */
type FolderGraph = Map<string, Map<string, Site[]>>;

export function folderGraph(files: FileSet): FolderGraph {
  const g: FolderGraph = new Map();
  for (const ref of moduleRefs(files)) {
    if (!ref.target?.startsWith('src/') || !ref.file.startsWith('src/')) continue;
    const a = path.posix.dirname(ref.file);
    const b = path.posix.dirname(ref.target);
    if (a === b) continue;
    if (!g.has(a)) g.set(a, new Map());
    const edges = g.get(a)!;
    if (!edges.has(b)) edges.set(b, []);
    edges.get(b)!.push({ file: ref.file, line: ref.line });
  }
  return g;
}

/** file → file → the imports making that edge (src/ only). */
export function fileGraph(files: FileSet): FolderGraph {
  const g: FolderGraph = new Map();
  for (const ref of moduleRefs(files)) {
    if (!ref.target?.startsWith('src/') || !ref.file.startsWith('src/') || ref.target === ref.file) continue;
    if (!g.has(ref.file)) g.set(ref.file, new Map());
    const edges = g.get(ref.file)!;
    if (!edges.has(ref.target)) edges.set(ref.target, []);
    edges.get(ref.target)!.push({ file: ref.file, line: ref.line });
  }
  return g;
}

/** Tarjan's strongly connected components, only those with more than one folder. */
function cyclicComponents(g: FolderGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

/** Shortest path from → to inside `within` (breadth first), as the list of folders. */
function shortestPath(g: FolderGraph, from: string, to: string, within: Set<string>): string[] {
  const prev = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length) {
    const v = queue.shift()!;
    if (v === to) break;
    for (const w of [...(g.get(v)?.keys() ?? [])].sort()) {
      if (within.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  const out = [to];
  while (out[0] !== from) out.unshift(prev.get(out[0])!);
  return out;
}

const MAX_SITES = 5;

function describeEdge(g: FolderGraph, a: string, b: string): string {
  const sites = g.get(a)!.get(b)!;
  const shown = sites.slice(0, MAX_SITES).map((s) => `${s.file}:${s.line}`);
  if (sites.length > MAX_SITES) shown.push(`+${sites.length - MAX_SITES} more`);
  return `${a} → ${b} (${shown.join(', ')})`;
}

/** Rule 2: import cycles between folders of src/. */
export function folderCycles(files: FileSet): Violation[] {
  return cycles(folderGraph(files), 'folders');
}

/** Rule 2b: import cycles between files of src/ (inside a folder too). */
export function fileCycles(files: FileSet): Violation[] {
  return cycles(fileGraph(files), 'files');
}

function cycles(g: FolderGraph, what: string): Violation[] {
  const out: Violation[] = [];
  for (const component of cyclicComponents(g)) {
    const within = new Set(component);
    const covered = new Set<string>();
    for (const a of component) {
      for (const b of [...g.get(a)!.keys()].sort()) {
        if (!within.has(b) || covered.has(`${a}\0${b}`)) continue;
        const cycle = [a, ...shortestPath(g, b, a, within)];
        const edges = cycle.slice(1).map((to, i) => [cycle[i], to] as const);
        for (const [x, y] of edges) covered.add(`${x}\0${y}`);
        const first = g.get(a)!.get(b)![0];
        out.push({
          file: first.file,
          line: first.line,
          reason: `import cycle between ${what} ${cycle.join(' → ')}: ${edges.map(([x, y]) => describeEdge(g, x, y)).join('; ')}`,
        });
      }
    }
  }
  return sortViolations(out);
}
