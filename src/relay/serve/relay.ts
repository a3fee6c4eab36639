// `agentrl relay`: the server. Discovers sources under its root, watches them (fs.watch with
// a polling fallback for network filesystems), and serves authenticated WebSocket clients.
// Read-only: clients can only name sources the relay found itself.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../shared/log';
import type { HelloMessage, SourceInfo } from '../../shared/relay-protocol';
import { MAX_CLIENT_FRAME_BYTES, RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL } from '../../shared/relay-protocol';
import { VERSION } from '../../shared/version';
import { checkUpgrade } from './auth';
import { ErrorDigest } from './error-digest';
import { Session } from './session';
import { RelayRoot, SourceSpec, discover } from '../sources/discovery';
import { JsonlExperienceSource } from '../sources/jsonl-experience-source';
import { StepLogSource } from '../sources/log-source';
import { ServeMetricsSource } from '../sources/serve-source';
import type { Source } from '../sources/source';
import { SqlDatabaseSnapshot, SqlTableSource, isSqliteFile } from '../sources/sql-source';
import { TfEventsSource } from '../sources/tfevents-source';

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
};

export class Relay {
  readonly instance = crypto.randomBytes(8).toString('hex');
  private readonly sources = new Map<string, Source>();
  private readonly sqlFiles = new Map<string, SqlDatabaseSnapshot>();
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private readonly sessions = new Set<Session>();
  private server: http.Server | https.Server | undefined;
  private wss: WebSocketServer | undefined;
  private timers: NodeJS.Timeout[] = [];
  private rescanTimer: NodeJS.Timeout | undefined;
  private rescanning: Promise<void> | undefined;
  private nextSession = 1;
  private closed = false;
  private readonly errors: ErrorDigest;

  constructor(private readonly opts: RelayOptions) {
    this.errors = new ErrorDigest(opts.log);
  }

  get log(): Logger {
    return this.opts.log;
  }

  sourceList(): Source[] {
    return [...this.sources.values()];
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
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_CLIENT_FRAME_BYTES,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(RELAY_SUBPROTOCOL) ? RELAY_SUBPROTOCOL : false),
    });
    this.wss = wss;
    server.on('upgrade', (req, socket, head) => {
      socket.on('error', () => undefined);
      const reject = (status: number, reason: string) => {
        // The reason never contains the token: checkUpgrade does not echo credentials.
        this.log.warn(`relay: refused connection from ${req.socket.remoteAddress}: ${status} ${reason}`);
        socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${reason}\n`);
      };
      if (this.closed) return reject(503, 'relay is shutting down');
      if (this.sessions.size >= this.opts.maxClients) return reject(503, `connection limit (${this.opts.maxClients}) reached`);
      const auth = checkUpgrade(req, { token: this.opts.token, allowOrigins: this.opts.allowOrigins });
      if (!auth.ok) return reject(auth.status, auth.reason);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const session = new Session(this.nextSession++, ws, { sources: () => this.sourceList(), log: this.log, errors: this.errors }, this.opts);
        this.sessions.add(session);
        this.log.info(`relay: client ${session.id} connected from ${req.socket.remoteAddress}`);
        ws.on('close', (code) => {
          session.close();
          this.sessions.delete(session);
          this.log.info(`relay: client ${session.id} disconnected (${code})`);
        });
        ws.on('error', (e) => this.log.debug(`relay: client ${session.id}: ${e.message}`));
        const hello: HelloMessage = {
          type: 'hello',
          protocol: RELAY_PROTOCOL_VERSION,
          relayVersion: VERSION,
          instance: this.instance,
          runs: [...new Set(this.infos().map((s) => s.run))].sort(),
          roles: [...new Set(this.infos().map((s) => s.role))].filter((r) => r !== '').sort(),
          sources: this.infos(),
          heartbeatSeconds: this.opts.heartbeatMs / 1000,
        };
        session.send(hello);
      });
    });
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
        this.scheduleRescan(0);
        this.wakeAll();
      }, this.opts.pollMs),
    );
    return this.url();
  }

  url(): string {
    const addr = this.server?.address() as AddressInfo;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `${this.opts.tls ? 'wss' : 'ws'}://${host}:${addr.port}/`;
  }

  private wakeAll(): void {
    for (const s of this.sessions) s.wake();
  }

  private scheduleRescan(delay: number): void {
    if (this.rescanTimer || this.closed) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = undefined;
      void this.rescan();
    }, delay);
  }

  /** Re-runs discovery; new sources are announced to clients and watched. */
  rescan(): Promise<void> {
    this.rescanning ??= this.doRescan().finally(() => (this.rescanning = undefined));
    return this.rescanning;
  }

  private async doRescan(): Promise<void> {
    const found = discover(this.opts.root);
    const added: Source[] = [];
    for (const spec of found.specs) {
      if (spec.kind === 'sql') {
        added.push(...(await this.addSqlTables(spec)));
        continue;
      }
      if (this.sources.has(spec.id)) continue;
      const src = this.makeSource(spec);
      this.sources.set(spec.id, src);
      added.push(src);
    }
    for (const d of found.dirs) this.watch(d);
    for (const s of added) for (const d of s.watchPaths) this.watch(d);
    if (added.length > 0) {
      this.log.info(`relay: ${added.length} new source(s): ${added.map((s) => s.info.id).join(', ')}`);
      for (const s of this.sessions) {
        s.announce(added.map((a) => a.info));
        s.wake();
      }
    }
  }

  private makeSource(spec: SourceSpec): Source {
    const info: SourceInfo = { id: spec.id, kind: spec.kind, run: spec.run, role: spec.role, path: spec.rel };
    switch (spec.kind) {
      case 'tfevents':
        return new TfEventsSource(info, spec.abs, this.log);
      case 'log':
        return new StepLogSource(info, spec.abs);
      case 'jsonl':
        return new JsonlExperienceSource(info, spec.abs);
      default:
        return new ServeMetricsSource(info, spec.abs, this.instance, Math.max(this.opts.pollMs, 1000), () => this.wakeAll(), this.log);
    }
  }

  private async addSqlTables(spec: SourceSpec): Promise<Source[]> {
    if (!isSqliteFile(spec.abs)) return [];
    let snap = this.sqlFiles.get(spec.abs);
    if (!snap) {
      snap = new SqlDatabaseSnapshot(spec.abs, this.log);
      this.sqlFiles.set(spec.abs, snap);
    }
    const out: Source[] = [];
    for (const table of await snap.experienceTables()) {
      const id = `${spec.id}#${table}`;
      if (this.sources.has(id)) continue;
      const src = new SqlTableSource({ id, kind: 'sql', run: spec.run, role: table, path: spec.rel }, snap, table);
      this.sources.set(id, src);
      out.push(src);
    }
    return out;
  }

  private watch(dir: string): void {
    if (this.watchers.has(dir) || this.closed) return;
    try {
      const w = fs.watch(dir, { persistent: false }, () => {
        this.wakeAll();
        this.scheduleRescan(200);
      });
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, w);
    } catch {
      // No inotify (or the dir vanished): the poll timer still covers it.
    }
  }

  /** Number of connected clients. */
  get clientCount(): number {
    return this.sessions.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const s of this.sources.values()) s.close?.();
    for (const s of this.sqlFiles.values()) s.close();
    for (const s of this.sessions) s.close();
    for (const c of this.wss?.clients ?? []) c.terminate();
    this.wss?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
