// The tasks table on the wire: a client asks for an experience source's table of tasks × model
// versions (`tasks`), and the relay answers with it, folded on the node (one pass over the
// buffer, then only the rows that came or changed since the last ask), so the editor receives a
// few thousand cells, never the rows. Asked again, it is the same table brought up to date: a
// client that shows it live asks again on each heartbeat.
import { arrayOf, hasFields, isInt, isNum, isObj, isStr, optional } from '../base/validate';
import { type WireNumber, isWireNumber } from './wire-values';

/** Asks for the tasks table of an experience source (read-only; answered by a `tasks` message). */
export interface TasksRequestMessage {
  type: 'tasks';
  request: number;
  source: string;
}

/** One task at one model version: the sums its class and the findings need, and example rows. */
export interface TaskCellWire {
  task: string;
  version: number;
  /** Members with a finite reward, their sum and the highest. */
  n: number;
  sum: number;
  max: number;
  /** Members with a response length, and its sum. */
  lenN: number;
  lenSum: number;
  /** Per reward part (the rows' numeric metrics): [members, sum]. */
  parts: Record<string, [number, number]>;
  /** Example row ids: the best- and the worst-rewarded member, the longest response. */
  best: number;
  bestReward: number;
  worst: number;
  worstReward: number;
  longest: number;
  longestLen: number;
}

/** What the relay could not place, or placed with a doubt: counted and named, never dropped silently. */
export interface TaskTableNotes {
  /** Rows with neither `task_index` nor `task_id`. */
  noTask: number;
  /** Rows without a model version. */
  noVersion: number;
  /** Rows whose reward is absent, NaN or infinite. */
  noReward: number;
  /** Rows whose model version is below one an earlier row had (placed at their own version). */
  versionsOutOfOrder: number;
}

/** A response (by its fingerprint, ExperienceRow.response_hash) that two or more tasks gave at one model version. */
export interface SameResponseWire {
  version: number;
  hash: string;
  /** Rows that gave it (a sketch's count: at most this many). */
  rows: number;
  /** Distinct tasks that gave it (counted up to 64). */
  tasks: number;
  /** Example rows, of different tasks. */
  examples: number[];
}

export interface TaskTableWire {
  /** Rows read (a changed row counts once). */
  rows: number;
  /** Rows keyed by their taskset row (stable) and by eid.task (their batch position). */
  stable: number;
  unstable: number;
  /** The finite rewards' range (±Infinity before the first). */
  lo: WireNumber;
  hi: WireNumber;
  notes: TaskTableNotes;
  cells: TaskCellWire[];
  /** Rows that carried a response fingerprint (0: the rows say nothing of their texts). */
  hashed: number;
  /** Per model version, the responses several tasks gave (mode collapse shows here). */
  same: SameResponseWire[];
}

export interface TasksMessage {
  type: 'tasks';
  request: number;
  source: string;
  table?: TaskTableWire;
  /** Why there is no table (no such source, not an experience source…). */
  error?: string;
}

const isPart = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every((x) => isNum(x));

const isCell = (v: unknown): v is TaskCellWire =>
  hasFields(v, {
    task: isStr,
    version: isInt,
    n: isInt,
    sum: isNum,
    max: isNum,
    lenN: isInt,
    lenSum: isNum,
    parts: (p): p is Record<string, [number, number]> => isObj(p) && Object.values(p).every(isPart),
    best: isInt,
    bestReward: isNum,
    worst: isInt,
    worstReward: isNum,
    longest: isInt,
    longestLen: isNum,
  });

const isNotes = (v: unknown): v is TaskTableNotes => hasFields(v, { noTask: isInt, noVersion: isInt, noReward: isInt, versionsOutOfOrder: isInt });

const isSame = (v: unknown): v is SameResponseWire => hasFields(v, { version: isInt, hash: isStr, rows: isInt, tasks: isInt, examples: arrayOf(isInt) });

const isTable = (v: unknown): v is TaskTableWire =>
  hasFields(v, {
    rows: isInt,
    stable: isInt,
    unstable: isInt,
    lo: isWireNumber,
    hi: isWireNumber,
    notes: isNotes,
    cells: arrayOf(isCell),
    hashed: isInt,
    same: arrayOf(isSame),
  });

export const isTasksRequest = (m: unknown): m is TasksRequestMessage =>
  hasFields(m, { type: (t): t is 'tasks' => t === 'tasks', request: isInt, source: isStr });

export const isTasksMessage = (m: unknown): m is TasksMessage =>
  hasFields(m, { type: (t): t is 'tasks' => t === 'tasks', request: isInt, source: isStr, table: optional(isTable), error: optional(isStr) });
