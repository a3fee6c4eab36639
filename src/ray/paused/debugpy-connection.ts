// Our own DAP client side where the Python Debugger extension is absent: the editor's debug
// session talks to the paused worker's debugpy adapter through this connection (an inline
// debug adapter in VS Code: messages in, messages out, Content-Length framed over TCP). It
// opens the socket before the session starts, so a refused port is a message rather than a
// session that never answers, and when the socket closes (the worker ended, the port went
// away) it ends the session with a `terminated` event instead of leaving it hung. No vscode.
import * as net from 'node:net';

/** A DAP message as it goes over the wire. */
export interface DapMessage {
  seq: number;
  type: 'request' | 'response' | 'event';
  command?: string;
  event?: string;
  request_seq?: number;
  success?: boolean;
  message?: string;
  arguments?: unknown;
  body?: unknown;
}

export type ConnectFailure = { kind: 'refused' | 'timeout' | 'unreachable'; host: string; port: number; detail: string };

export class DebugpyConnectError extends Error {
  constructor(readonly failure: ConnectFailure) {
    super(`${failure.host}:${failure.port}: ${failure.kind} (${failure.detail})`);
  }
}

/**
 * Opens a TCP connection to the worker's debugpy, or says why not. A refusal is tried again
 * `retries` times (a worker's row can say paused a moment before its port accepts).
 */
export async function connectDebugpy(host: string, port: number, timeoutMs = 10_000, retries = 2): Promise<net.Socket> {
  for (let i = 0; ; i++) {
    try {
      return await connectOnce(host, port, timeoutMs);
    } catch (e) {
      if (!(e instanceof DebugpyConnectError) || e.failure.kind !== 'refused' || i >= retries) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function connectOnce(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ host, port });
    const fail = (kind: ConnectFailure['kind'], detail: string) => {
      socket.destroy();
      reject(new DebugpyConnectError({ kind, host, port, detail }));
    };
    const timer = setTimeout(() => fail('timeout', `no answer in ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(e.code === 'ECONNREFUSED' ? 'refused' : 'unreachable', e.code ?? e.message);
    });
  });
}

type Listener = (m: DapMessage) => void;

/**
 * One debug session's connection to debugpy: `handleMessage` sends what the editor says,
 * `onDidSendMessage` tells what debugpy answers (the shape of VS Code's `DebugAdapter`).
 */
export class DebugpyConnection {
  private readonly listeners = new Set<Listener>();
  private buffer = Buffer.alloc(0);
  private terminated = false;
  private seq = 1_000_000;
  /** Requests sent to debugpy and not answered yet (seq → command): answered here if the socket closes first. */
  private readonly inFlight = new Map<number, string | undefined>();
  /** Why the socket closed, if it did. */
  closedBecause: string | undefined;

  constructor(
    private readonly socket: net.Socket,
    /** The line the debug console shows when debugpy closes the connection (the caller's language). */
    private readonly closedText: (why: string | undefined) => string = (why) => `debugpy closed the connection${why ? `: ${why}` : ''}`,
  ) {
    socket.on('data', (d: Buffer) => this.receive(d));
    socket.on('error', (e) => (this.closedBecause ??= e.message));
    socket.on('close', () => this.closed());
  }

  /** `vscode.Event`-shaped: subscribe to what debugpy sends. */
  readonly onDidSendMessage = (listener: Listener): { dispose(): void } => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  handleMessage(m: DapMessage): void {
    if (this.socket.destroyed) {
      // a request after the socket closed: answer it, or the editor waits forever
      if (m.type === 'request') this.answerClosed(m.seq, m.command);
      return;
    }
    if (m.type === 'request') this.inFlight.set(m.seq, m.command);
    const body = Buffer.from(JSON.stringify(m), 'utf8');
    this.socket.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  dispose(): void {
    this.socket.end();
    this.socket.destroy();
  }

  /** The answer to a request debugpy can no longer answer: the connection is closed. */
  private answerClosed(requestSeq: number, command: string | undefined) {
    this.emit({
      seq: this.seq++,
      type: 'response',
      request_seq: requestSeq,
      command,
      success: command === 'disconnect',
      message: this.closedText(this.closedBecause),
    });
  }

  private emit(m: DapMessage) {
    if (m.type === 'response' && m.request_seq !== undefined) this.inFlight.delete(m.request_seq);
    if (m.type === 'event' && m.event === 'terminated') this.terminated = true;
    for (const l of [...this.listeners]) l(m);
  }

  private receive(d: Buffer) {
    this.buffer = Buffer.concat([this.buffer, d]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const header = /Content-Length:\s*(\d+)/i.exec(this.buffer.subarray(0, end).toString('ascii'));
      if (!header) {
        this.buffer = this.buffer.subarray(end + 4);
        continue;
      }
      const len = Number(header[1]);
      if (this.buffer.length < end + 4 + len) return;
      const text = this.buffer.subarray(end + 4, end + 4 + len).toString('utf8');
      this.buffer = this.buffer.subarray(end + 4 + len);
      try {
        this.emit(JSON.parse(text) as DapMessage);
      } catch {
        /* not JSON: debugpy never sends that; skip the frame */
      }
    }
  }

  private closed() {
    // a request sent just before the socket closed (the editor's `initialize` or `attach` to a
    // forwarder that let go): answered now, or the session's start waits on it forever
    for (const [seq, command] of [...this.inFlight]) this.answerClosed(seq, command);
    if (this.terminated) return;
    this.emit({
      seq: this.seq++,
      type: 'event',
      event: 'output',
      body: { category: 'console', output: `${this.closedText(this.closedBecause)}\n` },
    });
    this.emit({ seq: this.seq++, type: 'event', event: 'terminated', body: {} });
  }
}
