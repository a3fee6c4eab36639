// Client of `agentrl relay` (no vscode import): used by `agentrl tail` and by the extension's
// metrics view. Connects (one RelayLink per connection, relay-link.ts), subscribes with its
// cursors (asking for binary points and envelope frames), hands on each points batch as typed columns
// grouped by tag (no per-point objects), and on any disconnect reconnects with exponential
// backoff + jitter, resuming from the cursor of the last batch it delivered — so its listeners
// see every point exactly once.
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
import { RelayClientError, RelayLink, RelayMessage } from './link';
import type { Cursor, ExperienceDetail, ExperiencesMessage, HeartbeatMessage, HelloMessage, PointsBatch, SourceInfo } from './messages';
import { RELAY_PROTOCOL_VERSION } from './messages';
import { pointCount } from './points-frame';
import type { DetailMessage, DetailRequestMessage, EnvelopeRequest } from './envelope';
import type { EnvelopeBatch } from './envelope-frame';
import { PendingRequests } from '../base/pending-requests';

export type { RelayClientError } from './link';
/** A points batch as the client hands it on (its cursor already recorded by the client). */
export type { PointsBatch, TagPoints } from './messages';

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
  /** Ask for binary points and envelope frames (default true; false: JSON, as older clients get). */
  binary?: boolean;
  /** Where to resume (e.g. cursors saved from a previous session). */
  cursors?: Cursor[];
  /** Ask for envelope-first opening of event files (relay-envelope.ts); older relays stream every point. */
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

export class RelayClient extends EventEmitter<RelayClientEvents> {
  private link: RelayLink | undefined;
  private readonly cursorMap = new Map<string, Cursor>();
  private readonly sourceMap = new Map<string, SourceInfo>();
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatMs = 10_000;
  private current: RelayClientState = 'idle';
  private stopped = false;
  private readonly pending = new PendingRequests<ExperienceDetail>();
  private readonly details = new PendingRequests<DetailMessage>();
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
    if (this.stopped || this.link) return;
    this.connect();
  }

  /** Reads one experience row's content (messages…) from an SQL source of the relay. */
  requestExperience(source: string, id: number, timeoutMs = 15_000): Promise<ExperienceDetail> {
    const link = this.link;
    if (!link || !link.open || this.current !== 'open') return Promise.reject(new Error('not connected to the relay'));
    const late = `the relay did not answer within ${timeoutMs / 1000} s (an older relay cannot read experiences)`;
    return this.pending.ask((request) => link.send({ type: 'experience', request, source, id }), timeoutMs, late);
  }

  /** The points of one tag in steps [from, to] that an envelope summarized (or a finer envelope of them). */
  requestDetail(q: Omit<DetailRequestMessage, 'type' | 'request'>, timeoutMs = 30_000): Promise<DetailMessage> {
    const link = this.link;
    if (!link || !link.open || this.current !== 'open') return Promise.reject(new Error('not connected to the relay'));
    return this.details.ask((request) => link.send({ type: 'detail', request, ...q }), timeoutMs, `the relay did not answer within ${timeoutMs / 1000} s`);
  }

  private failPending(why: string): void {
    this.details.failAll(why);
    this.pending.failAll(why);
  }

  /** Closes the connection and stops reconnecting. */
  close(): Promise<void> {
    this.stopped = true;
    this.failPending('client closed');
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const link = this.link;
    this.link = undefined;
    this.setState({ state: 'closed', attempt: this.attempt });
    return link ? link.close() : Promise.resolve();
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
    const idleMs = () => this.heartbeatMs * (this.opts.missedHeartbeats ?? 3);
    const link: RelayLink = new RelayLink(
      { url, token, ca, idleMs },
      {
        open: () => this.stats.connects++,
        message: (msg) => this.handle(link, msg),
        error: (e) => this.fail(e),
        close: (why, refused) => {
          // A link close() ended is no longer this.link: nothing to do.
          if (this.link !== link) return;
          this.failPending('connection to the relay closed');
          this.link = undefined;
          if (this.stopped) return;
          if (refused) {
            this.stopped = true;
            this.setState({ state: 'closed', attempt: this.attempt, reason: why });
            return;
          }
          this.scheduleReconnect(why);
        },
      },
    );
    this.link = link;
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

  private handle(link: RelayLink, msg: RelayMessage): void {
    switch (msg.type) {
      case 'hello': {
        if (msg.protocol !== RELAY_PROTOCOL_VERSION) {
          this.fail({ kind: 'protocol', message: `relay speaks protocol ${msg.protocol}, this client ${RELAY_PROTOCOL_VERSION}` });
        }
        this.heartbeatMs = msg.heartbeatSeconds * 1000;
        link.armIdle();
        for (const s of msg.sources) this.sourceMap.set(s.id, s);
        this.attempt = 0;
        link.send({
          type: 'subscribe',
          protocol: RELAY_PROTOCOL_VERSION,
          runs: this.opts.runs,
          cursors: this.cursors(),
          experiences: this.opts.experiences ?? true,
          binary: this.opts.binary === false ? undefined : ['points', 'envelope'],
          ...(this.opts.envelope ? { envelope: this.opts.envelope } : {}),
        });
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
        return this.pending.settle(msg.request, msg.detail ? undefined : (msg.error ?? 'no detail'), msg.detail ?? {});
      case 'envelope': {
        // Every tag's envelope of a source carries the same cursor: an equal one is not stale.
        const held = this.cursorMap.get(msg.source);
        if (held && held.fid === msg.cursor.fid && msg.cursor.offset < held.offset) return;
        this.cursorMap.set(msg.source, { ...msg.cursor });
        return void this.emit('envelope', msg);
      }
      case 'detail':
        return this.details.settle(msg.request, msg.error, msg);
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
