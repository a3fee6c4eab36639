// One Python that has imported Trinity, serving the debugger runner's runs of a test file by
// forking (test/harness/warm_python.py says how, and what differs from a cold interpreter). A
// test file passes `warm.python` where it passed the venv's interpreter: runs the server cannot
// serve as a cold one would (another PYTHONPATH, another interpreter) start cold, as before.
// At the end, `summary()` says how many runs were served warm and why the others were not.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './paths';

const server = path.join(repoRoot, 'test', 'harness', 'warm_python.py');
/** The runner package as `agentrl` (dist/agentrl.js) puts it first on the run's PYTHONPATH. */
const distRunnerDir = path.join(repoRoot, 'dist', 'runner');

/** What a run of Trinity's workflows and rewards imports (read from the runs of experience.test):
 *  its workflows and rewards, the tokenizer classes (torch's compiler stack behind them), the
 *  OpenAI client, sympy and math_verify (math rewards), gymnasium (frozen lake), datasets. */
export const TRINITY_RUN_MODULES = [
  'trinity.common.workflows',
  'trinity.common.rewards',
  'datasets',
  'transformers',
  'transformers.models.auto.tokenization_auto',
  'transformers.modeling_utils',
  'openai',
  'sympy',
  'math_verify',
  'gymnasium',
];

export interface WarmPython {
  /** The interpreter to give the extension (`--python`): a shim in front of the server. */
  python: string;
  /** "N runs warm, M cold (why)". */
  summary(): string;
  stop(): Promise<void>;
}

export interface WarmPythonOptions {
  /** The interpreter the runs would use (a venv's bin/python). */
  python: string;
  /** The environment the runs get from the test (the extension adds its per-run variables). */
  env: NodeJS.ProcessEnv;
  /** Modules imported once, before the first run. */
  preload: string[];
}

/** The environment the extension gives the runner (src/debug/runtime/runner-process.ts), minus
 *  what it sets per run (the server ignores those). */
function runnerLikeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    PYTHONUNBUFFERED: '1',
    PYTHONIOENCODING: 'utf-8',
    PYTHONPATH: [distRunnerDir, env.PYTHONPATH].filter(Boolean).join(path.delimiter),
  };
}

/** Starts the server and waits until it has imported `preload` (about 5 CPU s for Trinity). */
export async function startWarmPython(o: WarmPythonOptions): Promise<WarmPython> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-warm-'));
  const sock = path.join(dir, 's');
  const log = path.join(dir, 'log');
  const shim = path.join(dir, 'python');
  fs.writeFileSync(
    shim,
    `#!${o.python} -SE\nimport sys\nsys.path.insert(0, ${JSON.stringify(path.dirname(server))})\n` +
      `import warm_python\nsys.exit(warm_python.shim(${JSON.stringify(sock)}, sys.argv[1:]))\n`,
    { mode: 0o755 },
  );
  const child: ChildProcess = spawn(o.python, ['-B', '-u', server, 'serve', sock, log, ...o.preload], {
    env: runnerLikeEnv(o.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`the warm Python server exited (${code ?? signal}) before it was ready:\n${stderr}`)));
  });
  return {
    python: shim,
    summary() {
      const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      const warm = lines.filter((l) => l.startsWith('warm:')).length;
      const cold = lines.filter((l) => !l.startsWith('warm:'));
      return `${warm} runs warm, ${cold.length} cold${cold.length ? ` (${[...new Set(cold)].join('; ')})` : ''}`;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
        await gone;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
