// A relay client at the wire: a bare WebSocket that sends protocol messages as JSON and keeps
// every message the relay sent, parsed but not interpreted (a binary points or envelope frame is
// kept as its decoded batch). The adversarial tests use it so that
// they hold any relay to the protocol (the bundled one, or another runtime, relay.ts) without
// the extension's client stack in between, and so that a test can misbehave on purpose: stop
// reading, flood requests, send garbage.
import * as fs from 'node:fs';
import WebSocket from 'ws';
import type { Cursor, ExperienceRow, TagPoints } from '../../src/relay-protocol/messages';
import { RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL } from '../../src/relay-protocol/messages';
import { binaryFrameType, decodeEnvelopeFrame } from '../../src/relay-protocol/envelope-frame';
import { decodePointsFrame } from '../../src/relay-protocol/points-frame';
import { decodeTokensFrame, isTokensFrame } from '../../src/relay-protocol/tokens-frame';

/** A message as the relay sent it (JSON, or a binary frame's batch), with its type. */
export type WireMessage = { type: string } & Record<string, unknown>;

export interface WireOptions {
  token?: string;
  /** Extra request headers (e.g. an Origin). */
  headers?: Record<string, string>;
  /** The URL path and query to ask for (default '/'). */
  path?: string;
}

export interface WirePoint {
  source: string;
  tag: string;
  step: number;
  value: number;
}

export interface Closed {
  code: number;
  reason: string;
}

export class WireClient {
  readonly messages: WireMessage[] = [];
  /** Binary frames received (points batches, envelopes). */
  binaryFrames = 0;
  /** Bytes of every frame received. */
  bytes = 0;
  /** Set once the socket closed. */
  closed: Closed | undefined;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const b = data as Buffer;
      this.bytes += b.length;
      if (!isBinary) this.messages.push(JSON.parse(b.toString('utf8')) as WireMessage);
      else {
        this.binaryFrames++;
        const kind = binaryFrameType(b);
        if (kind === 'points') this.messages.push({ ...decodePointsFrame(b) });
        else if (kind === 'envelope') this.messages.push({ ...decodeEnvelopeFrame(b) });
        else if (isTokensFrame(b)) this.messages.push({ ...decodeTokensFrame(b) });
      }
      this.notify();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.notify();
    });
    ws.on('error', () => undefined);
  }

  /** Opens a connection; rejects with the HTTP status when the relay refuses the upgrade. */
  static connect(url: string, opts: WireOptions = {}): Promise<WireClient> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    const target = opts.path === undefined ? url : new URL(opts.path, url).toString();
    const ws = new WebSocket(target, RELAY_SUBPROTOCOL, { headers, perMessageDeflate: false });
    const client = new WireClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        ws.terminate();
        reject(new WireRefused(res.statusCode ?? 0));
      });
      ws.once('error', reject);
    });
  }

  send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }

  /** Sends a frame as given (text, or binary for a Buffer). */
  sendRaw(data: string | Buffer): void {
    this.ws.send(data, { binary: typeof data !== 'string' });
  }

  subscribe(opts: { cursors?: Cursor[]; runs?: string[]; experiences?: boolean } = {}): void {
    this.send({
      type: 'subscribe',
      protocol: RELAY_PROTOCOL_VERSION,
      cursors: opts.cursors ?? [],
      ...(opts.runs ? { runs: opts.runs } : {}),
      ...(opts.experiences === undefined ? {} : { experiences: opts.experiences }),
    });
  }

  /** Stops reading from the socket: the relay's replies pile up in its buffers and the kernel's. */
  stopReading(): void {
    this.ws.pause();
  }

  of(type: string): WireMessage[] {
    return this.messages.filter((m) => m.type === type);
  }

  /** Every point of the points batches, in arrival order (tag by tag within a batch). */
  points(): WirePoint[] {
    const out: WirePoint[] = [];
    for (const m of this.of('points')) {
      for (const s of m.series as TagPoints[])
        for (let i = 0; i < s.step.length; i++) out.push({ source: m.source as string, tag: s.tag, step: s.step[i], value: s.value[i] });
    }
    return out;
  }

  /** Every experience row, in arrival order. */
  rows(): ExperienceRow[] {
    return this.of('experiences').flatMap((m) => m.rows as ExperienceRow[]);
  }

  /** The cursors of every batch, in arrival order. */
  cursorTrail(): Cursor[] {
    return this.messages.filter((m) => m.type === 'points' || m.type === 'experiences').map((m) => m.cursor as Cursor);
  }

  /** The last cursor of each source (what a client sends back in `subscribe`). */
  cursors(): Cursor[] {
    const last = new Map<string, Cursor>();
    for (const c of this.cursorTrail()) last.set(c.source, c);
    return [...last.values()];
  }

  /** Waits until `pred` holds (checked on every message and on close). */
  waitFor(what: string, pred: () => boolean, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!pred()) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what} (${this.messages.length} messages${this.closed ? `, closed ${this.closed.code}` : ''})`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Waits for the socket to close (the relay cut it, or close() was called). */
  async waitClosed(what = 'the relay to close the connection', timeoutMs = 30_000): Promise<Closed> {
    await this.waitFor(what, () => this.closed !== undefined, timeoutMs);
    return this.closed!;
  }

  close(): void {
    if (this.closed) return;
    this.ws.terminate();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}

export class WireRefused extends Error {
  constructor(readonly status: number) {
    super(`the relay refused the connection: HTTP ${status}`);
  }
}

/** Connects and resolves once `hello` arrived: the relay's event loop answers. */
export async function helloFrom(url: string, opts: WireOptions = {}, timeoutMs = 30_000): Promise<WireClient> {
  const c = await WireClient.connect(url, opts);
  await c.waitFor('hello', () => c.of('hello').length > 0, timeoutMs);
  return c;
}

/** The resident set of a process (MiB), from /proc. */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}

/** Open file descriptors of a process, from /proc (regular files only). */
export function openFiles(pid: number, under?: string): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('/') && (under === undefined || target.startsWith(under))) out.push(target);
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}
