// One client's reader of one SQL experience table: first the rows it has not had (id past its
// cursor), then the rows it has had whose reward or consumed state changed since (serve mode
// rewards a row when /feedback arrives, after it was written; the trainer's read bumps
// `consumed`). Changes come from the snapshot's RowChangeTracker, so each costs a read of the
// changed rows only. Changed rows go out with `updated: true` and a cursor that is past the
// previous batch but still resumes at the last new row (relay-protocol.ts, Cursor).
import type { Cursor, ExperienceRow, ExperiencesMessage, SourceInfo } from '../../shared/relay-protocol';
import { toWireNumber } from '../../shared/relay-protocol';
import { summarizeExperience } from './experience-summary';
import { SqlExec, quoteIdent } from './row-changes';
import type { Batch, SourceReader } from './source';

const ROWS_PER_BATCH = 2000;
/** Rows per batch when each carries a summary read from its experience_bytes. */
const SUMMARY_ROWS_PER_BATCH = 500;
/** First bytes of experience_bytes read with a row (Trinity's pickled metadata mostly fits). */
export const HEAD_BYTES = 16 * 1024;
/** Rows re-sent when a client resumes, for the changes it missed while away. */
export const RESUME_ROWS = 1000;
/** Changed rows waiting to be re-sent, at most (more: the oldest are dropped). */
const MAX_PENDING = 200_000;

export interface SqlTableHost {
  readonly info: SourceInfo;
  readonly table: string;
  /** The current database (undefined: not readable now). */
  database(): Promise<SqlExec | undefined>;
  /** Generation of the snapshot `database()` returned last. */
  generation(): number;
  /** Row ids changed after a generation; undefined when they are no longer known. */
  changedSince(gen: number): number[] | undefined;
}

/** The row id a cursor resumes after (0: from the start). */
export function resumeRowId(cursor: Cursor | undefined, table: string): number {
  if (!cursor) return 0;
  if (cursor.fid === table) return cursor.offset;
  const at = cursor.fid?.startsWith(`${table}@`) ? Number(cursor.fid.slice(table.length + 1)) : NaN;
  return Number.isSafeInteger(at) && at >= 0 ? at : 0;
}

function intOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

export class SqlTableReader implements SourceReader {
  private last: number;
  private seenGen: number | undefined;
  private readonly pending = new Set<number>();
  private seq = 0;
  private cols: { msgId: boolean; consumed: boolean; bytes: boolean } | undefined;

  constructor(
    private readonly host: SqlTableHost,
    cursor: Cursor | undefined,
  ) {
    this.last = resumeRowId(cursor, host.table);
  }

  async next(): Promise<Batch | undefined> {
    const db = await this.host.database();
    if (!db) return undefined;
    this.cols ??= this.columns(db);
    this.collectChanges(db);
    const limit = this.cols.bytes ? SUMMARY_ROWS_PER_BATCH : ROWS_PER_BATCH;
    const fresh = this.select(db, `id > ? ORDER BY id LIMIT ${limit}`, [this.last]);
    if (fresh.length) {
      this.last = fresh[fresh.length - 1].id;
      return this.batch(fresh, { source: this.host.info.id, fid: this.host.table, offset: this.last });
    }
    if (!this.pending.size) return undefined;
    const ids: number[] = [];
    for (const id of this.pending) {
      if (ids.length >= limit) break;
      ids.push(id);
      this.pending.delete(id);
    }
    const rows = this.select(db, `id IN (${ids.map(() => '?').join(',')}) ORDER BY id`, ids).map((r) => ({ ...r, updated: true }));
    if (!rows.length) return this.next();
    // Date-based, so a batch after a relay restart is still past the one a client holds.
    this.seq = Math.max(this.seq + 1, Date.now());
    return this.batch(rows, { source: this.host.info.id, fid: `${this.host.table}@${this.last}`, offset: this.seq });
  }

  close(): void {
    this.pending.clear();
  }

  /** Queues the delivered rows that changed since this reader last looked. */
  private collectChanges(db: SqlExec): void {
    const gen = this.host.generation();
    if (this.seenGen === undefined) {
      // A resumed client may have missed changes while away: re-send its most recent rows.
      if (this.last > 0) this.queueRecent(db);
    } else if (gen !== this.seenGen) {
      const ids = this.host.changedSince(this.seenGen);
      if (ids === undefined) this.queueRecent(db);
      else for (const id of ids) if (id <= this.last) this.queue(id);
    }
    this.seenGen = gen;
  }

  private queueRecent(db: SqlExec): void {
    const res = db.exec(`SELECT id FROM ${quoteIdent(this.host.table)} WHERE id <= ? ORDER BY id DESC LIMIT ${RESUME_ROWS}`, [this.last])[0];
    for (const [id] of [...(res?.values ?? [])].reverse()) this.queue(Number(id));
  }

  private queue(id: number): void {
    this.pending.delete(id); // re-queued at the end: oldest first when dropping
    this.pending.add(id);
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.values().next().value!);
  }

  private columns(db: SqlExec): { msgId: boolean; consumed: boolean; bytes: boolean } {
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(this.host.table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
    return { msgId: cols.includes('msg_id'), consumed: cols.includes('consumed'), bytes: cols.includes('experience_bytes') };
  }

  private select(db: SqlExec, where: string, params: unknown[]): ExperienceRow[] {
    const c = this.cols!;
    const extra = [c.msgId ? 'msg_id' : 'NULL', c.consumed ? 'consumed' : 'NULL', c.bytes ? `length(experience_bytes), substr(experience_bytes, 1, ${HEAD_BYTES})` : 'NULL, NULL'];
    const t = quoteIdent(this.host.table);
    const res = db.exec(`SELECT id, task_id, run_id, model_version, reward, timestamp, ${extra.join(', ')} FROM ${t} WHERE ${where}`, params)[0];
    return (res?.values ?? []).map((v) => {
      const id = Number(v[0]);
      const row: ExperienceRow = {
        id,
        table: this.host.table,
        task_id: v[1] === null ? null : String(v[1]),
        run_id: intOrNull(v[2]),
        model_version: intOrNull(v[3]),
        reward: v[4] === null || v[4] === undefined ? null : toWireNumber(Number(v[4])),
        timestamp: v[5] === null ? null : String(v[5]),
      };
      if (c.msgId) row.msg_id = v[6] === null ? null : String(v[6]);
      if (c.consumed) row.consumed = intOrNull(v[7]);
      if (v[9] instanceof Uint8Array) {
        const read = (start: number, len: number): Uint8Array | undefined => {
          const r = db.exec(`SELECT substr(experience_bytes, ?, ?) FROM ${t} WHERE id = ?`, [start + 1, len, id])[0]?.values[0]?.[0];
          return r instanceof Uint8Array ? r : undefined;
        };
        const s = summarizeExperience(v[9], Number(v[8]), read);
        if (s.metrics) row.metrics = s.metrics;
        if (s.advantage !== undefined) row.advantage = s.advantage;
      }
      return row;
    });
  }

  private batch(rows: ExperienceRow[], cursor: Cursor): ExperiencesMessage {
    return { type: 'experiences', source: this.host.info.id, run: this.host.info.run, rows, cursor };
  }
}
