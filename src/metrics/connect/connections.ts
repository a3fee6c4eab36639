// The extension's connections to relays (never from the webview): one RelayClient per
// endpoint, resumed from the cursors the store saved with its points, so a reconnect, a
// relay restart or a window reload delivers every point exactly once. For a local job dir /
// logdir the relay is started here (local-relay.ts) and restarted with backoff + jitter if
// it dies. Each endpoint's state (connecting / backfilling / live / stale / error) is what
// the view and the status bar show. Pure (no vscode import).
import type { Cursor, ExperienceDetail, ExperiencesMessage, HeartbeatMessage, HelloMessage, SourceInfo } from '../../relay-protocol/messages';
import type { PointsBatch, RelayClientError, RelayClientOptions, StateChange } from '../../relay-protocol/client';
import type { Logger } from '../../base/log';
import { pointCount } from '../../relay-protocol/points-frame';
import type { EndpointState, EndpointStatus } from '../protocol/view-protocol';
import type { LocalRelay, LocalRelaySpec, RelayLauncher } from './local-relay';
import type { DetailMessage, DetailRequestMessage } from '../../relay-protocol/envelope';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import type { Revive } from '../../feature-api/commands';

/**
 * Envelope buckets a client asks per tag (RelayClientOptions.envelope, issue 16 §4). The relay
 * fills between half and all of them (power-of-two widths), so 1024 is at least as fine as the
 * grid of a plot up to ~1000 px wide (downsample.ts); a wider zoom asks for detail.
 */
export const ENVELOPE_BUCKETS = 1024;
/**
 * Event files below this size stream every point instead (≈ 300 k scalars: under a second
 * through binary frames), so ordinary runs stay whole in the store; bigger ones open by
 * their envelope.
 */
export const ENVELOPE_MIN_BYTES = 16 * 1024 * 1024;
type DetailQuery = Omit<DetailRequestMessage, 'type' | 'request'>;

export interface EndpointSpec {
  /** Stable id (cursors are saved under it). */
  id: string;
  name: string;
  /** ws:// URL (kind url) … */
  url?: string;
  token?: string;
  /** PEM CA certificate(s) to trust for a wss:// relay with its own (self-signed) certificate. */
  ca?: string;
  /** … or a local directory the extension starts a relay for. */
  local?: LocalRelaySpec;
  /** Merge this endpoint's streams into this run name (several nodes of one job). */
  run?: string;
  /** A command that brings the relay back when it is gone (e.g. starts its Ray relay job
   *  again, which ended itself once idle): see ConnectionSink.gone. */
  revive?: Revive;
}

/** Failed connects in a row, without one success since the endpoint started, after which its
 *  relay counts as gone (a refused port: a relay that ended, not one still starting). */
export const GONE_AFTER_FAILURES = 3;

/** What the connections need of a RelayClient (src/shared/relay-client.ts). */
export interface RelayClientLike {
  on(event: 'hello', l: (h: HelloMessage) => void): unknown;
  on(event: 'sources', l: (s: SourceInfo[]) => void): unknown;
  on(event: 'points', l: (b: PointsBatch) => void): unknown;
  on(event: 'experiences', l: (m: ExperiencesMessage) => void): unknown;
  on(event: 'heartbeat', l: (m: HeartbeatMessage) => void): unknown;
  on(event: 'state', l: (s: StateChange) => void): unknown;
  on(event: 'error', l: (e: RelayClientError) => void): unknown;
  start(): void;
  close(): Promise<void>;
  requestExperience(source: string, id: number, timeoutMs?: number): Promise<ExperienceDetail>;
  on(event: 'envelope', l: (m: EnvelopeBatch) => void): unknown;
  requestDetail?(q: DetailQuery): Promise<DetailMessage>;
}
export type ClientFactory = (o: RelayClientOptions) => RelayClientLike;

export interface ConnectionSink {
  points(endpoint: string, b: PointsBatch): void;
  experiences(endpoint: string, m: ExperiencesMessage): void;
  /** A tag's envelope (from clients the factory made with the `envelope` option). */
  envelope?(endpoint: string, m: EnvelopeBatch): void;
  /** Cursors to resume an endpoint from. */
  cursors(endpoint: string): Cursor[];
  /** Some endpoint's status changed. */
  changed(): void;
  /**
   * An endpoint with `revive` never connected and failed GONE_AFTER_FAILURES times in a row:
   * its relay is gone. Told once per endpoint (the revived relay comes as a new endpoint).
   */
  gone?(spec: EndpointSpec): void;
}

export interface ConnectionTiming {
  /** No batch for this long after a (re)connect: the backfill is over (live). */
  quietMs: number;
  /** Local relay restart backoff. */
  restartInitialMs: number;
  restartMaxMs: number;
  /** RelayClient backoff. */
  backoff?: RelayClientOptions['backoff'];
  missedHeartbeats?: number;
}

export const DEFAULT_TIMING: ConnectionTiming = { quietMs: 750, restartInitialMs: 500, restartMaxMs: 15_000 };

function noteExplorers(into: Map<string, string>, sources: SourceInfo[], run: string | undefined): void {
  for (const src of sources) if (src.kind === 'serve' && src.endpoint) into.set(src.endpoint, run ?? src.run);
}

class Endpoint {
  state: EndpointState = 'connecting';
  detail: string | undefined;
  runs = new Set<string>();
  points = 0;
  client: RelayClientLike | undefined;
  private relay: LocalRelay | undefined;
  private quiet: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private restarts = 0;
  /** This relay reports caughtUp (so silence is not needed to call it live). */
  private caughtUpSeen = false;
  private connectedOnce = false;
  private disposed = false;
  private lastError: string | undefined;
  private authError: string | undefined;
  /** Failed connects in a row (counted until the first success). */
  private failures = 0;

  constructor(
    readonly spec: EndpointSpec,
    private readonly m: Connections,
  ) {}

  /** Serve-mode explorers this relay polls: URL → run (for "Connect to Online Explorer"). */
  readonly explorers = new Map<string, string>();

  status(): EndpointStatus {
    const { id, name, url, local } = this.spec;
    return { id, name, target: url ?? local?.dir ?? '', kind: local ? 'local' : 'url', state: this.state, detail: this.detail, runs: [...this.runs].sort(), points: this.points };
  }

  /** One experience's content through this endpoint's relay. */
  requestExperience(source: string, id: number): Promise<ExperienceDetail> {
    if (!this.client) return Promise.reject(new Error(`${this.spec.name} is not connected`));
    return this.client.requestExperience(source, id);
  }

  /** The local relay's process id (tests kill it to check recovery). */
  get relayPid(): number | undefined {
    return this.relay?.pid;
  }

  start(): void {
    if (this.spec.local) void this.startLocal();
    else this.connect(this.spec.url!, this.spec.token);
  }

  private set(state: EndpointState, detail?: string): void {
    if (this.disposed) return;
    if (state === this.state && detail === this.detail) return;
    this.state = state;
    this.detail = detail;
    this.m.sink.changed();
  }

  private async startLocal(): Promise<void> {
    this.set(this.restarts ? 'stale' : 'connecting', this.restarts ? this.detail : undefined);
    let relay: LocalRelay;
    try {
      relay = await this.m.launcher(this.spec.local!);
    } catch (e) {
      if (this.disposed) return;
      this.m.log.warn(`metrics: ${this.spec.name}: ${(e as Error).message}`);
      this.scheduleRestart(`${(e as Error).message}`, true);
      return;
    }
    if (this.disposed) {
      await relay.stop();
      return;
    }
    this.relay = relay;
    relay.onExit((code, signal, stderr) => {
      if (this.disposed || this.relay !== relay) return;
      this.relay = undefined;
      const old = this.client;
      this.client = undefined;
      void old?.close();
      this.scheduleRestart(`relay exited (${code ?? signal})${stderr ? `: ${stderr}` : ''}`, false);
    });
    this.connect(relay.url, relay.token);
  }

  private scheduleRestart(why: string, failedToStart: boolean): void {
    const t = this.m.timing;
    const base = Math.min(t.restartMaxMs, t.restartInitialMs * 2 ** this.restarts);
    const delay = Math.round(base * (1 - 0.3 * Math.random()));
    this.restarts++;
    // A relay that never started (bad directory, missing CLI) keeps retrying, but says error.
    this.set(failedToStart && !this.connectedOnce ? 'error' : 'stale', `${why}; ${this.m.retryText(delay)}`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.disposed) void this.startLocal();
    }, delay);
  }

  private connect(url: string, token: string | undefined): void {
    const client = this.m.open(this, {
      url,
      token,
      ca: this.spec.local ? undefined : this.spec.ca,
      cursors: this.m.sink.cursors(this.spec.id),
      backoff: this.m.timing.backoff,
      missedHeartbeats: this.m.timing.missedHeartbeats,
    });
    this.client = client;
    client.on('hello', (h) => {
      for (const r of h.runs) this.runs.add(this.spec.run ?? r);
      noteExplorers(this.explorers, h.sources, this.spec.run);
    });
    client.on('sources', (list) => noteExplorers(this.explorers, list, this.spec.run));
    client.on('state', (s) => this.client === client && this.onState(s));
    client.on('error', (e) => {
      // An auth refusal is the reason; the socket errors that follow it are noise.
      if (e.kind === 'auth') this.authError = e.message;
      this.lastError = e.message;
      if (e.kind === 'auth') this.m.log.error(`metrics: ${this.spec.name}: ${e.message}`);
      else this.m.log.debug(`metrics: ${this.spec.name}: ${e.kind}: ${e.message}`);
      if (e.kind === 'protocol') this.m.log.warn(`metrics: ${this.spec.name}: ${e.message}`);
    });
    client.on('points', (b) => {
      if (this.client !== client) return;
      if (this.spec.run) b = { ...b, run: this.spec.run }; // once per batch: the columns are shared
      this.runs.add(b.run);
      this.points += pointCount(b);
      this.m.sink.points(this.spec.id, b);
      this.busy();
    });
    client.on('experiences', (msg) => {
      if (this.client !== client) return;
      this.m.sink.experiences(this.spec.id, this.spec.run ? { ...msg, run: this.spec.run } : msg);
      this.busy();
    });
    client.on('heartbeat', (msg) => {
      if (this.client !== client) return;
      // The relay says its backlog is gone: live, however busy the stream stays.
      if (msg.caughtUp === true) {
        this.caughtUpSeen = true;
        if (this.quiet) clearTimeout(this.quiet);
        this.quiet = undefined;
        if (this.state === 'backfilling') this.set('live');
      }
    });
    client.start();
  }

  private onState(s: StateChange): void {
    switch (s.state) {
      case 'connecting':
        if (!this.connectedOnce && this.state !== 'stale') this.set('connecting');
        return;
      case 'open':
        this.connectedOnce = true;
        this.restarts = 0;
        this.lastError = undefined;
        this.set('backfilling');
        this.busy();
        return;
      case 'backoff':
        if (!this.connectedOnce && ++this.failures === GONE_AFTER_FAILURES && this.spec.revive) {
          this.m.log.info(`metrics: ${this.spec.name}: no relay at ${this.spec.url ?? ''} after ${this.failures} attempts; bringing it back (${this.spec.revive.command})`);
          this.m.sink.gone?.(this.spec);
        }
        this.set('stale', `${this.lastError ?? s.reason ?? ''}; ${this.m.retryText(s.delayMs ?? 0)}`.replace(/^; /, ''));
        return;
      case 'closed':
        // The client stops only when the relay refused it (token, origin): nothing to retry.
        if (!this.disposed) this.set('error', this.authError ?? this.lastError ?? s.reason);
        return;
      default:
        return;
    }
  }

  /**
   * A batch arrived. A relay that reports its backlog (HeartbeatMessage.caughtUp) decides
   * live vs catching up; for an older relay, backfilling lasts until the stream is quiet.
   */
  busy(): void {
    if (this.state !== 'backfilling' || this.caughtUpSeen) return;
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = setTimeout(() => {
      this.quiet = undefined;
      if (this.state === 'backfilling') this.set('live');
    }, this.m.timing.quietMs);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.quiet) clearTimeout(this.quiet);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const c = this.client;
    this.client = undefined;
    const r = this.relay;
    this.relay = undefined;
    await Promise.all([c?.close(), r?.stop()]);
  }
}

export class Connections {
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(
    readonly factory: ClientFactory,
    readonly launcher: RelayLauncher,
    readonly sink: ConnectionSink,
    readonly log: Logger,
    readonly timing: ConnectionTiming = DEFAULT_TIMING,
    /** Localized "retrying in N s". */
    readonly retryText: (ms: number) => string = (ms) => `retrying in ${(ms / 1000).toFixed(1)} s`,
  ) {}

  /** Reconciles the running endpoints with `specs` (same id and spec: left running). */
  async set(specs: EndpointSpec[]): Promise<void> {
    const want = new Map(specs.map((s) => [s.id, s]));
    const stops: Promise<void>[] = [];
    for (const [id, ep] of this.endpoints) {
      const s = want.get(id);
      if (!s || JSON.stringify(s) !== JSON.stringify(ep.spec)) {
        this.endpoints.delete(id);
        stops.push(ep.dispose());
      }
    }
    await Promise.all(stops);
    for (const s of specs) {
      if (this.endpoints.has(s.id)) continue;
      const ep = new Endpoint(s, this);
      this.endpoints.set(s.id, ep);
      ep.start();
    }
    this.sink.changed();
  }

  /** The serve-mode explorers the connected relays poll, with the run and connection. */
  explorers(): { url: string; run: string; endpoint: string }[] {
    return [...this.endpoints.values()].flatMap((e) => [...e.explorers].map(([url, run]) => ({ url, run, endpoint: e.spec.name })));
  }

  statuses(): EndpointStatus[] {
    return [...this.endpoints.values()].map((e) => e.status());
  }

  requestExperience(endpoint: string, source: string, id: number): Promise<ExperienceDetail> {
    const ep = this.endpoints.get(endpoint);
    return ep ? ep.requestExperience(source, id) : Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** Exact points of an envelope-first source through an endpoint's relay. */
  requestDetail(endpoint: string, q: DetailQuery): Promise<DetailMessage> {
    const c = this.endpoints.get(endpoint)?.client;
    return c?.requestDetail ? c.requestDetail(q) : Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** A client for endpoint `ep`; the tag envelopes it may get go to the sink. */
  open(ep: Endpoint, o: RelayClientOptions): RelayClientLike {
    const client = this.factory(o);
    client.on('envelope', (m) => ep.client === client && this.envelope(ep, m));
    return client;
  }

  /** A tag's envelope through endpoint `ep` (a client created with the `envelope` option). */
  private envelope(ep: Endpoint, m: EnvelopeBatch): void {
    if (ep.spec.run) m = { ...m, run: ep.spec.run };
    ep.runs.add(m.run);
    ep.points += m.points;
    this.sink.envelope?.(ep.spec.id, m);
    ep.busy();
  }

  relayPid(id: string): number | undefined {
    return this.endpoints.get(id)?.relayPid;
  }

  async dispose(): Promise<void> {
    await this.set([]);
  }
}
