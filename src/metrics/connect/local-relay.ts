// Starts `agentrl relay` for a local job dir / TensorBoard logdir as a child process of the
// extension host: bound to loopback, on a free port, with a fresh random token (passed in the
// environment, never on the command line). Resolves with the URL once the relay prints it.
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../base/log';

export interface LocalRelaySpec {
  dir: string;
  mode: 'job' | 'logdir';
  run?: string;
}

export interface LocalRelay {
  readonly url: string;
  readonly token: string;
  readonly pid: number;
  /** Called once when the process ends (code, signal, last stderr lines). */
  onExit(cb: (code: number | null, signal: NodeJS.Signals | null, stderr: string) => void): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface LauncherOptions {
  /** Path of dist/agentrl.js. */
  cli: string;
  /** Node to run it with (the extension host's own executable by default). */
  node?: string;
  log: Logger;
  /** Give up waiting for the URL after this long. */
  startTimeoutMs?: number;
  /** Extra relay flags (tests: a short --heartbeat). */
  extraArgs?: string[];
}

export type RelayLauncher = (spec: LocalRelaySpec, port?: number) => Promise<LocalRelay>;

/** Every relay this module started and has not seen exit (killed when the extension host exits). */
const live = new Set<ChildProcess>();
let exitHook = false;

export function relayLauncher(o: LauncherOptions): RelayLauncher {
  return (spec, port) =>
    new Promise<LocalRelay>((resolve, reject) => {
      const token = randomBytes(24).toString('base64url');
      const args = [o.cli, 'relay', spec.mode === 'job' ? '--job-dir' : '--logdir', spec.dir, '--host', '127.0.0.1', '--port', String(port ?? 0)];
      if (spec.run && spec.mode === 'job') args.push('--run', spec.run);
      args.push(...(o.extraArgs ?? []));
      const child = spawn(o.node ?? process.execPath, args, {
        // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron.
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', AGENTRL_RELAY_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      });
      live.add(child);
      if (!exitHook) {
        exitHook = true;
        process.once('exit', () => {
          for (const c of live) c.kill('SIGKILL');
        });
      }
      let stdout = '';
      let stderr = '';
      let settled = false;
      const exitCbs: ((code: number | null, signal: NodeJS.Signals | null, stderr: string) => void)[] = [];
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        child.kill('SIGKILL');
        reject(new Error(`agentrl relay did not start within ${(o.startTimeoutMs ?? 20000) / 1000} s: ${tail(stderr)}`));
      }, o.startTimeoutMs ?? 20000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        const m = stdout.match(/listening on (wss?:\/\/\S+)/);
        if (m && !settled) {
          settled = true;
          clearTimeout(timer);
          o.log.info(`metrics: started relay (pid ${child.pid}) for ${spec.dir} on ${m[1]}`);
          resolve({
            url: m[1],
            token,
            pid: child.pid!,
            onExit(cb) {
              if (exited) cb(exited.code, exited.signal, tail(stderr));
              else exitCbs.push(cb);
            },
            stop: (graceMs = 3000) => stop(child, graceMs),
          });
        }
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr = (stderr + d).slice(-8192);
        for (const line of d.split('\n')) if (line.trim()) o.log.debug(`relay[${child.pid}]: ${line}`);
      });
      child.on('error', (e) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(new Error(`cannot start agentrl relay: ${e.message}`));
        }
      });
      child.on('exit', (code, signal) => {
        live.delete(child);
        exited = { code, signal };
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(new Error(`agentrl relay exited (${code ?? signal}): ${tail(stderr) || tail(stdout)}`));
          return;
        }
        for (const cb of exitCbs.splice(0)) cb(code, signal, tail(stderr));
      });
    });
}

function tail(s: string): string {
  return s.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
}

function stop(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
