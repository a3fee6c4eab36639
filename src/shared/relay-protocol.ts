// The relay ↔ client wire protocol (`agentrl relay` on a GPU node ↔ `agentrl tail` / the
// extension's metrics view). JSON text frames over a WebSocket. Versioned: a client sends
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
}

/**
 * A stable position in one source.
 * - tfevents / log: `offset` = byte offset of the next unread record / line, `fid` = file
 *   identity (device:inode); a different fid means the file was replaced: read from 0.
 * - sql: `fid` = `<table>@<tracker>.<generation>`, `offset` = last row id × 2^21 + the batches
 *   sent since that row (re-sent changed rows, ExperienceRow.updated, do not move the row id):
 *   the relay resumes at that row and, when it is the same relay process (tracker), after the
 *   changes of that snapshot generation. Relays before row updates: `fid` = table name,
 *   `offset` = last row id.
 * - serve: `offset` = sequence number of the last /metrics sample, `fid` = relay instance
 *   (a live gauge: after a relay restart only new samples are sent).
 */
export interface Cursor {
  source: string;
  offset: number;
  fid?: string;
}

/** A JSON-safe float: non-finite values travel as strings. */
export type WireNumber = number | 'NaN' | 'Infinity' | '-Infinity';

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
 * A batch of scalar points of one source, columnar: point i is
 * (tags[tag[i]], step[i], wallTime[i], value[i]).
 */
export interface PointsMessage {
  type: 'points';
  source: string;
  run: string;
  role: string;
  tags: string[];
  tag: number[];
  step: number[];
  wallTime: number[];
  value: WireNumber[];
  cursor: Cursor;
}

/**
 * A row of the SQL experience buffer (experience_bytes is not sent).
 *
 * The fields after msg_id were added within protocol 1 (older relays leave them out): a client
 * that predates them ignores them, and drops an `updated` row as a repeat of one it holds —
 * which is why they need no version bump.
 */
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
  /** A row sent before whose reward or consumed state changed: it replaces that row. */
  updated?: boolean;
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
   * heartbeat. Absent from older relays.
   */
  caughtUp?: boolean;
}

export type ErrorCode =
  | 'bad-message'
  | 'unsupported-version'
  | 'source-error'
  | 'slow-client'
  | 'shutting-down';

export interface ErrorMessage {
  type: 'error';
  code: ErrorCode;
  message: string;
  source?: string;
}

export type ServerMessage =
  | HelloMessage
  | SourcesMessage
  | PointsMessage
  | ExperiencesMessage
  | ExperienceDetailMessage
  | HeartbeatMessage
  | ErrorMessage;

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
}

/** Asks for the content of one row of an SQL source (read-only; answered by `experience-detail`). */
export interface ExperienceRequestMessage {
  type: 'experience';
  request: number;
  source: string;
  /** The row's id (ExperienceRow.id). */
  id: number;
}

export type ClientMessage = SubscribeMessage | ExperienceRequestMessage;

// ---- numbers -------------------------------------------------------------------------

export function toWireNumber(v: number): WireNumber {
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

export function fromWireNumber(v: WireNumber): number {
  return typeof v === 'number' ? v : v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : -Infinity;
}

// ---- run-time validation -------------------------------------------------------------

export class ProtocolError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isWireNum = (v: unknown): v is WireNumber => isNum(v) || v === 'NaN' || v === 'Infinity' || v === '-Infinity';
const arrOf = <T>(v: unknown, f: (x: unknown) => x is T): v is T[] => Array.isArray(v) && v.every(f);
const isNullable = <T>(f: (x: unknown) => x is T) => (x: unknown): x is T | null => x === null || f(x);

function need(cond: boolean, what: string): asserts cond {
  if (!cond) throw new ProtocolError(what);
}

export function isCursor(v: unknown): v is Cursor {
  return isObj(v) && isStr(v.source) && isInt(v.offset) && v.offset >= 0 && (v.fid === undefined || isStr(v.fid));
}

const SOURCE_KINDS: readonly string[] = ['tfevents', 'log', 'sql', 'serve', 'jsonl'];
function isSourceInfo(v: unknown): v is SourceInfo {
  return isObj(v) && isStr(v.id) && isStr(v.kind) && SOURCE_KINDS.includes(v.kind) && isStr(v.run) && isStr(v.role) && isStr(v.path);
}

function isExperienceRow(v: unknown): v is ExperienceRow {
  return (
    isObj(v) &&
    isInt(v.id) &&
    isStr(v.table) &&
    isNullable(isStr)(v.task_id) &&
    isNullable(isInt)(v.run_id) &&
    isNullable(isInt)(v.model_version) &&
    isNullable(isWireNum)(v.reward) &&
    isNullable(isStr)(v.timestamp) &&
    (v.msg_id === undefined || isNullable(isStr)(v.msg_id)) &&
    (v.consumed === undefined || isNullable(isInt)(v.consumed)) &&
    (v.metrics === undefined || (isObj(v.metrics) && Object.values(v.metrics).every(isWireNum))) &&
    (v.advantage === undefined || isNullable(isWireNum)(v.advantage)) &&
    (v.updated === undefined || typeof v.updated === 'boolean')
  );
}

function parseJson(text: string): Obj {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ProtocolError('not JSON');
  }
  need(isObj(v) && isStr(v.type), 'not a message object with a type');
  return v;
}

/** Validates a frame from the relay; throws ProtocolError when it is malformed. */
export function parseServerMessage(text: string): ServerMessage {
  const m = parseJson(text);
  switch (m.type) {
    case 'hello':
      need(isInt(m.protocol) && isStr(m.relayVersion) && isStr(m.instance), 'hello: bad header');
      need(arrOf(m.runs, isStr) && arrOf(m.roles, isStr) && arrOf(m.sources, isSourceInfo), 'hello: bad runs/roles/sources');
      need(isNum(m.heartbeatSeconds) && m.heartbeatSeconds > 0, 'hello: bad heartbeatSeconds');
      return m as unknown as HelloMessage;
    case 'sources':
      need(arrOf(m.sources, isSourceInfo), 'sources: bad list');
      return m as unknown as SourcesMessage;
    case 'points': {
      need(isStr(m.source) && isStr(m.run) && isStr(m.role) && isCursor(m.cursor), 'points: bad header');
      need(arrOf(m.tags, isStr), 'points: bad tags');
      const n = Array.isArray(m.tag) ? m.tag.length : -1;
      need(arrOf(m.tag, isInt) && (m.tag as number[]).every((i) => i >= 0 && i < (m.tags as string[]).length), 'points: bad tag index');
      need(arrOf(m.step, isInt) && (m.step as number[]).length === n, 'points: bad steps');
      need(arrOf(m.wallTime, isNum) && (m.wallTime as number[]).length === n, 'points: bad wall times');
      need(arrOf(m.value, isWireNum) && (m.value as WireNumber[]).length === n, 'points: bad values');
      return m as unknown as PointsMessage;
    }
    case 'experiences':
      need(isStr(m.source) && isStr(m.run) && isCursor(m.cursor) && arrOf(m.rows, isExperienceRow), 'experiences: bad message');
      return m as unknown as ExperiencesMessage;
    case 'experience-detail':
      need(isInt(m.request) && isStr(m.source) && isInt(m.id), 'experience-detail: bad header');
      need((m.detail === undefined || isObj(m.detail)) && (m.error === undefined || isStr(m.error)), 'experience-detail: bad detail');
      return m as unknown as ExperienceDetailMessage;
    case 'heartbeat':
      need(isNum(m.time), 'heartbeat: bad time');
      return m as unknown as HeartbeatMessage;
    case 'error':
      need(isStr(m.code) && isStr(m.message) && (m.source === undefined || isStr(m.source)), 'error: bad message');
      return m as unknown as ErrorMessage;
    default:
      throw new ProtocolError(`unknown message type '${String(m.type).slice(0, 40)}'`);
  }
}

/** Validates a frame from a client; throws ProtocolError when it is malformed. */
export function parseClientMessage(text: string): ClientMessage {
  const m = parseJson(text);
  if (m.type === 'experience') {
    need(isInt(m.request) && isStr(m.source) && isInt(m.id), 'experience: needs request, source and id');
    return m as unknown as ExperienceRequestMessage;
  }
  need(m.type === 'subscribe', `unknown message type '${String(m.type).slice(0, 40)}'`);
  need(isInt(m.protocol), 'subscribe: missing protocol version');
  need(m.runs === undefined || arrOf(m.runs, isStr), 'subscribe: runs must be a list of strings');
  need(arrOf(m.cursors, isCursor), 'subscribe: cursors must be a list of {source, offset, fid?}');
  need(m.experiences === undefined || typeof m.experiences === 'boolean', 'subscribe: experiences must be a boolean');
  return m as unknown as SubscribeMessage;
}
