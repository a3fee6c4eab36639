// Runs a snippet of Python against the debugger's runner modules (src/debug/runner) with the
// machine's python3, as the runner ships: standard library only, so PYTHONPATH is cleared and
// nothing from a venv leaks in. One helper for every runner test, so they all run it alike.
import { spawnSync } from 'child_process';
import * as os from 'os';
import * as path from 'path';
import { repoRoot } from './paths';

/** The runner's Python modules, importable by their file names. */
export const runnerDir = path.join(repoRoot, 'src', 'debug', 'runner');

export interface PythonResult {
  /** stdout parsed as JSON, or the raw text when it is not JSON. */
  out: unknown;
  err: string;
  status: number | null;
}

/** Runs `code` (after `import sys, json` and the runner folder on sys.path) in `cwd`. */
export function runnerPython(code: string, cwd: string = os.tmpdir()): PythonResult {
  const r = spawnSync('python3', ['-c', `import sys, json; sys.path.insert(0, ${JSON.stringify(runnerDir)})\n${code}`], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: '' },
  });
  let out: unknown;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    out = r.stdout;
  }
  return { out, err: r.stderr, status: r.status };
}
