// Client of `agentrl relay` (no vscode import): used by `agentrl tail` and by the extension's
// metrics view. It owns the WebSocket: connects with the client's credentials, tells a refusal
// by the relay (bad token, origin: do not retry) from a network failure, subscribes with its
// cursors, takes points and envelopes as binary frames, hands on each points batch as typed columns
// grouped by tag (no per-point objects), ends a connection on which nothing arrived for too
// long, and on any disconnect reconnects with exponential backoff + jitter, resuming from the
// cursor of the last batch it delivered — so its listeners see every point exactly once.
//
//   const client = new RelayClient({ url: 'ws://127.0.0.1:8765/', token });
//   client.on('points', (b) => { for (const s of b.series) chart.append(s.tag, s.step, s.wallTime, s.value); });
//   client.on('state', (s) => status.update(s));
//   client.start();
//   …
//   await client.close();
//
// Persisting `client.cursors()` and passing them back as `cursors` resumes across restarts
// of the client too.
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { PendingRequests } from '../base/pending-requests';
import type { Obj } from '../base/validate';
import type {
  TimelineRequestMessage,
  ClientMessage,
  Cursor,
  ExperienceDetail,
  ExperiencesMessage,
  HeartbeatMessage,
  HelloMessage,
  PointsBatch,
  ServerMessage,
  SourceInfo,
} from './messages';
import { ProtocolError, RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL, parseClientMessage, parseServerMessage } from './messages';
import { decodePointsFrame, pointCount } from './points-frame';
import type { DetailMessage, DetailRequestMessage, EnvelopeRequest } from './envelope';
import { EnvelopeBatch, binaryFrameType, decodeEnvelopeFrame } from './envelope-frame';
import { type TokensReply, decodeTokensFrame, isTokensFrame } from './tokens-frame';
import type { TaskTableWire } from './tasks';

/** A points batch as the client hands it on (its cursor already recorded by the client). */
export type { PointsBatch } from './messages';

/** A message from the relay as the client takes it: points and envelopes as typed columns (binary frames). */
type RelayMessage = ServerMessage | PointsBatch | EnvelopeBatch | TokensReply;

/** One frame from the relay: a binary points, envelope or tokens frame, or a JSON message. Throws ProtocolError. */
export function readFrame(data: Buffer, isBinary: boolean): RelayMessage {
  if (isBinary) {
    const kind = binaryFrameType(data);
    if (kind === 'envelope') return decodeEnvelopeFrame(data);
    if (kind === 'points') return decodePointsFrame(data);
    if (isTokensFrame(data)) return decodeTokensFrame(data);
    throw new ProtocolError('binary frame: unknown magic');
  }
  return parseServerMessage(data.toString('utf8'));
}

export interface RelayClientError {
  /** auth: refused by the relay (bad token, origin, URL) — the client stops.
   *  protocol: a malformed frame or an error message from the relay.
   *  connection: a network failure (the client retries). */
  kind: 'auth' | 'protocol' | 'connection';
  message: string;
  status?: number;
}

export type RelayClientState = 'idle' | 'connecting' | 'open' | 'backoff' | 'closed';

export interface StateChange {
  state: RelayClientState;
  /** Reconnect attempt number (backoff), 0 once connected. */
  attempt: number;
  /** Delay before the next attempt (backoff). */
  delayMs?: number;
  /** Why the connection ended (backoff / closed). */
  reason?: string;
}

export interface RelayClientOptions {
  /** ws:// or wss:// URL printed by `agentrl relay`. */
  url: string;
  /** Bearer token (sent in the Authorization header only). */
  token?: string;
  /** Only these runs. */
  runs?: string[];
  /** Stream SQL experience rows too (default true). */
  experiences?: boolean;
  /** Where to resume (e.g. cursors saved from a previous session). */
  cursors?: Cursor[];
  /** Ask for envelope-first opening of big event files (envelope.ts); without it every point streams. */
  envelope?: EnvelopeRequest;
  /** Extra CA certificate(s) for wss:// with a self-signed relay certificate. */
  ca?: string | Buffer;
  /** Reconnect backoff: first delay, cap, growth factor, jitter fraction (0..1). */
  backoff?: { initialMs?: number; maxMs?: number; factor?: number; jitter?: number };
  /** Disconnect when nothing (not even a heartbeat) arrived for this many heartbeat periods. */
  missedHeartbeats?: number;
}

export interface RelayClientStats {
  connects: number;
  points: number;
  experiences: number;
  /** Batches dropped because their cursor was not past the one already held (should stay 0). */
  staleBatches: number;
}

export interface RelayClientEvents {
  hello: [HelloMessage];
  sources: [SourceInfo[]];
  points: [PointsBatch];
  experiences: [ExperiencesMessage];
  /** The envelope of one tag of a source read from its beginning (its live points follow). */
  envelope: [EnvelopeBatch];
  /** The relay's heartbeat; `caughtUp` says its backlog has drained. */
  heartbeat: [HeartbeatMessage];
  state: [StateChange];
  error: [RelayClientError];
}

const HTTP_REFUSALS = new Set([400, 401, 403]);

export class RelayClient extends EventEmitter<RelayClientEvents> {
  /** The current connection; undefined between connections and once closed. */
  private ws: WebSocket | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly cursorMap = new Map<string, Cursor>();
  private readonly sourceMap = new Map<string, SourceInfo>();
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatMs = 10_000;
  private current: RelayClientState = 'idle';
  private stopped = false;
  private readonly experienceReads = new PendingRequests<ExperienceDetail>();
  private readonly detailReads = new PendingRequests<DetailMessage>();
  private readonly tokenReads = new PendingRequests<TokensReply>();
  private readonly timelineReads = new PendingRequests<Obj | undefined>();
  private readonly taskReads = new PendingRequests<TaskTableWire>();
  readonly stats: RelayClientStats = { connects: 0, points: 0, experiences: 0, staleBatches: 0 };

  constructor(private readonly opts: RelayClientOptions) {
    super();
    for (const c of opts.cursors ?? []) this.cursorMap.set(c.source, { ...c });
  }

  get state(): RelayClientState {
    return this.current;
  }

  /** The cursor of every source seen so far (save these to resume later). */
  cursors(): Cursor[] {
    return [...this.cursorMap.values()].map((c) => ({ ...c }));
  }

  /** Sources announced by the relay (hello + later `sources`). */
  sources(): SourceInfo[] {
    return [...this.sourceMap.values()];
  }

  start(): void {
    if (this.stopped || this.ws) return;
    this.connect();
  }

  /** Reads one experience row's content (messages…) from an SQL source of the relay. */
  requestExperience(source: string, id: number, timeoutMs = 15_000): Promise<ExperienceDetail> {
    return this.ask(this.experienceReads, (request) => ({ type: 'experience', request, source, id }), timeoutMs);
  }

  /** One experience's tokens (typed arrays) from an SQL or JSON-lines experience source of the relay. */
  requestTokens(source: string, id: number, timeoutMs = 30_000): Promise<TokensReply> {
    return this.ask(this.tokenReads, (request) => ({ type: 'tokens', request, source, id }), timeoutMs);
  }

  /** An experience source's table of tasks × model versions, folded by the relay and brought up to date at each ask. */
  requestTasks(source: string, timeoutMs = 120_000): Promise<TaskTableWire> {
    return this.ask(this.taskReads, (request) => ({ type: 'tasks', request, source }), timeoutMs);
  }

  /** The points of one tag in steps [from, to] that an envelope summarized (or a finer envelope of them). */
  requestDetail(q: Omit<DetailRequestMessage, 'type' | 'request'>, timeoutMs = 30_000): Promise<DetailMessage> {
    return this.ask(this.detailReads, (request) => ({ type: 'detail', request, ...q }), timeoutMs);
  }

  /** A window of the run's Ray timeline (µs since its first event); resolves undefined when the run has none. */
  requestTimeline(q: Omit<TimelineRequestMessage, 'type' | 'request'>, timeoutMs = 60_000): Promise<Obj | undefined> {
    return this.ask(this.timelineReads, (request) => ({ type: 'timeline', request, ...q }), timeoutMs);
  }

  private ask<T>(reads: PendingRequests<T>, msg: (request: number) => ClientMessage, timeoutMs: number): Promise<T> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || this.current !== 'open') return Promise.reject(new Error('not connected to the relay'));
    const send = (request: number) => {
      const text = JSON.stringify(msg(request));
      // A request the relay would refuse is refused here: the relay's protocol error names no
      // request, so the caller would wait out its whole timeout.
      try {
        parseClientMessage(text);
      } catch (e) {
        throw new Error(`a request the relay would refuse: ${(e as Error).message}`, { cause: e });
      }
      ws.send(text);
    };
    return reads.ask(send, timeoutMs, new Error(`the relay did not answer within ${timeoutMs / 1000} s`));
  }

  private failReads(why: string): void {
    this.detailReads.settleAll(new Error(why));
    this.experienceReads.settleAll(new Error(why));
    this.tokenReads.settleAll(new Error(why));
    this.timelineReads.settleAll(new Error(why));
    this.taskReads.settleAll(new Error(why));
  }

  /** Closes the connection and stops reconnecting; resolves when the socket is closed. */
  close(): Promise<void> {
    this.stopped = true;
    this.failReads('client closed');
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.disarmIdle();
    const ws = this.ws;
    this.ws = undefined;
    this.setState({ state: 'closed', attempt: this.attempt });
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      ws.once('close', () => resolve());
      ws.terminate();
    });
  }

  private setState(s: StateChange): void {
    this.current = s.state;
    this.emit('state', s);
  }

  private fail(e: RelayClientError): void {
    if (this.listenerCount('error') > 0) this.emit('error', e);
  }

  private connect(): void {
    this.setState({ state: 'connecting', attempt: this.attempt });
    const { url, token, ca } = this.opts;
    const ws = new WebSocket(url, RELAY_SUBPROTOCOL, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ca,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      maxPayload: 512 * 1024 * 1024,
    });
    this.ws = ws;
    /** The relay refused this client for good (auth): no retry. */
    let refused = false;
    const mine = () => this.ws === ws; // a socket close() ended is no longer this.ws: nothing to do
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8').slice(0, 500)));
      res.on('end', () => {
        const message = `relay refused the connection: HTTP ${status} ${body.trim()}`;
        refused = HTTP_REFUSALS.has(status);
        this.fail({ kind: refused ? 'auth' : 'connection', message, status });
        ws.terminate();
      });
      res.on('error', () => ws.terminate());
    });
    ws.on('open', () => {
      if (!mine()) return;
      this.stats.connects++;
      this.armIdle();
    });
    ws.on('message', (data, isBinary) => {
      if (!mine()) return;
      this.armIdle();
      let msg: RelayMessage;
      try {
        msg = readFrame(data as Buffer, isBinary);
      } catch (e) {
        this.fail({ kind: 'protocol', message: `bad frame from relay: ${(e as Error).message}` });
        ws.terminate();
        return;
      }
      this.handle(ws, msg);
    });
    ws.on('error', (e) => this.fail({ kind: 'connection', message: e.message }));
    ws.on('close', (code, reason) => {
      if (!mine()) return;
      this.disarmIdle();
      this.ws = undefined;
      this.failReads('connection to the relay closed');
      if (this.stopped) return;
      const why = `${code}${reason.length ? ` ${reason.toString()}` : ''}`;
      if (refused) {
        this.stopped = true;
        this.setState({ state: 'closed', attempt: this.attempt, reason: why });
        return;
      }
      this.scheduleReconnect(why);
    });
  }

  /** (Re)starts the silence watchdog, e.g. once the relay said its heartbeat period. */
  private armIdle(): void {
    this.disarmIdle();
    const ws = this.ws;
    const limit = this.heartbeatMs * (this.opts.missedHeartbeats ?? 3);
    this.idleTimer = setTimeout(() => {
      this.fail({ kind: 'connection', message: `no data or heartbeat for ${limit} ms` });
      ws?.terminate();
    }, limit);
    this.idleTimer.unref?.();
  }

  private disarmIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private scheduleReconnect(reason: string): void {
    const b = this.opts.backoff ?? {};
    const initial = b.initialMs ?? 250;
    const max = b.maxMs ?? 15_000;
    const factor = b.factor ?? 2;
    const jitter = b.jitter ?? 0.3;
    const base = Math.min(max, initial * factor ** this.attempt);
    const delayMs = Math.round(base * (1 - jitter * Math.random()));
    this.attempt++;
    this.setState({ state: 'backoff', attempt: this.attempt, delayMs, reason });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) this.connect();
    }, delayMs);
  }

  private handle(ws: WebSocket, msg: RelayMessage): void {
    switch (msg.type) {
      case 'hello': {
        if (msg.protocol !== RELAY_PROTOCOL_VERSION) {
          this.fail({ kind: 'protocol', message: `relay speaks protocol ${msg.protocol}, this client ${RELAY_PROTOCOL_VERSION}` });
        }
        this.heartbeatMs = msg.heartbeatSeconds * 1000;
        this.armIdle();
        for (const s of msg.sources) this.sourceMap.set(s.id, s);
        this.attempt = 0;
        const subscribe: ClientMessage = {
          type: 'subscribe',
          protocol: RELAY_PROTOCOL_VERSION,
          runs: this.opts.runs,
          cursors: this.cursors(),
          experiences: this.opts.experiences ?? true,
          ...(this.opts.envelope ? { envelope: this.opts.envelope } : {}),
        };
        ws.send(JSON.stringify(subscribe));
        this.setState({ state: 'open', attempt: 0 });
        this.emit('hello', msg);
        return;
      }
      case 'sources':
        for (const s of msg.sources) this.sourceMap.set(s.id, s);
        this.emit('sources', msg.sources);
        return;
      case 'points': {
        if (!this.advance(msg.cursor)) return;
        this.stats.points += pointCount(msg);
        this.emit('points', msg);
        return;
      }
      case 'experiences':
        if (!this.advance(msg.cursor)) return;
        this.stats.experiences += msg.rows.length;
        this.emit('experiences', msg);
        return;
      case 'experience-detail':
        return this.experienceReads.settle(msg.request, msg.detail ?? new Error(msg.error ?? 'no detail'));
      case 'envelope': {
        // Every tag's envelope of a source carries the same cursor: an equal one is not stale.
        const held = this.cursorMap.get(msg.source);
        if (held && held.fid === msg.cursor.fid && msg.cursor.offset < held.offset) return;
        this.cursorMap.set(msg.source, { ...msg.cursor });
        return void this.emit('envelope', msg);
      }
      case 'tokens':
        return this.tokenReads.settle(msg.request, 'error' in msg ? new Error(msg.error) : msg);
      case 'detail':
        return this.detailReads.settle(msg.request, msg.error !== undefined ? new Error(msg.error) : msg);
      case 'timeline':
        return this.timelineReads.settle(msg.request, msg.error !== undefined ? new Error(msg.error) : msg.window);
      case 'tasks':
        return this.taskReads.settle(msg.request, msg.table ?? new Error(msg.error ?? 'no table'));
      case 'heartbeat':
        this.emit('heartbeat', msg);
        return;
      case 'error':
        this.fail({ kind: 'protocol', message: `relay: ${msg.code}: ${msg.message}${msg.source ? ` (${msg.source})` : ''}` });
        return;
    }
  }

  /** Records a batch's cursor; false when the batch is not past what we already hold. */
  private advance(c: Cursor): boolean {
    const held = this.cursorMap.get(c.source);
    if (held && held.fid === c.fid && c.offset <= held.offset) {
      this.stats.staleBatches++;
      return false;
    }
    this.cursorMap.set(c.source, { ...c });
    return true;
  }
}
