// The Python runner as a process: started with the user's interpreter as
// `python -m agentrl_runner`, it connects back on a loopback socket and speaks JSON lines
// (runner-protocol.ts). The session token reaches it through its environment, never its
// command line (world-readable in /proc/<pid>/cmdline). It leads a session of its own, and
// every process of the run carries a marker in its environment: end() ends them all, the ones
// that left the runner (a fork, a daemon) too. `exit` is reported only once everything the
// runner wrote has been read, so a last large message is never taken for a crash.
import { spawn, type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import { EventEmitter } from 'events';
import * as net from 'net';
import * as path from 'path';
import {
  JsonLineDecoder,
  RUNNER_PROTOCOL_VERSION,
  RUNNER_TOKEN_ENV,
  encodeLine,
  type HelloMsg,
  type ExtensionMessage,
  type RunnerMessage,
} from '../trajectory/runner-protocol';
import { killTree } from './process-tree';

/** After the run's processes are ended, how long the socket may stay open without data. */
const SOCKET_IDLE_MS = 2000;

/** The environment variable marking every process of a run (its value is the run's own). */
const RUN_MARKER_ENV = 'AGENTRL_RUN_MARKER';

export interface RunnerStartOptions {
  python: string;
  /** The folder holding the `agentrl_runner` package (dist/runner). */
  runnerDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The session token: the runner's hello must carry it (and its clients use it at the gateway). */
  token: string;
  debugpy: boolean;
  connectTimeoutMs?: number;
}

export interface RunnerEvents {
  message: [RunnerMessage];
  /** Raw stdout / stderr of the process (what the runner did not capture itself). */
  output: ['stdout' | 'stderr', string];
  /** The runner exited and everything it wrote has been read (its `done` was delivered first). */
  exit: [code: number | null, signal: NodeJS.Signals | null];
}

/** The runner's environment: the user's, with every OpenAI client the workflow builds itself
 *  pointed at the gateway too (it never sees a real key). */
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

export class RunnerProcess extends EventEmitter<RunnerEvents> {
  hello?: HelloMsg;
  private child?: ChildProcess;
  private socket?: net.Socket;
  private exited = false;
  private readonly marker = `${RUN_MARKER_ENV}=${randomBytes(12).toString('hex')}`;
  private ending?: Promise<void>;

  constructor(private readonly opts: RunnerStartOptions) {
    super();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    const c = this.child;
    return !!c && !this.exited && c.exitCode === null && c.signalCode === null;
  }

  /** Starts the runner; resolves once it has connected and said hello with the token. */
  async start(): Promise<HelloMsg> {
    const o = this.opts;
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as net.AddressInfo).port;
    // -B: no __pycache__ written into the extension's folder.
    const args = ['-B', '-u', '-m', 'agentrl_runner', '--connect', `127.0.0.1:${port}`, ...(o.debugpy ? ['--debugpy'] : [])];
    // The token, this run's marker, and the runner package first on PYTHONPATH (the runner
    // gives the workflow the user's PYTHONPATH back).
    const [name, value] = this.marker.split('=');
    const env = { ...o.env, [RUNNER_TOKEN_ENV]: o.token, [name]: value, PYTHONPATH: [o.runnerDir, o.env.PYTHONPATH].filter(Boolean).join(path.delimiter) };
    let child: ChildProcess;
    try {
      child = spawn(o.python, args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    } catch (e) {
      server.close();
      throw new Error(`cannot start the Python runner with '${o.python}': ${(e as Error).message}`, { cause: e });
    }
    this.child = child;
    let stderrTail = '';
    child.stdout!.on('data', (b: Buffer) => this.emit('output', 'stdout', b.toString('utf8')));
    child.stderr!.on('data', (b: Buffer) => {
      stderrTail = (stderrTail + b.toString('utf8')).slice(-4000);
      this.emit('output', 'stderr', b.toString('utf8'));
    });
    return new Promise<HelloMsg>((resolve, reject) => {
      let settled = false;
      const fail = (msg: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        server.close();
        void this.end();
        reject(new Error(msg));
      };
      const timeoutMs = o.connectTimeoutMs ?? 30000;
      const timer = setTimeout(() => fail(`the Python runner did not connect within ${timeoutMs / 1000} s${stderrTail ? `:\n${stderrTail}` : ''}`), timeoutMs);
      child.once('error', (e: NodeJS.ErrnoException) =>
        fail(e.code === 'ENOENT' ? `Python interpreter not found: '${o.python}' (set "python" in launch.json)` : `cannot start '${o.python}': ${e.message}`),
      );
      child.once('exit', (code, signal) => {
        this.exited = true;
        if (!settled) fail(`the Python runner exited (${code ?? signal}) before connecting${stderrTail ? `:\n${stderrTail}` : ''}`);
      });
      server.once('connection', (socket) => {
        server.close();
        this.socket = socket;
        socket.setNoDelay(true);
        const decoder = new JsonLineDecoder<RunnerMessage>(
          (msg) => {
            if (this.hello) return void this.emit('message', msg);
            if (msg.type !== 'hello' || msg.token !== o.token) return fail('the runner sent an unexpected first message (token mismatch)');
            if (msg.protocol !== RUNNER_PROTOCOL_VERSION) return fail(`runner protocol ${msg.protocol}, extension expects ${RUNNER_PROTOCOL_VERSION}`);
            this.hello = msg;
            settled = true;
            clearTimeout(timer);
            this.reportExit(child, socket);
            resolve(msg);
          },
          (line) => this.emit('output', 'stderr', `[runner sent a malformed message] ${line.slice(0, 200)}\n`),
        );
        socket.on('data', (b) => decoder.push(b));
        socket.on('error', () => undefined);
      });
    });
  }

  /** Once the runner has exited, ends what it left running (their hold on the socket too) and,
   *  when the socket has delivered everything, reports the exit. */
  private reportExit(child: ChildProcess, socket: net.Socket): void {
    let lastData = Date.now();
    socket.on('data', () => (lastData = Date.now()));
    const drained = new Promise<void>((r) => (socket.destroyed ? r() : socket.once('close', () => r())));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.exitCode !== null || child.signalCode !== null ? r([child.exitCode, child.signalCode]) : child.once('exit', (c, s) => r([c, s])),
    );
    void exited.then(async ([code, signal]) => {
      this.exited = true;
      // A process the workflow started may still hold the socket open: nothing of the run
      // outlives the runner, so end them; the socket then closes after its last byte.
      await this.end({ keepSocket: true });
      // Should a process out of reach still hold it, the socket is closed once it stays idle.
      const idle = setInterval(() => Date.now() - lastData > SOCKET_IDLE_MS && socket.destroy(), SOCKET_IDLE_MS / 4);
      await drained;
      clearInterval(idle);
      this.emit('exit', code, signal);
    });
  }

  send(msg: ExtensionMessage): void {
    if (this.socket && !this.socket.destroyed) this.socket.write(encodeLine(msg));
  }

  /** Ends the runner and every process of the run (its session, its descendants, whatever
   *  carries the run's marker) and closes its pipes. `keepSocket`: let the socket deliver
   *  what is still in it and close by itself once no process holds it. */
  end(opts: { keepSocket?: boolean } = {}): Promise<void> {
    if (!opts.keepSocket) this.socket?.destroy();
    this.ending ??= (async () => {
      const pid = this.child?.pid;
      if (pid !== undefined) await killTree(pid, { marker: this.marker });
      this.child?.stdout?.destroy();
      this.child?.stderr?.destroy();
    })();
    return this.ending;
  }
}
