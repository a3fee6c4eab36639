// Asks a Python interpreter which trinity-rft it has, without importing trinity (that would
// start torch/ray imports): package metadata first, else the `__version__` line of the
// package found on the path (a source checkout). Asynchronous, time-limited, cached per
// interpreter, so typing never waits on it; every failure is "no answer", never a throw.
import { execFile } from 'child_process';

const SCRIPT = [
  'import importlib.util, re, sys',
  'try:',
  '    import importlib.metadata as m',
  "    print(m.version('trinity-rft')); sys.exit(0)",
  'except Exception:',
  '    pass',
  "s = importlib.util.find_spec('trinity')",
  'if s and s.origin:',
  "    t = open(s.origin, encoding='utf-8', errors='replace').read(20000)",
  "    v = re.search(r'__version__\\s*=\\s*[\"\\']([^\"\\']+)', t)",
  '    if v: print(v.group(1))',
].join('\n');

export interface ProbeResult {
  /** The installed version, or undefined when the interpreter has no trinity-rft. */
  version?: string;
  /** Why there is no version (interpreter missing, timed out…), for the log. */
  error?: string;
}

export class TrinityProbe {
  private readonly cache = new Map<string, Promise<ProbeResult>>();

  constructor(private readonly timeoutMs = 8000) {}

  /** The answer for an interpreter (cached; `forget` to ask again). */
  probe(python: string, cwd?: string): Promise<ProbeResult> {
    const key = `${python}\0${cwd ?? ''}`;
    let p = this.cache.get(key);
    if (!p) {
      p = run(python, cwd, this.timeoutMs);
      this.cache.set(key, p);
    }
    return p;
  }

  /** Drops every answer (the interpreter or its packages changed). */
  forget(): void {
    this.cache.clear();
  }
}

function run(python: string, cwd: string | undefined, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve) => {
    try {
      execFile(
        python,
        ['-c', SCRIPT],
        { cwd, timeout: timeoutMs, windowsHide: true, maxBuffer: 64 * 1024, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
        (err, stdout) => {
          const v = String(stdout ?? '')
            .trim()
            .split(/\r?\n/)
            .pop()
            ?.trim();
          if (v && /^\d+(\.\d+)*\S*$/.test(v)) resolve({ version: v });
          else resolve({ error: err ? err.message : 'trinity-rft is not installed' });
        },
      );
    } catch (err) {
      resolve({ error: (err as Error).message });
    }
  });
}
