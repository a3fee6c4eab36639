// A bounded, sorted walk over folders (the Python scan, the workspace's YAML configs, the
// CLI's directory and glob arguments): skips dependency and cache folders, stops at limits.
import * as fs from 'fs';
import * as path from 'path';

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  '__pycache__',
  '.venv',
  'venv',
  'env',
  '.env',
  'site-packages',
  'dist',
  'build',
  '.mypy_cache',
  '.tox',
  '.cache',
  '.vscode-test',
  'out',
]);

export interface WalkOptions {
  /** Keep a file (path relative to the walked root, with `/`). */
  accept: (rel: string, name: string) => boolean;
  maxDepth?: number;
  maxFiles?: number;
  maxDirs?: number;
  /** Also skip dot-folders (default true). */
  skipHidden?: boolean;
  /** Folder names not to enter (default SKIP_DIRS). */
  skipDirs?: ReadonlySet<string>;
}

/** What the CLI skips in folders the user names: only dependency and VCS folders. */
export const CLI_SKIP_DIRS = new Set(['node_modules', '.git', '__pycache__', '.venv', 'venv']);

export function walkFiles(root: string, opts: WalkOptions): { files: string[]; truncated: boolean } {
  const files: string[] = [];
  const maxDepth = opts.maxDepth ?? 12;
  const maxFiles = opts.maxFiles ?? Infinity;
  const maxDirs = opts.maxDirs ?? 20_000;
  let dirs = 0;
  let truncated = false;
  const visit = (dir: string, depth: number) => {
    if (depth > maxDepth || ++dirs > maxDirs || files.length >= maxFiles) {
      truncated = true;
      return;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!(opts.skipDirs ?? SKIP_DIRS).has(e.name) && !(opts.skipHidden !== false && e.name.startsWith('.'))) visit(p, depth + 1);
      } else if (e.isFile() && opts.accept(path.relative(root, p).split(path.sep).join('/'), e.name)) {
        if (files.length >= maxFiles) {
          truncated = true;
          return;
        }
        files.push(p);
      }
    }
  };
  visit(root, 0);
  return { files, truncated };
}
