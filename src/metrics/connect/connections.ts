// The extension's connections to relays (never from the webview): the endpoint-state layer
// between the relay client (socket + protocol, src/relay-protocol/client.ts) and the store.
// One RelayClient per endpoint, resumed from the cursors the store saved with its points, so a
// reconnect, a relay restart or a window reload delivers every point exactly once. For a local
// job dir / logdir the relay is started here (local-relay.ts) and restarted with backoff +
// jitter if it dies. Each endpoint's state (connecting / backfilling / live / stale / error) is
// what the view and the status bar show; its data and state changes are events
// (ConnectionsEvents) the metrics host hands to the view controller. Pure (no vscode import).
import type { TaskTableWire } from '../../relay-protocol/tasks';
import { EventEmitter } from 'node:events';
import type { Cursor, ExperienceDetail, ExperiencesMessage, SourceInfo, TimelineRequestMessage } from '../../relay-protocol/messages';
import type { Obj } from '../../base/validate';
import { RelayClient, type PointsBatch, type RelayClientOptions, type StateChange } from '../../relay-protocol/client';
import type { Logger } from '../../base/log';
import { pointCount } from '../../relay-protocol/points-frame';
import type { EndpointState, EndpointStatus } from '../protocol/view-protocol';
import type { LocalRelay, LocalRelaySpec, RelayLauncher } from './local-relay';
import type { DetailMessage, DetailRequestMessage, EnvelopeRequest } from '../../relay-protocol/envelope';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import type { TokensReply } from '../../relay-protocol/tokens-frame';
import type { Revive } from '../../feature-api/commands';
import { finishedAt } from './run-finished';

/**
 * Envelope buckets a client asks per tag (RelayClientOptions.envelope). The relay
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
  /** How the relay is brought back when it is gone (its Ray relay job started again, once it
   *  ended itself idle): see ConnectionsEvents.gone. */
  revive?: Revive;
}

/** Failed connects in a row, without one success since the endpoint started, after which its
 *  relay counts as gone (a refused port: a relay that ended, not one still starting). */
export const GONE_AFTER_FAILURES = 3;

/** HH:MM:SS of `d`, local time: when a run finished. */
const clockTime = (d: Date): string => [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');

/** Makes the client of an endpoint (tests: other backoff, or a listener of their own). */
type ClientFactory = (o: RelayClientOptions) => RelayClient;

/** What the connections tell: an endpoint's data, in the order it came, and its state changes. */
interface ConnectionsEvents {
  points: [endpoint: string, batch: PointsBatch];
  experiences: [endpoint: string, message: ExperiencesMessage];
  /** A tag's envelope (clients ask for them with ConnectionsOptions.envelope). */
  envelope: [endpoint: string, batch: EnvelopeBatch];
  /** Some endpoint's status changed. */
  changed: [];
  /**
   * An endpoint with `revive` never connected and failed GONE_AFTER_FAILURES times in a row:
   * its relay is gone. Told once per endpoint (the revived relay comes as a new endpoint).
   */
  gone: [spec: EndpointSpec];
}

export interface ConnectionTiming {
  /** Local relay restart backoff. */
  restartInitialMs: number;
  restartMaxMs: number;
  /** RelayClient backoff. */
  backoff?: RelayClientOptions['backoff'];
  missedHeartbeats?: number;
}

export const DEFAULT_TIMING: ConnectionTiming = { restartInitialMs: 500, restartMaxMs: 15_000 };

interface ConnectionsOptions {
  timing?: ConnectionTiming;
  /** Localized "retrying in N s". */
  retryText?: (ms: number) => string;
  /** Envelope-first opening of big event files (asked of every relay). */
  envelope?: EnvelopeRequest;
  client?: ClientFactory;
}

function noteExplorers(into: Map<string, string>, sources: SourceInfo[], run: string | undefined): void {
  for (const src of sources) if (src.kind === 'serve' && src.endpoint) into.set(src.endpoint, run ?? src.run);
}

/** One endpoint: its client (and local relay), its state, and what it has delivered. */
class Endpoint {
  state: EndpointState = 'connecting';
  detail: string | undefined;
  runs = new Set<string>();
  points = 0;
  client: RelayClient | undefined;
  private relay: LocalRelay | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private restarts = 0;
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
    return {
      id,
      name,
      target: url ?? local?.dir ?? '',
      kind: local ? 'local' : 'url',
      state: this.state,
      detail: this.detail,
      runs: [...this.runs].sort(),
      points: this.points,
    };
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
    this.m.emit('changed');
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
    const { id, run } = this.spec;
    const client = this.m.client({
      url,
      token,
      ca: this.spec.local ? undefined : this.spec.ca,
      cursors: this.m.cursors(id),
      backoff: this.m.timing.backoff,
      missedHeartbeats: this.m.timing.missedHeartbeats,
      envelope: this.m.envelope,
    });
    this.client = client;
    const current = () => this.client === client;
    client.on('hello', (h) => {
      for (const r of h.runs) this.runs.add(run ?? r);
      noteExplorers(this.explorers, h.sources, run);
    });
    client.on('sources', (list) => noteExplorers(this.explorers, list, run));
    client.on('state', (s) => current() && this.onState(s));
    client.on('error', (e) => {
      // An auth refusal is the reason; the socket errors that follow it are noise.
      if (e.kind === 'auth') this.authError = e.message;
      this.lastError = e.message;
      if (e.kind === 'auth') this.m.log.error(`metrics: ${this.spec.name}: ${e.message}`);
      else this.m.log.debug(`metrics: ${this.spec.name}: ${e.kind}: ${e.message}`);
      if (e.kind === 'protocol') this.m.log.warn(`metrics: ${this.spec.name}: ${e.message}`);
    });
    client.on('points', (b) => {
      if (!current()) return;
      if (run) b = { ...b, run }; // once per batch: the columns are shared
      this.runs.add(b.run);
      this.points += pointCount(b);
      this.m.emit('points', id, b);
    });
    client.on('experiences', (msg) => {
      if (!current()) return;
      this.m.emit('experiences', id, run ? { ...msg, run } : msg);
    });
    client.on('envelope', (m) => {
      if (!current()) return;
      if (run) m = { ...m, run };
      this.runs.add(m.run);
      this.points += m.points;
      this.m.emit('envelope', id, m);
    });
    // The relay says its backlog is gone: live, however busy the stream stays — or finished, when
    // the job dir's logs say the run ended (its files stay, nothing new will come).
    client.on('heartbeat', (msg) => {
      if (!current() || !msg.caughtUp) return;
      const done = this.spec.local?.mode === 'job' ? finishedAt(this.spec.local.dir) : undefined;
      if (done) this.set('finished', clockTime(done));
      else if (this.state === 'backfilling' || this.state === 'finished') this.set('live');
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
        return;
      case 'backoff':
        if (!this.connectedOnce && ++this.failures === GONE_AFTER_FAILURES && this.spec.revive) {
          this.m.log.info(
            `metrics: ${this.spec.name}: no relay at ${this.spec.url ?? ''} after ${this.failures} attempts; bringing it back (${this.spec.revive.command})`,
          );
          this.m.emit('gone', this.spec);
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

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const c = this.client;
    this.client = undefined;
    const r = this.relay;
    this.relay = undefined;
    await Promise.all([c?.close(), r?.stop()]);
  }
}

export class Connections extends EventEmitter<ConnectionsEvents> {
  private readonly endpoints = new Map<string, Endpoint>();
  readonly timing: ConnectionTiming;
  readonly retryText: (ms: number) => string;
  readonly envelope: EnvelopeRequest | undefined;
  readonly client: ClientFactory;

  constructor(
    /** Starts the relay of a local job dir or logdir. */
    readonly launcher: RelayLauncher,
    /** Where each endpoint resumes: the cursors the store saved with its points. */
    readonly cursors: (endpoint: string) => Cursor[],
    readonly log: Logger,
    o: ConnectionsOptions = {},
  ) {
    super();
    this.timing = o.timing ?? DEFAULT_TIMING;
    this.retryText = o.retryText ?? ((ms) => `retrying in ${(ms / 1000).toFixed(1)} s`);
    this.envelope = o.envelope;
    this.client = o.client ?? ((opts) => new RelayClient(opts));
  }

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
    this.emit('changed');
  }

  /** The serve-mode explorers the connected relays poll, with the run and connection. */
  explorers(): { url: string; run: string; endpoint: string }[] {
    return [...this.endpoints.values()].flatMap((e) => [...e.explorers].map(([url, run]) => ({ url, run, endpoint: e.spec.name })));
  }

  statuses(): EndpointStatus[] {
    return [...this.endpoints.values()].map((e) => e.status());
  }

  /** One experience's content through an endpoint's relay. */
  requestExperience(endpoint: string, source: string, id: number): Promise<ExperienceDetail> {
    return this.connected(endpoint)?.requestExperience(source, id) ?? Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** One experience's tokens (typed arrays) through an endpoint's relay. */
  requestTokens(endpoint: string, source: string, id: number): Promise<TokensReply> {
    return this.connected(endpoint)?.requestTokens(source, id) ?? Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** An experience source's tasks table through an endpoint's relay (folded there: tasks × versions, not the rows). */
  requestTasks(endpoint: string, source: string): Promise<TaskTableWire> {
    return this.connected(endpoint)?.requestTasks(source) ?? Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** The experience sources (SQL tables, JSON-lines buffers) of the connected relays; `table` is the SQL table or the file's name. */
  experienceSources(): { endpoint: string; source: string; run: string; table: string }[] {
    return [...this.endpoints.values()].flatMap((e) =>
      (e.client?.sources() ?? [])
        .filter((s) => s.kind === 'sql' || s.kind === 'jsonl')
        .map((s) => ({ endpoint: e.spec.id, source: s.id, run: e.spec.run ?? s.run, table: s.role })),
    );
  }

  /** The directory an endpoint's relay reads when the extension started it (undefined for a relay URL). */
  localDir(endpoint: string): string | undefined {
    return this.endpoints.get(endpoint)?.spec.local?.dir;
  }

  /** Where an endpoint reads its run: the relay URL (and its token) or the local directory. */
  source(endpoint: string): { url?: string; token?: string; dir?: string } | undefined {
    const spec = this.endpoints.get(endpoint)?.spec;
    return spec && { url: spec.url, token: spec.token, dir: spec.local?.dir };
  }

  /** Exact points of an envelope-first source through an endpoint's relay. */
  requestDetail(endpoint: string, q: DetailQuery): Promise<DetailMessage> {
    return this.connected(endpoint)?.requestDetail(q) ?? Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  /** A window of a run's Ray timeline through an endpoint's relay (undefined: the run has none). */
  requestTimeline(endpoint: string, q: Omit<TimelineRequestMessage, 'type' | 'request'>): Promise<Obj | undefined> {
    return this.connected(endpoint)?.requestTimeline(q) ?? Promise.reject(new Error(`endpoint ${endpoint} is not connected`));
  }

  private connected(endpoint: string): RelayClient | undefined {
    return this.endpoints.get(endpoint)?.client;
  }

  relayPid(id: string): number | undefined {
    return this.endpoints.get(id)?.relayPid;
  }

  async dispose(): Promise<void> {
    await this.set([]);
  }
}
