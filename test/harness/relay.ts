// `agentrl relay` as a child process, started the way a user starts it next to a trainer: the
// bundled CLI (dist/agentrl.js) on node, or its Python twin (dist/agentrl_relay.py) on Python 3.8
// or the machine's current python3 — one launcher for all, so a test runs against each runtime
// (RELAY_RUNTIMES). `launchRelay` takes any relay's command line; the adversarial tests run each
// relay `relaysUnderTest()` names (every runtime, or AGENTRL_RELAY_CMD alone, split on spaces),
// the hostile-client bench the one `relayUnderTest()` names. The one copy shared by the
// component, integration and bench tiers.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './paths';

export const cliBundle = path.join(repoRoot, 'dist', 'agentrl.js');
/** The single-file Python relay the build assembles (scripts/bundle-python-relay.mjs). */
export const pythonRelayBundle = path.join(repoRoot, 'dist', 'agentrl_relay.py');

/** Which relay runs: the Node CLI, or the Python relay on Python 3.8 or on the current python3. */
export type RelayRuntime = 'node' | 'python3.8' | 'python3';

/** The interpreter a command names, resolved to its file (pyenv shims need more than PATH). */
function interpreter(cmd: string, want?: RegExp): string | undefined {
  const r = spawnSync(cmd, ['-c', 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return undefined;
  const [exe, version] = r.stdout.trim().split('\n');
  return exe && (!want || want.test(version ?? '')) ? exe : undefined;
}

/** Python 3.8 for the oldest leg: AGENTRL_PYTHON38, a pyenv install, or python3.8 on PATH. */
function python38(): string | undefined {
  const pyenv = process.env.PYENV_ROOT ?? path.join(process.env.HOME ?? '/root', '.pyenv');
  const installed = fs.existsSync(path.join(pyenv, 'versions'))
    ? fs
        .readdirSync(path.join(pyenv, 'versions'))
        .filter((v) => /^3\.8\.\d+$/.test(v))
        .sort()
        .map((v) => path.join(pyenv, 'versions', v, 'bin', 'python3.8'))
    : [];
  for (const c of [process.env.AGENTRL_PYTHON38, ...installed, 'python3.8'].filter((x): x is string => !!x)) {
    const exe = interpreter(c, /^3\.8\./);
    if (exe) return exe;
  }
  return undefined;
}

let resolved: Record<RelayRuntime, string | undefined> | undefined;
function runtimes(): Record<RelayRuntime, string | undefined> {
  resolved ??= { node: process.execPath, 'python3.8': python38(), python3: interpreter('python3') };
  return resolved;
}

/** The interpreter of a runtime (undefined where it is not installed). */
export function relayInterpreter(runtime: RelayRuntime): string | undefined {
  return runtimes()[runtime];
}

/** Why a runtime cannot run here (a skip reason), or undefined when it can. */
export function relaySkipReason(runtime: RelayRuntime): string | undefined {
  if (runtime === 'node') return fs.existsSync(cliBundle) ? undefined : 'dist/agentrl.js is not built (npm run build)';
  if (!fs.existsSync(pythonRelayBundle)) return 'dist/agentrl_relay.py is not built (npm run build)';
  if (!runtimes()[runtime]) {
    return runtime === 'python3.8'
      ? 'no Python 3.8 here (pyenv versions 3.8.*, python3.8 on PATH, or AGENTRL_PYTHON38): the oldest Python the relay supports is not tested'
      : 'no python3 on PATH';
  }
  return undefined;
}

/** Every runtime, each with its skip reason (undefined: it runs). */
export const RELAY_RUNTIMES: RelayRuntime[] = ['node', 'python3.8', 'python3'];

export interface RelayProc {
  /** ws:// or wss:// URL the relay printed. */
  url: string;
  port: number;
  proc: ChildProcess;
  /** Everything the relay wrote to stderr so far. */
  stderr(): string;
  /** Sends `signal` (unless it already exited) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartRelayOptions {
  /** The relay's environment; by default PATH alone, as on a GPU node (no inherited secrets). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for "listening on …" before killing it. */
  timeoutMs?: number;
  /** The CLI file to run (default dist/agentrl.js, or dist/agentrl_relay.py), e.g. a copy standing alone. */
  cli?: string;
  /** Which relay (default node). */
  runtime?: RelayRuntime;
}

/** The command line that runs a relay of `runtime` with `args` (the options after `agentrl relay`). */
export function relayCommand(args: string[], runtime: RelayRuntime = 'node', cli?: string): { file: string; args: string[] } {
  if (runtime === 'node') return { file: process.execPath, args: [cli ?? cliBundle, 'relay', ...args] };
  const exe = relayInterpreter(runtime);
  if (!exe) throw new Error(relaySkipReason(runtime));
  return { file: exe, args: [cli ?? pythonRelayBundle, ...args] };
}

/** The bundled relay's command line: `node dist/agentrl.js relay` (or another copy of the CLI). */
export function bundledRelay(cli: string = cliBundle): string[] {
  return [process.execPath, cli, 'relay'];
}

/** The relay the adversarial tests run: AGENTRL_RELAY_CMD when set, else the bundled one. */
export function relayUnderTest(): string[] {
  const cmd = process.env.AGENTRL_RELAY_CMD?.trim();
  return cmd ? cmd.split(/\s+/) : bundledRelay();
}

/** A relay the adversarial tests run: a name for test titles, its command line, why it cannot run here. */
export interface RelayUnderTest {
  name: string;
  skip: string | undefined;
  command(): string[];
}

/**
 * The relays the adversarial tests run, each in its own suite: AGENTRL_RELAY_CMD alone when set
 * (another build of a relay), else every runtime (the Node relay, the Python relay on 3.8 and on
 * the current python3), skipped with the reason where one is not installed.
 */
export function relaysUnderTest(): RelayUnderTest[] {
  if (process.env.AGENTRL_RELAY_CMD?.trim()) return [{ name: 'AGENTRL_RELAY_CMD', skip: undefined, command: relayUnderTest }];
  return RELAY_RUNTIMES.map((runtime) => ({
    name: runtime,
    skip: relaySkipReason(runtime),
    command: () => {
      const cmd = relayCommand([], runtime);
      return [cmd.file, ...cmd.args];
    },
  }));
}

/** Starts `node dist/agentrl.js relay …args` (or the Python relay with the same args; adds
 *  `--port 0` unless given) and waits for its URL. */
export function startRelay(args: string[], opts: StartRelayOptions = {}): Promise<RelayProc> {
  const cmd = relayCommand([], opts.runtime, opts.cli);
  return launchRelay([cmd.file, ...cmd.args], args, opts);
}

/**
 * Starts the relay whose command line is `command` with `args` (adds `--port 0` unless given),
 * and waits for the `listening on <url>` line it prints.
 */
export function launchRelay(command: string[], args: string[], opts: Omit<StartRelayOptions, 'cli' | 'runtime'> = {}): Promise<RelayProc> {
  const full = [...command.slice(1), ...args];
  if (!args.includes('--port')) full.push('--port', '0');
  // In the VS Code extension host process.execPath is Electron: make it behave as node.
  const env = { PATH: process.env.PATH ?? '', ...opts.env, ELECTRON_RUN_AS_NODE: '1' };
  const proc = spawn(command[0], full, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr.on('data', (b) => (err += b));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`relay did not start: ${err}`));
    }, opts.timeoutMs ?? 20_000);
    const onEarlyExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`relay exited ${code}: ${err}`));
    };
    proc.once('exit', onEarlyExit);
    proc.stdout.on('data', (b) => {
      out += b;
      const m = /listening on (wss?:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      proc.off('exit', onEarlyExit);
      resolve({
        url: m[1],
        port: Number(new URL(m[1]).port),
        proc,
        stderr: () => err,
        stop: async (signal = 'SIGTERM') => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
          await exited;
        },
      });
    });
  });
}
