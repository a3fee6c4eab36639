// `agentrl relay`: the server. Serves authenticated WebSocket clients the sources its catalog
// (sources/catalog.ts) discovers and watches under its root. Read-only: clients can only name
// sources the relay found itself.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import type { Duplex } from 'node:stream';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../base/log';
import type { HelloMessage, SourceInfo } from '../../relay-protocol/messages';
import { MAX_CLIENT_FRAME_BYTES, RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL } from '../../relay-protocol/messages';
import { VERSION } from '../../base/version';
import { checkUpgrade } from './auth';
import { DecodeCache } from './decode-cache';
import { EnvelopeCache } from '../envelope/cache';
import { TaskCache } from './task-cache';
import { ErrorDigest } from './error-digest';
import { IdleClock, idleCheckPeriodMs } from './idle-clock';
import { Session } from './session';
import { TimelineCache, timelineReply } from '../sources/ray-timeline';
import { SourceCatalog } from '../sources/catalog';
import type { RelayRoot } from '../sources/discovery';
import type { Source } from '../sources/source';
import { TokensFrames } from './tokens-frames';

export interface RelayOptions {
  root: RelayRoot;
  host: string;
  port: number;
  token: string | undefined;
  tls?: { cert: Buffer; key: Buffer };
  allowOrigins: string[];
  maxClients: number;
  heartbeatMs: number;
  pollMs: number;
  stallMs: number;
  highWater: number;
  batchBytes: number;
  /** What one client may hold in the relay at most (replies queued, requests waiting, the read under way). */
  maxClientBytes: number;
  /** Memory bound of the decoded batches shared by all sessions (0 = every session decodes alone). */
  decodeCacheBytes: number;
  /** End after this long with no client and no new data (undefined = never), calling `onIdle`. */
  exitWhenIdleMs?: number;
  /** Called once when the relay has been idle for `exitWhenIdleMs`; the owner closes it. */
  onIdle?: () => void;
  log: Logger;
}

export const RELAY_DEFAULTS = {
  host: '127.0.0.1',
  port: 8765,
  maxClients: 32,
  heartbeatMs: 10_000,
  pollMs: 1000,
  stallMs: 30_000,
  highWater: 1024 * 1024,
  batchBytes: 256 * 1024,
  maxClientBytes: 32 * 1024 * 1024,
  decodeCacheBytes: 64 * 1024 * 1024,
};

export class Relay {
  readonly instance = crypto.randomBytes(8).toString('hex');
  private readonly catalog: SourceCatalog;
  private readonly sessions = new Set<Session>();
  private server: http.Server | https.Server | undefined;
  private wss: WebSocketServer | undefined;
  private timers: NodeJS.Timeout[] = [];
  private nextSession = 1;
  private closed = false;
  private readonly errors: ErrorDigest;
  readonly decodeCache: DecodeCache;
  /** Envelope passes shared by every session (envelope/cache.ts). */
  readonly envelopes = new EnvelopeCache();
  /** Ray's timeline of the run, read once into columns when first asked (sources/ray-timeline.ts). */
  private readonly timelines = new TimelineCache();
  /** The experience sources' tasks tables, folded once for every client. */
  readonly tasks = new TaskCache();
  readonly tokenFrames = new TokensFrames();
  private readonly idle: IdleClock | undefined;

  constructor(private readonly opts: RelayOptions) {
    this.errors = new ErrorDigest(opts.log);
    this.decodeCache = new DecodeCache(opts.decodeCacheBytes);
    if (opts.exitWhenIdleMs !== undefined) this.idle = new IdleClock(opts.exitWhenIdleMs);
    this.catalog = new SourceCatalog(
      { root: opts.root, instance: this.instance, pollMs: opts.pollMs, log: opts.log },
      {
        added: (sources) => {
          this.idle?.touch();
          for (const s of this.sessions) {
            s.announce(sources.map((a) => a.info));
            s.wake();
          }
        },
        // A watch event (or a live source's new sample): new data, so not idle.
        changed: () => {
          this.idle?.touch();
          this.wakeAll();
        },
      },
    );
  }

  get log(): Logger {
    return this.opts.log;
  }

  sourceList(): Source[] {
    return this.catalog.list();
  }

  infos(): SourceInfo[] {
    return this.sourceList().map((s) => s.info);
  }

  /** Discovers sources, starts watching and listening; resolves with the URL to connect to. */
  async start(): Promise<string> {
    await this.rescan();
    const { tls } = this.opts;
    const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }) : http.createServer();
    this.server = server;
    server.on('request', (_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', connection: 'close' });
      res.end('agentrl relay: connect with a WebSocket client (agentrl tail, or the Agent RL extension)\n');
    });
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_CLIENT_FRAME_BYTES,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(RELAY_SUBPROTOCOL) ? RELAY_SUBPROTOCOL : false),
    });
    server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.timers.push(
      setInterval(() => {
        for (const s of this.sessions) s.heartbeat();
      }, this.opts.heartbeatMs),
      setInterval(() => {
        this.catalog.scheduleRescan(0);
        this.wakeAll();
      }, this.opts.pollMs),
    );
    this.watchIdle();
    return this.url();
  }

  url(): string {
    const addr = this.server?.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `${this.opts.tls ? 'wss' : 'ws'}://${host}:${addr.port}/`;
  }

  /** Re-runs discovery; new sources are announced to clients and watched. */
  rescan(): Promise<void> {
    return this.catalog.rescan();
  }

  /** Number of connected clients. */
  get clientCount(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.catalog.close();
    for (const s of this.sessions) s.close();
    if (this.decodeCache.stats.decoded > 0) this.log.info(this.decodeCache.describe());
    this.decodeCache.close();
    this.envelopes.close();
    this.tasks.close();
    for (const c of this.wss?.clients ?? []) c.terminate();
    this.wss?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A WebSocket upgrade: refused (limits, auth) or accepted as a session that gets `hello`. */
  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    const reject = (status: number, reason: string) => {
      // The reason never contains the token: checkUpgrade does not echo credentials.
      this.log.warn(`relay: refused connection from ${req.socket.remoteAddress}: ${status} ${reason}`);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${reason}\n`);
    };
    const wss = this.wss;
    if (this.closed || !wss) return reject(503, 'relay is shutting down');
    if (this.sessions.size >= this.opts.maxClients) return reject(503, `connection limit (${this.opts.maxClients}) reached`);
    const auth = checkUpgrade(req, { token: this.opts.token, allowOrigins: this.opts.allowOrigins });
    if (!auth.ok) return reject(auth.status, auth.reason);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new Session(
        this.nextSession++,
        ws,
        {
          sources: () => this.sourceList(),
          log: this.log,
          errors: this.errors,
          feed: (src, c) => this.decodeCache.feed(src, c),
          envelopes: this.envelopes,
          timeline: (m) => timelineReply(this.timelines, this.opts.root, m),
          tasks: this.tasks,
          tokenFrames: this.tokenFrames,
        },
        this.opts,
      );
      this.sessions.add(session);
      this.idle?.touch();
      this.log.info(`relay: client ${session.id} connected from ${req.socket.remoteAddress}`);
      ws.on('close', (code) => {
        session.close();
        this.sessions.delete(session);
        this.idle?.touch();
        this.log.info(`relay: client ${session.id} disconnected (${code})`);
      });
      ws.on('error', (e) => this.log.debug(`relay: client ${session.id}: ${e.message}`));
      session.send(this.hello());
    });
  }

  private hello(): HelloMessage {
    const infos = this.infos();
    return {
      type: 'hello',
      protocol: RELAY_PROTOCOL_VERSION,
      relayVersion: VERSION,
      instance: this.instance,
      runs: [...new Set(infos.map((s) => s.run))].sort(),
      roles: [...new Set(infos.map((s) => s.role))].filter((r) => r !== '').sort(),
      sources: infos,
      heartbeatSeconds: this.opts.heartbeatMs / 1000,
    };
  }

  /** Checks the idle clock now and then; once expired, says so and hands over to `onIdle`. */
  private watchIdle(): void {
    const idle = this.idle;
    if (!idle) return;
    idle.touch();
    let files = this.dataSignature();
    const timer = setInterval(() => {
      // Data files that grew without a watch event (a network filesystem) are new data too.
      const now = this.dataSignature();
      if (now !== files) idle.touch();
      files = now;
      if (this.closed || !idle.expired(this.sessions.size)) return;
      clearInterval(timer);
      this.log.info(`relay: idle for ${Math.round(idle.idleMs(0) / 1000)} s (no client, no new data): exiting`);
      this.opts.onIdle?.();
    }, idleCheckPeriodMs(idle.limitMs));
    // The relay's other timers keep it running; this one alone must not.
    timer.unref();
    this.timers.push(timer);
  }

  /** Size and mtime of every source's data files (a few stat calls per idle check). */
  private dataSignature(): string {
    const parts: string[] = [];
    for (const s of this.sourceList()) {
      for (const f of s.dataFiles ?? []) {
        try {
          const st = fs.statSync(f);
          parts.push(`${f}\0${st.size}\0${st.mtimeMs}`);
        } catch {
          parts.push(`${f}\0-`);
        }
      }
    }
    return parts.join('\n');
  }

  private wakeAll(): void {
    for (const s of this.sessions) s.wake();
  }
}
