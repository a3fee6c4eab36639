// One WebSocket connection to `agentrl relay` (no vscode import): opens it with the client's
// credentials, tells a refusal by the relay (bad token, origin: do not retry) from a network
// failure, hands on every frame as a validated message (a points batch or an envelope as typed
// columns, whether it came as a binary frame or as JSON from an older relay), and ends a connection on which nothing
// arrived for too long. RelayClient (relay-client.ts) opens a new link after each disconnect.
import WebSocket from 'ws';
import type { ClientMessage, PointsBatch, PointsMessage, ServerMessage } from './messages';
import { ProtocolError, RELAY_SUBPROTOCOL, parseServerMessage } from './messages';
import { decodePointsFrame, pointsFromMessage } from './points-frame';
import type { EnvelopeMessage } from './envelope';
import { EnvelopeBatch, binaryFrameType, decodeEnvelopeFrame, envelopeFromMessage } from './envelope-frame';

/** A message from the relay as the client takes it: points and envelopes as typed columns. */
export type RelayMessage = Exclude<ServerMessage, PointsMessage | EnvelopeMessage> | PointsBatch | EnvelopeBatch;

/** A frame from the relay: a binary points or envelope frame, or a JSON message. Throws ProtocolError. */
export function readFrame(data: Buffer, isBinary: boolean): RelayMessage {
  if (isBinary) {
    const kind = binaryFrameType(data);
    if (kind === 'envelope') return decodeEnvelopeFrame(data);
    if (kind === 'points') return decodePointsFrame(data);
    throw new ProtocolError('binary frame: unknown magic');
  }
  const msg = parseServerMessage(data.toString('utf8'));
  return msg.type === 'points' ? pointsFromMessage(msg) : msg.type === 'envelope' ? envelopeFromMessage(msg) : msg;
}

export interface RelayClientError {
  /** auth: refused by the relay (bad token, origin, URL) — the client stops.
   *  protocol: a malformed frame or an error message from the relay.
   *  connection: a network failure (the client retries). */
  kind: 'auth' | 'protocol' | 'connection';
  message: string;
  status?: number;
}

export interface LinkOptions {
  url: string;
  /** Bearer token (sent in the Authorization header only). */
  token?: string;
  /** Extra CA certificate(s) for wss:// with a self-signed relay certificate. */
  ca?: string | Buffer;
  /** How long the link may stay silent (no data, no heartbeat) before it is ended. */
  idleMs(): number;
}

export interface LinkListener {
  open(): void;
  message(msg: RelayMessage): void;
  error(e: RelayClientError): void;
  /** The connection ended; `refused` when the relay refused it for good (auth). */
  close(why: string, refused: boolean): void;
}

export class RelayLink {
  private readonly ws: WebSocket;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly opts: LinkOptions,
    private readonly on: LinkListener,
  ) {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const ws = new WebSocket(opts.url, RELAY_SUBPROTOCOL, {
      headers,
      ca: opts.ca,
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
      maxPayload: 512 * 1024 * 1024,
    });
    this.ws = ws;
    let refused = false;
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8').slice(0, 500)));
      res.on('end', () => {
        const message = `relay refused the connection: HTTP ${status} ${body.trim()}`;
        if (status === 400 || status === 401 || status === 403) {
          refused = true;
          on.error({ kind: 'auth', message, status });
        } else on.error({ kind: 'connection', message, status });
        ws.terminate();
      });
      res.on('error', () => ws.terminate());
    });
    ws.on('open', () => {
      on.open();
      this.armIdle();
    });
    ws.on('message', (data, isBinary) => {
      this.armIdle();
      let msg: RelayMessage;
      try {
        msg = readFrame(data as Buffer, isBinary);
      } catch (e) {
        on.error({ kind: 'protocol', message: `bad frame from relay: ${(e as Error).message}` });
        ws.terminate();
        return;
      }
      on.message(msg);
    });
    ws.on('error', (e) => on.error({ kind: 'connection', message: e.message }));
    ws.on('close', (code, reason) => {
      this.disarmIdle();
      on.close(`${code}${reason.length ? ` ${reason.toString()}` : ''}`, refused);
    });
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  send(msg: ClientMessage): void {
    this.ws.send(JSON.stringify(msg));
  }

  /** (Re)starts the silence watchdog, e.g. once the relay said its heartbeat period. */
  armIdle(): void {
    this.disarmIdle();
    const limit = this.opts.idleMs();
    this.idleTimer = setTimeout(() => {
      this.on.error({ kind: 'connection', message: `no data or heartbeat for ${limit} ms` });
      this.ws.terminate();
    }, limit);
    this.idleTimer.unref?.();
  }

  /** Ends the connection at once; resolves when it is closed. */
  close(): Promise<void> {
    this.disarmIdle();
    const ws = this.ws;
    if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      ws.once('close', () => resolve());
      ws.terminate();
    });
  }

  private disarmIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
