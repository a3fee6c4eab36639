// Starts the Python runner with the user's interpreter and holds the JSON-lines socket it
// connects back on. The runner leads its own process group; kill() ends the whole tree.
import { spawn, type ChildProcess } from 'child_process';
import * as net from 'net';
import {
  JsonLineDecoder,
  RUNNER_PROTOCOL_VERSION,
  encodeLine,
  type HelloMsg,
  type HostToRunner,
  type RunnerToHost,
} from '../model/rollout-protocol';
import { killTree } from './process-tree';

export interface RunnerStartOptions {
  python: string;
  /** dist/runner/agentrl_runner.py */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  token: string;
  debugpy: boolean;
  onMessage(msg: RunnerToHost): void;
  /** Raw stdout/stderr of the process (what the runner did not capture itself). */
  onRawOutput(category: 'stdout' | 'stderr', text: string): void;
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
  connectTimeoutMs?: number;
}

/** The runner's environment: the user's, with every OpenAI client the workflow builds
 *  itself pointed at the gateway too; it never sees a real key. */
export function runnerEnv(base: NodeJS.ProcessEnv, gatewayUrl: string, token: string): NodeJS.ProcessEnv {
  return {
    ...base,
    OPENAI_BASE_URL: gatewayUrl,
    OPENAI_API_BASE: gatewayUrl,
    OPENAI_API_KEY: token,
    PYTHONUNBUFFERED: '1',
    PYTHONIOENCODING: 'utf-8',
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
  };
}

export class RunnerProcess {
  private exited = false;
  private constructor(
    readonly child: ChildProcess,
    private readonly socket: net.Socket,
    readonly hello: HelloMsg,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(opts: RunnerStartOptions): Promise<RunnerProcess> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as net.AddressInfo).port;
    const args = ['-u', opts.script, '--connect', `127.0.0.1:${port}`, '--token', opts.token];
    if (opts.debugpy) args.push('--debugpy');
    let child: ChildProcess;
    try {
      child = spawn(opts.python, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    } catch (e) {
      server.close();
      throw new Error(`cannot start the Python runner with '${opts.python}': ${(e as Error).message}`);
    }
    let stderrTail = '';
    child.stdout!.on('data', (b: Buffer) => opts.onRawOutput('stdout', b.toString('utf8')));
    child.stderr!.on('data', (b: Buffer) => {
      stderrTail = (stderrTail + b.toString('utf8')).slice(-4000);
      opts.onRawOutput('stderr', b.toString('utf8'));
    });
    return new Promise<RunnerProcess>((resolve, reject) => {
      let settled = false;
      const fail = (msg: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        server.close();
        if (child.pid && child.exitCode === null) void killTree(child.pid);
        reject(new Error(msg));
      };
      const timer = setTimeout(
        () => fail(`the Python runner did not connect within ${(opts.connectTimeoutMs ?? 30000) / 1000} s${stderrTail ? `:\n${stderrTail}` : ''}`),
        opts.connectTimeoutMs ?? 30000,
      );
      child.once('error', (e: NodeJS.ErrnoException) =>
        fail(e.code === 'ENOENT' ? `Python interpreter not found: '${opts.python}' (set "python" in launch.json)` : `cannot start '${opts.python}': ${e.message}`),
      );
      child.once('exit', (code, signal) => {
        if (!settled) fail(`the Python runner exited (${code ?? signal}) before connecting${stderrTail ? `:\n${stderrTail}` : ''}`);
      });
      server.once('connection', (socket) => {
        server.close();
        socket.setNoDelay(true);
        let runner: RunnerProcess | undefined;
        const decoder = new JsonLineDecoder<RunnerToHost>(
          (msg) => {
            if (!runner) {
              if (msg.type !== 'hello' || msg.token !== opts.token) return fail('the runner sent an unexpected first message (token mismatch)');
              if (msg.protocol !== RUNNER_PROTOCOL_VERSION) return fail(`runner protocol ${msg.protocol}, extension expects ${RUNNER_PROTOCOL_VERSION}`);
              runner = new RunnerProcess(child, socket, msg);
              settled = true;
              clearTimeout(timer);
              child.on('exit', (c, s) => {
                runner!.exited = true;
                opts.onExit(c, s);
              });
              resolve(runner);
              return;
            }
            opts.onMessage(msg);
          },
          (line) => opts.onRawOutput('stderr', `[runner sent a malformed message] ${line.slice(0, 200)}\n`),
        );
        socket.on('data', (b) => decoder.push(b));
        socket.on('error', () => undefined);
      });
    });
  }

  send(msg: HostToRunner): void {
    if (!this.socket.destroyed) this.socket.write(encodeLine(msg));
  }

  get alive(): boolean {
    return !this.exited && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends the runner and everything it started. */
  async kill(): Promise<void> {
    this.socket.destroy();
    if (this.child.pid !== undefined) await killTree(this.child.pid);
  }
}
