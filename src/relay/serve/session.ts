// One connected client: after its `subscribe`, streams every matching source from the
// client's cursors, and answers its requests (`experience`, `detail`, `tokens`) one at a time. All work
// for a client is pulled by its socket: a batch is read from disk, or a request answered, only
// while the bytes queued for it are below the high-water mark, so a client that stops reading
// costs at most about a batch or a reply beyond it, whatever it keeps asking for. What it holds
// (replies queued, requests waiting, the read under way) is counted against a hard cap; a client
// that has not drained for `stallMs`, or never subscribed within it, is cut off (it resumes from
// its cursors when it reconnects). The pump yields to the event loop every few milliseconds so
// that one client's costly batches never hold up the others.
import type { WebSocket } from 'ws';
import type { Logger } from '../../base/log';
import type { DetailRequestMessage } from '../../relay-protocol/envelope';
import type {
  ClientMessage,
  Cursor,
  ExperienceRequestMessage,
  ServerMessage,
  SourceInfo,
  SubscribeMessage,
  TimelineRequestMessage,
  TokensRequestMessage,
} from '../../relay-protocol/messages';
import { MAX_FRAME_TOKENS, encodeTokensFrame } from '../../relay-protocol/tokens-frame';
import type { TasksRequestMessage } from '../../relay-protocol/tasks';
import type { TaskCache } from './task-cache';
import { ProtocolError, RELAY_PROTOCOL_VERSION, parseClientMessage } from '../../relay-protocol/messages';
import type { ErrorDigest } from './error-digest';
import type { Source } from '../sources/source';
import type { Feed, Outgoing } from './decode-cache';
import { serialize } from './decode-cache';
import { type Fragments, jsonFragments } from './json-fragments';
import { EnvelopeBatch, encodeEnvelopeFrame } from '../../relay-protocol/envelope-frame';
import type { EnvelopeCache } from '../envelope/cache';
import type { TokensFrames } from './tokens-frames';
import { EnvelopeFirst, answerDetail } from './envelope-session';

export interface SessionOptions {
  /** Bytes in flight above which no more batches are read for this client. */
  highWater: number;
  /** Source bytes per batch (≈ the JSON size of a batch). */
  batchBytes: number;
  /** Cut the client off when it has not drained its backlog for this long (or not subscribed within it). */
  stallMs: number;
  /** What one client may hold in the relay at most (replies queued, requests waiting, the read under way). */
  maxClientBytes: number;
}

/** Requests a client may have waiting (in bytes of their frames) before the relay stops reading its socket. */
const MAX_QUEUED_REQUEST_BYTES = 256 * 1024;
/** What a pending read may add to a client's memory until its reply is queued (its bound). */
const DETAIL_BYTES_PER_POINT = 64;
/** Work of one pump between two yields to the event loop (ms). */
const SLICE_MS = 10;

type ClientRequest = ExperienceRequestMessage | DetailRequestMessage | TokensRequestMessage | TimelineRequestMessage | TasksRequestMessage;

export interface SessionHost {
  sources(): Source[];
  log: Logger;
  /** Shared by all sessions: a source failing on every read is reported once, then counted. */
  errors: ErrorDigest;
  /** What this session reads `source` from, starting at `cursor` (shared decode or its own reader). */
  feed(source: Source, cursor: Cursor | undefined): Feed;
  /** The relay's shared envelope passes (envelope/cache.ts); without it, `envelope` is ignored. */
  envelopes?: EnvelopeCache;
  /** A window of a run's Ray timeline (sources/ray-timeline.ts); without it, `timeline` is answered with an error. */
  timeline?(m: TimelineRequestMessage): Promise<ServerMessage>;
  /** The relay's tasks tables (task-cache.ts); without it, `tasks` is answered with an error. */
  tasks?: TaskCache;
  /** The relay's tokens frames by row (tokens-frames.ts): a row asked again is not laid out again. */
  tokenFrames?: TokensFrames;
}

/** An experience source's tasks table for the client (folded by the relay, shared by its clients). */
async function answerTasks(host: SessionHost, m: TasksRequestMessage): Promise<ServerMessage> {
  const base = { type: 'tasks' as const, request: m.request, source: m.source };
  const source = host.sources().find((s) => s.info.id === m.source);
  if (!source || !host.tasks) return { ...base, error: `no experience source '${m.source.slice(0, 200)}'` };
  try {
    return { ...base, table: await host.tasks.table(source) };
  } catch (e) {
    return { ...base, error: (e as Error).message.slice(0, 1000) };
  }
}

/** Reads one row's content for the client (read-only, on demand). */
async function answerExperience(host: SessionHost, m: ExperienceRequestMessage): Promise<ServerMessage> {
  const base = { type: 'experience-detail' as const, request: m.request, source: m.source, id: m.id };
  const source = host.sources().find((s) => s.info.id === m.source);
  if (!source?.readDetail) return { ...base, error: `no SQL source '${m.source.slice(0, 200)}'` };
  try {
    return { ...base, detail: await source.readDetail(m.id) };
  } catch (e) {
    return { ...base, error: (e as Error).message };
  }
}

/** One row's tokens for the client: a binary tokens frame, or an error message. */
async function answerTokens(host: SessionHost, m: TokensRequestMessage): Promise<ServerMessage | Outgoing | Fragments> {
  const fail = (error: string): ServerMessage => ({ type: 'tokens', request: m.request, source: m.source, id: m.id, error: error.slice(0, 1000) });
  const source = host.sources().find((s) => s.info.id === m.source);
  if (!source?.readTokens) return fail(`no experience source '${m.source.slice(0, 200)}'`);
  try {
    const t = await source.readTokens(m.id);
    if (host.tokenFrames) return { fragments: host.tokenFrames.fragments(t, m.source, m.id, m.request), binary: true };
    const f = encodeTokensFrame({ ...t, type: 'tokens', request: m.request, source: m.source, id: m.id });
    return { data: Buffer.from(f.buffer, f.byteOffset, f.byteLength), binary: true };
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** A window of the run's Ray timeline, or why not. */
async function answerTimeline(host: SessionHost, m: TimelineRequestMessage): Promise<ServerMessage> {
  if (!host.timeline) return { type: 'timeline', request: m.request, error: 'this relay does not read Ray timelines' };
  try {
    return await host.timeline(m);
  } catch (e) {
    return { type: 'timeline', request: m.request, error: (e as Error).message.slice(0, 1000) };
  }
}

/** The most a request's reply may weigh (its part of a client's memory while it is read). */
function replyBound(m: ClientRequest): number {
  if (m.type === 'tokens') return TOKENS_REPLY_BYTES;
  if (m.type === 'timeline') return m.maxEvents * TIMELINE_BYTES_PER_EVENT;
  if (m.type === 'tasks') return TASKS_REPLY_BYTES;
  return m.type === 'detail' ? m.maxPoints * DETAIL_BYTES_PER_POINT : EXPERIENCE_REPLY_BYTES;
}

/** A timeline event's JSON in a reply (four numbers). */
const TIMELINE_BYTES_PER_EVENT = 48;

/** The bound of a tokens frame: six arrays of at most MAX_FRAME_TOKENS (21 bytes a token) and texts within the detail's budget. */
const TOKENS_REPLY_BYTES = MAX_FRAME_TOKENS * 21 + 8 * 1024 * 1024;

/** The bound of a tasks table: ~250 bytes a cell, up to ~100 k cells (2000 tasks seen in 50 epochs). */
const TASKS_REPLY_BYTES = 24 * 1024 * 1024;

/** The bytes-out bound of an experience detail (trxp.ts keeps a decoded row within it). */
const EXPERIENCE_REPLY_BYTES = 8 * 1024 * 1024;

export class Session {
  private readers = new Map<string, { source: Source; reader: Feed }>();
  private subscribed: SubscribeMessage | undefined;
  /** Bytes handed to the socket and not yet written out (replies queued for this client). */
  private inflight = 0;
  /** Requests waiting for their turn, and the bytes of their frames. */
  private readonly requests: { msg: ClientRequest; bytes: number }[] = [];
  private requestBytes = 0;
  /** The bound of the reply being read now (0: none). */
  private reading = 0;
  /** The socket's reading is paused: too many requests wait. */
  private paused = false;
  /** Error replies dropped because the client was not reading. */
  private dropped = 0;
  private subscribeTimer: NodeJS.Timeout | undefined;
  /** Being cut off (its last message is on its way). */
  private cutting = false;
  private pumping = false;
  private again = false;
  /** The subscription's backlog has drained once (see HeartbeatMessage.caughtUp). */
  private caughtUp = false;
  private closed = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private knownSources = new Set<string>();
  /** Event files to send the envelope of before their live stream (subscribe.envelope). */
  private readonly envelopeFirst = new EnvelopeFirst();
  alive = true;

  constructor(
    readonly id: number,
    private readonly ws: WebSocket,
    private readonly host: SessionHost,
    private readonly opts: SessionOptions,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
    // A client that connects and never subscribes holds a connection slot for nothing.
    this.subscribeTimer = setTimeout(() => {
      if (this.subscribed || this.closed) return;
      this.cut('no-subscription', `sent no subscription within ${opts.stallMs} ms`);
    }, opts.stallMs);
  }

  /** What this client holds in the relay now (bytes). */
  held(): number {
    return Math.max(this.inflight, this.ws.bufferedAmount) + this.requestBytes + this.reading;
  }

  /** Whether more work may be done for this client now (its queued replies are under the high-water mark). */
  private canWork(): boolean {
    return !this.closed && Math.max(this.inflight, this.ws.bufferedAmount) < this.opts.highWater;
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    let msg: ClientMessage;
    try {
      if (isBinary) throw new ProtocolError('binary frames are not part of the protocol');
      msg = parseClientMessage(data.toString('utf8'));
    } catch (e) {
      // A client that sends garbage and does not read is not owed an answer to each frame.
      if (this.canWork()) this.send({ type: 'error', code: 'bad-message', message: (e as Error).message.slice(0, 300) });
      else this.dropped++;
      return;
    }
    if (msg.type === 'experience' || msg.type === 'detail' || msg.type === 'tokens' || msg.type === 'timeline' || msg.type === 'tasks')
      return this.enqueue(msg, data.length);
    if (msg.protocol !== RELAY_PROTOCOL_VERSION) {
      this.send({ type: 'error', code: 'unsupported-version', message: `this relay speaks protocol ${RELAY_PROTOCOL_VERSION}, not ${msg.protocol}` });
      this.ws.close(4000, 'unsupported protocol version');
      return;
    }
    this.closeReaders();
    this.subscribed = msg;
    if (this.subscribeTimer) clearTimeout(this.subscribeTimer);
    this.subscribeTimer = undefined;
    this.knownSources.clear();
    this.envelopeFirst.clear();
    this.wake();
  }

  private wants(info: SourceInfo): boolean {
    const s = this.subscribed;
    if (!s) return false;
    if (s.runs && !s.runs.includes(info.run)) return false;
    if ((info.kind === 'sql' || info.kind === 'jsonl') && s.experiences === false) return false;
    return true;
  }

  /** Opens readers for sources that appeared since the last look. */
  private refreshReaders(): void {
    const cursors = new Map<string, Cursor>((this.subscribed?.cursors ?? []).map((c) => [c.source, c]));
    for (const source of this.host.sources()) {
      const id = source.info.id;
      if (this.knownSources.has(id)) continue;
      this.knownSources.add(id);
      if (!this.wants(source.info)) continue;
      if (!this.envelopeFirst.wait(source, this.subscribed, this.host, cursors.has(id)))
        this.readers.set(id, { source, reader: this.host.feed(source, cursors.get(id)) });
    }
  }

  /** New data may be available (a file changed, a source appeared). */
  wake(): void {
    if (this.closed || !this.subscribed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.refreshReaders();
        const sub = this.subscribed;
        const open = (source: Source, cursor: Cursor | undefined) => this.readers.set(source.info.id, { source, reader: this.host.feed(source, cursor) });
        const envelope = (b: EnvelopeBatch) => this.send({ data: encodeEnvelopeFrame(b), binary: true });
        await this.envelopeFirst.send(this.host, sub, { send: (m) => this.send(m), envelope, current: () => !this.closed && this.subscribed === sub, open });
        let progressed = true;
        // A reader that threw is not retried in this pump: the next wake (a file change, the
        // poll timer) tries again — otherwise busy neighbours make it fail in a tight loop.
        const failed = new Set<string>();
        let slice = performance.now();
        while (progressed && !this.closed) {
          progressed = false;
          for (const [id, { reader }] of this.readers) {
            if (this.closed || this.subscribed !== sub) return;
            if (failed.has(id)) continue;
            if (!this.canWork()) {
              this.armStall();
              return; // resumed by the send callback once the socket drains
            }
            if (performance.now() - slice > SLICE_MS) {
              await new Promise((resolve) => setImmediate(resolve));
              slice = performance.now();
              if (this.closed || this.subscribed !== sub || !this.readers.has(id)) return;
            }
            let batch;
            try {
              batch = await reader.next(this.opts.batchBytes);
            } catch (e) {
              failed.add(id);
              const message = (e as Error).message;
              if (this.host.errors.fail(`relay: source ${id}`, message)) this.send({ type: 'error', code: 'source-error', message, source: id });
              continue;
            }
            this.host.errors.ok(`relay: source ${id}`);
            if (batch && !this.closed) {
              this.send('data' in batch ? batch : serialize(batch));
              progressed = true;
            }
          }
        }
      } while (this.again && !this.closed);
      // Every reader is at its end: tell the client the backlog is gone (once; heartbeats repeat it).
      if (!this.closed && !this.caughtUp) {
        this.caughtUp = true;
        this.send({ type: 'heartbeat', time: Date.now(), caughtUp: true });
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Queues a request; answered in turn while the client reads (its frames stop being read when too many wait). */
  private enqueue(msg: ClientRequest, bytes: number): void {
    this.requests.push({ msg, bytes });
    this.requestBytes += bytes;
    if (this.requestBytes > MAX_QUEUED_REQUEST_BYTES && !this.paused) {
      this.paused = true;
      this.ws.pause();
    }
    this.answerNext();
  }

  /** Answers the next waiting request, when none is under way and the client reads its replies. */
  private answerNext(): void {
    if (this.reading > 0 || this.requests.length === 0 || this.closed) return;
    if (!this.canWork()) {
      this.armStall();
      return; // the send callback calls again once the socket drains
    }
    const { msg, bytes } = this.requests.shift()!;
    this.requestBytes -= bytes;
    if (this.paused && this.requestBytes <= MAX_QUEUED_REQUEST_BYTES / 2) {
      this.paused = false;
      this.ws.resume();
    }
    this.reading = replyBound(msg);
    if (!this.withinCap()) return;
    const answer =
      msg.type === 'experience'
        ? answerExperience(this.host, msg)
        : msg.type === 'tokens'
          ? answerTokens(this.host, msg)
          : msg.type === 'timeline'
            ? answerTimeline(this.host, msg)
            : msg.type === 'tasks'
              ? answerTasks(this.host, msg)
              : answerDetail(this.host, msg);
    void answer.then((reply) => {
      this.reading = 0;
      this.send(reply);
      this.answerNext();
    });
  }

  /** Cuts the client off when what it holds passed the hard cap; false then. */
  private withinCap(): boolean {
    const held = this.held();
    if (held <= this.opts.maxClientBytes) return true;
    this.cut('slow-client', `holds ${held} bytes in the relay (cap ${this.opts.maxClientBytes})`);
    return false;
  }

  /** Ends the connection: says why (if the client still reads), logs it, and drops everything it held. */
  private cut(code: 'slow-client' | 'no-subscription', why: string): void {
    if (this.closed || this.cutting) return;
    this.cutting = true;
    this.host.log.warn(`relay: client ${this.id} ${why}: disconnecting it${this.dropped ? ` (${this.dropped} error replies dropped)` : ''}`);
    this.send({ type: 'error', code, message: `disconnected: this client ${why}` });
    this.ws.terminate();
    this.close();
  }

  private armStall(): void {
    if (this.stallTimer) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.canWork()) return;
      this.cut('slow-client', `stopped reading (${this.held()} bytes held for ${this.opts.stallMs} ms)`);
    }, this.opts.stallMs);
  }

  /** Sends a message (its long arrays written a slice at a time), a batch already serialized, or a message in fragments (a long answer a slice at a time, a tokens frame's head and its shared body). */
  send(msg: ServerMessage | Outgoing | Fragments): void {
    if (this.closed) return;
    const out: Fragments =
      'data' in msg ? { fragments: [msg.data], binary: msg.binary } : 'fragments' in msg ? msg : { fragments: jsonFragments(msg), binary: false };
    let size = 0;
    for (const f of out.fragments) size += f.length;
    this.inflight += size;
    const last = out.fragments.length - 1;
    // The fragments go out in one go: nothing else is sent on this socket between them.
    out.fragments.forEach((f, i) => {
      if (i < last) this.ws.send(f, { binary: out.binary, fin: false });
    });
    this.ws.send(out.fragments[last], { binary: out.binary, fin: true }, (err) => {
      this.inflight -= size;
      if (err) return;
      if (this.canWork()) {
        if (this.stallTimer) clearTimeout(this.stallTimer);
        this.stallTimer = undefined;
        this.answerNext();
        this.wake();
      }
    });
    if (!this.cutting) this.withinCap();
  }

  /** Announces sources that appeared after hello. */
  announce(sources: SourceInfo[]): void {
    if (this.canWork()) this.send({ type: 'sources', sources });
  }

  heartbeat(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.host.log.info(`relay: client ${this.id} missed a heartbeat: disconnecting it`);
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    if (this.canWork()) this.send({ type: 'heartbeat', time: Date.now(), caughtUp: this.caughtUp });
  }

  private closeReaders(): void {
    for (const { reader } of this.readers.values()) reader.close();
    this.readers.clear();
  }

  close(): void {
    this.closed = true;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    if (this.subscribeTimer) clearTimeout(this.subscribeTimer);
    this.requests.length = 0;
    this.requestBytes = 0;
    this.closeReaders();
  }
}
