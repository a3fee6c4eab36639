// `agentrl relay` as a child process, started the way a user starts it next to a trainer. The one
// copy shared by the component, integration and bench tiers. `launchRelay` takes the relay's
// command line, so the same tests run any relay that speaks the protocol: the bundled CLI
// (`node dist/agentrl.js relay`, the default), or another runtime named by AGENTRL_RELAY_CMD
// (e.g. `python3 agentrl_relay.py`; split on spaces), which `relayUnderTest()` returns.
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from './paths';

export const cliBundle = path.join(repoRoot, 'dist', 'agentrl.js');

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
  /** The CLI file to run (default dist/agentrl.js), e.g. a copy of it standing alone. */
  cli?: string;
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

/** Starts `node dist/agentrl.js relay …args` (adds `--port 0` unless given) and waits for its URL. */
export function startRelay(args: string[], opts: StartRelayOptions = {}): Promise<RelayProc> {
  return launchRelay(bundledRelay(opts.cli), args, opts);
}

/**
 * Starts the relay whose command line is `command` with `args` (adds `--port 0` unless given),
 * and waits for the `listening on <url>` line it prints.
 */
export function launchRelay(command: string[], args: string[], opts: Omit<StartRelayOptions, 'cli'> = {}): Promise<RelayProc> {
  const full = [...command.slice(1), ...args];
  if (!args.includes('--port')) full.push('--port', '0');
  // In the VS Code extension host process.execPath is Electron: make it behave as node.
  const env = { PATH: process.env.PATH ?? '', ...opts.env, ELECTRON_RUN_AS_NODE: '1' };
  const proc = spawn(command[0], full, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (b) => (err += b));
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
    proc.stdout!.on('data', (b) => {
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
