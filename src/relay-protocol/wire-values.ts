// What every relay message is built of: the cursor (a position in a source) and the JSON-safe
// float. Apart from the messages (messages.ts re-exports these) so that the envelope messages
// (envelope.ts) use them without an import circle.
import { hasFields, isInt, isNum, isStr, optional } from '../base/validate';

/**
 * A stable position in one source.
 * - tfevents / log: `offset` = byte offset of the next unread record / line, `fid` = file
 *   identity (device:inode); a different fid means the file was replaced: read from 0.
 * - sql: `fid` = `<table>@<tracker>.<generation>/<db>~<window>`, `offset` = last row id × 2^21 +
 *   the batches sent since that row (re-sent changed rows, ExperienceRow.updated, do not move the
 *   row id): the relay resumes at that row and, when it is the same relay process (tracker),
 *   after the changes of that snapshot generation. `<db>` is the database file's device:inode
 *   (another file: read from its first row). `<window>` describes the client's last 1024 rows
 *   (`<first group, base 36>:<8 hex digits per group of 4 row ids>`, FNV-1a of each row's id,
 *   reward and consumed, src/relay/sources/row-window.ts): another relay process re-sends only
 *   the groups that differ now.
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

export const isWireNumber = (v: unknown): v is WireNumber => isNum(v) || v === 'NaN' || v === 'Infinity' || v === '-Infinity';

export function isCursor(v: unknown): v is Cursor {
  return hasFields(v, { source: isStr, offset: isInt, fid: optional(isStr) }) && v.offset >= 0;
}

export function toWireNumber(v: number): WireNumber {
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

export function fromWireNumber(v: WireNumber): number {
  return typeof v === 'number' ? v : v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : -Infinity;
}
