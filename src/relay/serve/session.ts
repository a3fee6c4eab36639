// One connected client: after its `subscribe`, streams every matching source from the
// client's cursors. Reading is pulled by the socket: a batch is read from disk only when the
// bytes in flight to this client are below the high-water mark, so a slow client costs at
// most ~2 batches of memory; a client that stops reading for `stallMs` is cut off (it
// resumes from its cursor when it reconnects).
import type { WebSocket } from 'ws';
import type { Logger } from '../../base/log';
import type { ClientMessage, Cursor, ExperienceRequestMessage, ServerMessage, SourceInfo, SubscribeMessage } from '../../relay-protocol/messages';
import { ProtocolError, RELAY_PROTOCOL_VERSION, parseClientMessage } from '../../relay-protocol/messages';
import type { ErrorDigest } from './error-digest';
import type { Source } from '../sources/source';
import type { Batch } from '../sources/source';
import type { Feed, Outgoing } from './decode-cache';
import { jsonOf } from './decode-cache';
import { encodePointsFrame } from '../../relay-protocol/points-frame';
import { EnvelopeBatch, encodeEnvelopeFrame, envelopeToMessage } from '../../relay-protocol/envelope-frame';
import type { EnvelopeCache } from '../envelope/cache';
import { EnvelopeFirst, answerDetail } from './envelope-session';

export interface SessionOptions {
  /** Bytes in flight above which no more batches are read for this client. */
  highWater: number;
  /** Source bytes per batch (≈ the JSON size of a batch). */
  batchBytes: number;
  /** Cut the client off when it has not drained its backlog for this long. */
  stallMs: number;
}

export interface SessionHost {
  sources(): Source[];
  log: Logger;
  /** Shared by all sessions: a source failing on every read is reported once, then counted. */
  errors: ErrorDigest;
  /** What this session reads `source` from, starting at `cursor` (shared decode or its own reader);
   *  `binary`: the session takes binary points frames. */
  feed(source: Source, cursor: Cursor | undefined, binary: boolean): Feed;
  /** The relay's shared envelope passes (issue 16 §4); without it, `envelope` is ignored. */
  envelopes?: EnvelopeCache;
}

/** A batch in the form the client asked for (a shared one comes serialized already, decode-cache.ts). */
function serialize(b: Outgoing | Batch, binary: boolean): Outgoing {
  if ('data' in b) return b;
  if (b.type === 'points' && binary) return { data: encodePointsFrame(b), binary: true };
  return { data: jsonOf(b), binary: false };
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

export class Session {
  private readers = new Map<string, { source: Source; reader: Feed }>();
  private subscribed: SubscribeMessage | undefined;
  private inflight = 0;
  private pumping = false;
  private again = false;
  /** The subscription's backlog has drained once (see HeartbeatMessage.caughtUp). */
  private caughtUp = false;
  private closed = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private knownSources = new Set<string>();
  /** Event files to send the envelope of before their live stream (subscribe.envelope). */
  private readonly envelopeFirst = new EnvelopeFirst();
  /** The client asked for binary points frames (SubscribeMessage.binary). */
  private binaryPoints = false;
  /** … and for binary envelope frames. */
  private binaryEnvelopes = false;
  alive = true;

  constructor(
    readonly id: number,
    private readonly ws: WebSocket,
    private readonly host: SessionHost,
    private readonly opts: SessionOptions,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('pong', () => (this.alive = true));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    let msg: ClientMessage;
    try {
      if (isBinary) throw new ProtocolError('binary frames are not part of the protocol');
      msg = parseClientMessage(data.toString('utf8'));
    } catch (e) {
      this.send({ type: 'error', code: 'bad-message', message: (e as Error).message });
      return;
    }
    if (msg.type === 'experience') return void answerExperience(this.host, msg).then((m) => this.send(m));
    if (msg.type === 'detail') return void answerDetail(this.host, msg).then((m) => this.send(m));
    if (msg.protocol !== RELAY_PROTOCOL_VERSION) {
      this.send({ type: 'error', code: 'unsupported-version', message: `this relay speaks protocol ${RELAY_PROTOCOL_VERSION}, not ${msg.protocol}` });
      this.ws.close(4000, 'unsupported protocol version');
      return;
    }
    this.closeReaders();
    this.subscribed = msg;
    this.binaryPoints = msg.binary?.includes('points') === true;
    this.binaryEnvelopes = msg.binary?.includes('envelope') === true;
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
      if (!this.envelopeFirst.wait(source, this.subscribed, this.host, cursors.has(id))) this.readers.set(id, { source, reader: this.host.feed(source, cursors.get(id), this.binaryPoints) });
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
        const open = (source: Source, cursor: Cursor | undefined) => this.readers.set(source.info.id, { source, reader: this.host.feed(source, cursor, this.binaryPoints) });
        const envelope = (b: EnvelopeBatch) => this.send(this.binaryEnvelopes ? { data: encodeEnvelopeFrame(b), binary: true } : envelopeToMessage(b));
        await this.envelopeFirst.send(this.host, sub, { send: (m) => this.send(m), envelope, current: () => !this.closed && this.subscribed === sub, open });
        let progressed = true;
        // A reader that threw is not retried in this pump: the next wake (a file change, the
        // poll timer) tries again — otherwise busy neighbours make it fail in a tight loop.
        const failed = new Set<string>();
        while (progressed && !this.closed) {
          progressed = false;
          for (const [id, { reader }] of this.readers) {
            if (this.closed) return;
            if (failed.has(id)) continue;
            if (this.inflight >= this.opts.highWater) {
              this.armStall();
              return; // resumed by the send callback once the socket drains
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
              this.send(serialize(batch, this.binaryPoints));
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

  private armStall(): void {
    if (this.stallTimer) return;
    this.stallTimer = setTimeout(() => {
      this.host.log.warn(`relay: client ${this.id} stopped reading (${this.inflight} bytes pending for ${this.opts.stallMs} ms): disconnecting it`);
      this.ws.terminate();
    }, this.opts.stallMs);
  }

  /** Sends a message, or a batch already serialized. */
  send(msg: ServerMessage | Outgoing): void {
    if (this.closed) return;
    const out = 'data' in msg ? msg : { data: Buffer.from(JSON.stringify(msg)), binary: false };
    const size = out.data.length;
    this.inflight += size;
    this.ws.send(out.data, { binary: out.binary }, (err) => {
      this.inflight -= size;
      if (err) return;
      if (this.inflight < this.opts.highWater) {
        if (this.stallTimer) clearTimeout(this.stallTimer);
        this.stallTimer = undefined;
        this.wake();
      }
    });
  }

  /** Announces sources that appeared after hello. */
  announce(sources: SourceInfo[]): void {
    if (this.inflight < this.opts.highWater * 2) this.send({ type: 'sources', sources });
  }

  heartbeat(): void {
    if (!this.alive) {
      this.host.log.info(`relay: client ${this.id} missed a heartbeat: disconnecting it`);
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    if (this.inflight < this.opts.highWater) this.send({ type: 'heartbeat', time: Date.now(), caughtUp: this.caughtUp });
  }

  private closeReaders(): void {
    for (const { reader } of this.readers.values()) reader.close();
    this.readers.clear();
  }

  close(): void {
    this.closed = true;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.closeReaders();
  }
}
