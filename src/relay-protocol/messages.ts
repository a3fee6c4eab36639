// The relay ↔ client wire protocol (`agentrl relay` on a GPU node ↔ `agentrl tail` / the
// extension's metrics view). JSON text frames over a WebSocket, and binary frames for points
// batches and envelopes (see "Binary points frame" below, envelope-frame.ts). Versioned: a client sends
// the protocol version it speaks in `subscribe`; the relay answers `error` code
// `unsupported-version` when it cannot serve it.
//
// Resuming: every batch carries the cursor *after* its last item. A client keeps, per source,
// the last cursor it received and sends them all back in `subscribe` when it reconnects (to
// the same relay or a restarted one): it then receives exactly what it missed. A cursor is a
// position in the source itself (file identity + byte offset at a record boundary; SQL row
// id), so it stays valid across relay restarts.
//
// Every incoming message is validated at run time (`parseServerMessage`,
// `parseClientMessage`): a malformed frame is an error, never a crash.
import { Obj, arrayOf, hasFields, isBool, isInt, isNum, isObj, isStr, nullable, oneOf, optional } from '../base/validate';
import type { DetailMessage, DetailRequestMessage, EnvelopeRequest } from './envelope';
import { type Cursor, type WireNumber, isCursor, isWireNumber } from './wire-values';

export { type Cursor, type WireNumber, fromWireNumber, isCursor, toWireNumber } from './wire-values';
import { isDetailMessage, isDetailRequest, isEnvelopeRequest } from './envelope';
import { type TasksMessage, type TasksRequestMessage, isTasksMessage, isTasksRequest } from './tasks';

export const RELAY_PROTOCOL_VERSION = 1;
/** The WebSocket subprotocol both sides offer. */
export const RELAY_SUBPROTOCOL = 'agentrl-relay.v1';
/** Largest frame a relay accepts from a client. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/** What a source is read from. */
/** sql: a table of a SQLite buffer; jsonl: a queue/file buffer's JSON lines (both stream experience rows). */
export type SourceKind = 'tfevents' | 'log' | 'sql' | 'serve' | 'jsonl';

export interface SourceInfo {
  /** Stable id (kind + path relative to the relay root); the key of a cursor. */
  id: string;
  kind: SourceKind;
  run: string;
  role: string;
  /** Path relative to the relay's root directory (display only). */
  path: string;
  /** A serve source: the explorer URL its /metrics come from (as the explorer wrote it, so an
   *  address of the relay's node). Lets the editor offer "Connect to Online Explorer". */
  endpoint?: string;
}

// ---- relay → client ------------------------------------------------------------------

export interface HelloMessage {
  type: 'hello';
  protocol: number;
  relayVersion: string;
  /** Random id of this relay process. */
  instance: string;
  runs: string[];
  roles: string[];
  sources: SourceInfo[];
  /** Seconds between heartbeats; a client may reconnect after ~3 missed. */
  heartbeatSeconds: number;
}

/** Sent when sources appear after hello (new event files, runs, databases). */
export interface SourcesMessage {
  type: 'sources';
  sources: SourceInfo[];
}

/**
 * A row of the SQL experience buffer (experience_bytes is not sent).
 *
 * The fields after msg_id were added within protocol 1 (older relays leave them out): a client
 * that predates them ignores them, and drops an `updated` row as a repeat of one it holds —
 * which is why they need no version bump.
 */
/** One tag's points of a batch, in the order the source wrote them; NaN/±Inf are themselves. */
export interface TagPoints {
  tag: string;
  step: Float64Array;
  /** Seconds since epoch (as written by the trainer). */
  wallTime: Float64Array;
  value: Float64Array;
}

/**
 * A batch of scalar points of one source as both ends hold it: grouped by tag, in typed
 * columns. It travels as a binary points frame (points-frame.ts).
 *
 * Binary points frame (a WebSocket binary message; all numbers little-endian):
 *
 *   offset 0   4 bytes   magic "ARP1" (agentrl relay points, layout 1)
 *   offset 4   uint32    H, the byte length of the header
 *   offset 8   H bytes   header, UTF-8 JSON: {"type":"points","source","run","role",
 *                        "tags":[…],"counts":[…],"cursor":{…}}; counts[t] = points of tags[t]
 *   …          0–7 zero bytes, so that the columns start at a multiple of 8
 *   then, for each tag t in order: float64 step[counts[t]], float64 wallTime[counts[t]],
 *                        float64 value[counts[t]]; the frame ends with the last column.
 *
 * A tag may have count 0. The columns are IEEE doubles: NaN and ±Infinity travel as they are.
 */
export interface PointsBatch {
  type: 'points';
  source: string;
  run: string;
  role: string;
  series: TagPoints[];
  /** The cursor after this batch. */
  cursor: Cursor;
}

export interface ExperienceRow {
  id: number;
  table: string;
  task_id: string | null;
  run_id: number | null;
  model_version: number | null;
  reward: WireNumber | null;
  /** As stored (SQLite text, e.g. "2026-11-22 02:39:27"). */
  timestamp: string | null;
  msg_id?: string | null;
  /** How often the trainer has read the row (Trinity's `consumed` column). */
  consumed?: number | null;
  /** The experience's numeric metrics: the parts of its reward (accuracy, format_score, …). */
  metrics?: Record<string, WireNumber>;
  /** The row's advantage (mean over its action tokens) when the buffer stores advantages. */
  advantage?: WireNumber | null;
  /** Tokens of the response (TRXP rows: the action mask's length, else the ids past the prompt). */
  response_tokens?: number;
  /** Response tokens trained on (nonzero in the action mask). */
  trained_tokens?: number;
  /** The experience has a truncate_status (the response, or the prompt, was cut). */
  truncated?: boolean;
  /** No response token, or a response text of whitespace only. */
  empty_response?: boolean;
  /** The taskset row of the experience's task (Trinity's `info["task_index"]`): stable across steps, unlike `task_id`. */
  task_index?: number;
  /** Which taskset `task_index` is a row of, when the run reads several. */
  taskset_id?: number;
  /** A fingerprint of the response text, equal for texts that differ only in case and spacing (16 hex digits). */
  response_hash?: string;
  /** A row sent before whose reward or consumed state changed: it replaces that row. */
  updated?: boolean;
  /** Why the row's content could not be summarized (malformed, or over the relay's decode budget): the row is listed without it. */
  error?: string;
}

export interface ExperiencesMessage {
  type: 'experiences';
  source: string;
  run: string;
  rows: ExperienceRow[];
  cursor: Cursor;
}

/**
 * One experience row decoded on request (`experience`): the first item of its
 * experience_bytes (Trinity's TRXP format or a legacy pickle) as JSON — messages, prompt and
 * response text, reward, info, metrics…; tensors are not sent. Non-finite numbers are
 * WireNumber strings, bytes are "<N bytes>".
 */
export type ExperienceDetail = Record<string, unknown>;

export interface ExperienceDetailMessage {
  type: 'experience-detail';
  /** The `request` of the client's `experience` message. */
  request: number;
  source: string;
  id: number;
  detail?: ExperienceDetail;
  /** Why there is no detail (no such row, not decodable…). */
  error?: string;
}

export interface HeartbeatMessage {
  type: 'heartbeat';
  /** Relay clock, ms since epoch. */
  time: number;
  /**
   * True once the relay has sent everything its sources held (no backlog left): the client is
   * live from then on. Sent at once when a subscription's backlog drains, then with every
   * heartbeat.
   */
  caughtUp: boolean;
}

export type ErrorCode =
  | 'bad-message'
  | 'unsupported-version'
  | 'source-error'
  /** The client stopped reading, or holds more than the relay's cap: it is cut off. */
  | 'slow-client'
  /** The client did not subscribe within the relay's --stall-timeout: it is cut off. */
  | 'no-subscription'
  | 'shutting-down';

export interface ErrorMessage {
  type: 'error';
  /** One of ErrorCode from this relay; a newer one may send codes this client shows as they are. */
  code: ErrorCode | (string & {});
  message: string;
  source?: string;
}

/** A `tokens` request that could not be answered (no such row, over the budget, not decodable);
 *  a request that could is answered by a binary tokens frame (tokens-frame.ts). */
export interface TokensErrorMessage {
  type: 'tokens';
  request: number;
  source: string;
  id: number;
  error: string;
}

export type ServerMessage =
  | HelloMessage
  | TokensErrorMessage
  | SourcesMessage
  | ExperiencesMessage
  | ExperienceDetailMessage
  | HeartbeatMessage
  | ErrorMessage
  | DetailMessage
  | TimelineReplyMessage
  | TasksMessage;

// ---- client → relay ------------------------------------------------------------------

export interface SubscribeMessage {
  type: 'subscribe';
  protocol: number;
  /** Only these runs (all when omitted). */
  runs?: string[];
  /** Where to resume, per source; sources without a cursor start at their beginning. */
  cursors: Cursor[];
  /** Also stream SQL experience rows (default true). */
  experiences?: boolean;
  /** Envelope first for event files read from their beginning (envelope.ts). */
  envelope?: EnvelopeRequest;
}

/** Asks for the content of one row of an SQL source (read-only; answered by `experience-detail`). */
export interface ExperienceRequestMessage {
  type: 'experience';
  request: number;
  source: string;
  /** The row's id (ExperienceRow.id). */
  id: number;
}

/**
 * Asks for one experience's tokens (read-only): an SQL row's tensors, or the texts of a file-buffer /
 * queue-backup line (its id as in ExperienceRow.id). Answered by a binary tokens frame
 * (tokens-frame.ts) or a TokensErrorMessage.
 */
export interface TokensRequestMessage {
  type: 'tokens';
  request: number;
  source: string;
  id: number;
}

/**
 * Asks for a window of the run's Ray timeline (Trinity's monitor/timeline.json, written with
 * monitor.enable_ray_timeline): µs since its first event, both null for the whole span; at most
 * `maxEvents` events (the longest kept). Answered by `timeline`.
 */
export interface TimelineRequestMessage {
  type: 'timeline';
  request: number;
  run: string;
  from: number | null;
  to: number | null;
  maxEvents: number;
}

/** A timeline window (columns, TimelineWindow in the relay's sources/ray-timeline.ts), `none` when the run has no timeline.json, or why not. */
export interface TimelineReplyMessage {
  type: 'timeline';
  request: number;
  window?: Obj;
  none?: boolean;
  error?: string;
}

/** Most events one timeline window carries. */
const MAX_TIMELINE_EVENTS = 100_000;

export type ClientMessage =
  SubscribeMessage | ExperienceRequestMessage | DetailRequestMessage | TokensRequestMessage | TimelineRequestMessage | TasksRequestMessage;

// ---- numbers -------------------------------------------------------------------------

// ---- run-time validation -------------------------------------------------------------

export class ProtocolError extends Error {}

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new ProtocolError(what);
}

const isSourceKind = oneOf<SourceKind>(['tfevents', 'log', 'sql', 'serve', 'jsonl']);
const isSourceInfo = (v: unknown): v is SourceInfo =>
  hasFields(v, { id: isStr, kind: isSourceKind, run: isStr, role: isStr, path: isStr, endpoint: optional(isStr) });

const isExperienceRow = (v: unknown): v is ExperienceRow =>
  hasFields(v, {
    id: isInt,
    table: isStr,
    task_id: nullable(isStr),
    run_id: nullable(isInt),
    model_version: nullable(isInt),
    reward: nullable(isWireNumber),
    timestamp: nullable(isStr),
    msg_id: optional(nullable(isStr)),
    consumed: optional(nullable(isInt)),
    metrics: optional((m): m is Record<string, WireNumber> => isObj(m) && Object.values(m).every(isWireNumber)),
    advantage: optional(nullable(isWireNumber)),
    response_tokens: optional(isInt),
    trained_tokens: optional(isInt),
    truncated: optional(isBool),
    empty_response: optional(isBool),
    task_index: optional(isInt),
    taskset_id: optional(isInt),
    response_hash: optional(isStr),
    updated: optional(isBool),
    error: optional(isStr),
  });

function parseJson(text: string): Obj & { type: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ProtocolError('not JSON');
  }
  need(hasFields(v, { type: isStr }), 'not a message object with a type');
  return v;
}

/** Validates a frame from the relay; throws ProtocolError when it is malformed. */
export function parseServerMessage(text: string): ServerMessage {
  const m = parseJson(text);
  switch (m.type) {
    case 'hello':
      need(hasFields(m, { type: oneOf(['hello']), protocol: isInt, relayVersion: isStr, instance: isStr }), 'hello: bad header');
      need(hasFields(m, { runs: arrayOf(isStr), roles: arrayOf(isStr), sources: arrayOf(isSourceInfo) }), 'hello: bad runs/roles/sources');
      need(hasFields(m, { heartbeatSeconds: isNum }) && m.heartbeatSeconds > 0, 'hello: bad heartbeatSeconds');
      return m;
    case 'sources':
      need(hasFields(m, { type: oneOf(['sources']), sources: arrayOf(isSourceInfo) }), 'sources: bad list');
      return m;
    case 'experiences':
      need(
        hasFields(m, { type: oneOf(['experiences']), source: isStr, run: isStr, cursor: isCursor, rows: arrayOf(isExperienceRow) }),
        'experiences: bad message',
      );
      return m;
    case 'experience-detail':
      need(hasFields(m, { type: oneOf(['experience-detail']), request: isInt, source: isStr, id: isInt }), 'experience-detail: bad header');
      need(hasFields(m, { detail: optional(isObj), error: optional(isStr) }), 'experience-detail: bad detail');
      return m;
    case 'tokens':
      need(
        hasFields(m, { type: oneOf(['tokens']), request: isInt, source: isStr, id: isInt, error: isStr }),
        'tokens: a JSON tokens message is an error with request, source and id',
      );
      return m;
    case 'heartbeat':
      need(hasFields(m, { type: oneOf(['heartbeat']), time: isNum, caughtUp: isBool }), 'heartbeat: bad time or caughtUp');
      return m;
    case 'error':
      need(hasFields(m, { type: oneOf(['error']), code: isStr, message: isStr, source: optional(isStr) }), 'error: bad message');
      return m;
    case 'detail':
      need(isDetailMessage(m), 'detail: bad message');
      return m;
    case 'timeline':
      need(
        hasFields(m, { type: oneOf(['timeline']), request: isInt, window: optional(isObj), none: optional(isBool), error: optional(isStr) }),
        'timeline: bad message',
      );
      return m;
    case 'tasks':
      need(isTasksMessage(m), 'tasks: bad table');
      return m;
    default:
      throw new ProtocolError(`unknown message type '${String(m.type).slice(0, 40)}'`);
  }
}

/** Validates a frame from a client; throws ProtocolError when it is malformed. */
export function parseClientMessage(text: string): ClientMessage {
  const m = parseJson(text);
  if (m.type === 'experience') {
    need(hasFields(m, { type: oneOf(['experience']), request: isInt, source: isStr, id: isInt }), 'experience: needs request, source and id');
    return m;
  }
  if (m.type === 'tokens') {
    need(hasFields(m, { type: oneOf(['tokens']), request: isInt, source: isStr, id: isInt }), 'tokens: needs request, source and id');
    return m;
  }
  if (m.type === 'tasks') {
    need(isTasksRequest(m), 'tasks: needs request and source');
    return m;
  }
  if (m.type === 'detail') {
    need(isDetailRequest(m), 'detail: needs request, source, tag, from ≤ to, maxPoints and cursor');
    return m;
  }
  if (m.type === 'timeline') {
    need(
      hasFields(m, { type: oneOf(['timeline']), request: isInt, run: isStr, from: nullable(isNum), to: nullable(isNum), maxEvents: isInt }) &&
        m.maxEvents > 0 &&
        m.maxEvents <= MAX_TIMELINE_EVENTS,
      `timeline: needs request, run, from, to and 0 < maxEvents ≤ ${MAX_TIMELINE_EVENTS}`,
    );
    return m;
  }
  need(hasFields(m, { type: oneOf(['subscribe']) }), `unknown message type '${String(m.type).slice(0, 40)}'`);
  need(hasFields(m, { protocol: isInt }), 'subscribe: missing protocol version');
  need(hasFields(m, { runs: optional(arrayOf(isStr)) }), 'subscribe: runs must be a list of strings');
  need(hasFields(m, { cursors: arrayOf(isCursor) }), 'subscribe: cursors must be a list of {source, offset, fid?}');
  need(hasFields(m, { experiences: optional(isBool) }), 'subscribe: experiences must be a boolean');
  need(isEnvelopeRequest(m.envelope), 'subscribe: envelope must be {buckets}');
  return m;
}
