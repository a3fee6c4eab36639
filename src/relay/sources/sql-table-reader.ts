// One client's reader of one SQL experience table: first the rows it has not had (id past its
// cursor), then the rows it has had whose reward or consumed state changed since (serve mode
// rewards a row when /feedback arrives, after it was written; the trainer's read bumps
// `consumed`). Changes come from the database's RowChangeTracker, so each costs a read of the
// changed rows only. A query that a writer tore (TornRead) is dropped and read again later. Changed rows go out with `updated: true` and a cursor that is past the
// previous batch and resumes at both the last new row and the last change delivered
// (src/relay-protocol/messages.ts, Cursor), so a client that reconnects gets exactly what it missed.
import type { Cursor, ExperienceRow, ExperiencesMessage, SourceInfo } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';
import { summarizeExperience } from './experience-summary';
import { SqlExec, quoteIdent } from './row-changes';
import type { Batch, SourceReader } from './source';
import { TornRead } from './sqlite-db';

const ROWS_PER_BATCH = 2000;
/** Rows per batch when each carries a summary read from its experience_bytes. */
const SUMMARY_ROWS_PER_BATCH = 500;
/** The fewest rows a batch shrinks to after torn reads (a busy writer commits every ~100 ms). */
const MIN_ROWS_PER_BATCH = 25;
/** First bytes of experience_bytes read with a row (Trinity's pickled metadata mostly fits). */
export const HEAD_BYTES = 16 * 1024;
/** A blob up to this size is read whole with its row (SQLite loads all of it for substr anyway),
 *  so its summary needs no second query for the tensors at its end. */
export const WHOLE_BYTES = 1024 * 1024;
/** Rows re-sent when a client resumes from another relay process (its changes are unknown here). */
export const RESUME_ROWS = 1000;
/** A cursor offset is last row id × ROW_SCALE + a batch count (update batches do not move the row id). */
export const ROW_SCALE = 2 ** 21;
/** Changed rows waiting to be re-sent, at most (more: the oldest are dropped). */
const MAX_PENDING = 200_000;

export interface SqlTableHost {
  readonly info: SourceInfo;
  readonly table: string;
  /** The current database (undefined: not readable now); `behind`: this reader has rows to catch up on. */
  database(behind: boolean): Promise<SqlExec | undefined>;
  /** Generation of the snapshot `database()` returned last. */
  generation(): number;
  /** Names the change log the generations count in (one per database, per relay process). */
  tracker: string;
  /** Row ids changed after a generation; undefined when they are no longer known. */
  changedSince(gen: number): number[] | undefined;
}

/** Where a cursor resumes: after row `last`, and after the changes of generation `gen` of `tracker`. */
export function resumePoint(cursor: Cursor | undefined, table: string): { last: number; tracker?: string; gen?: number } {
  if (!cursor) return { last: 0 };
  if (cursor.fid === table) return { last: cursor.offset }; // a relay before row updates
  const m = cursor.fid?.startsWith(`${table}@`) ? /^([0-9a-f]+)\.(\d+)$/.exec(cursor.fid.slice(table.length + 1)) : null;
  if (!m) return { last: 0 };
  return { last: Math.floor(cursor.offset / ROW_SCALE), tracker: m[1], gen: Number(m[2]) };
}

function intOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

export class SqlTableReader implements SourceReader {
  private last: number;
  /** The generation whose changes are collected into `pending` (undefined: none yet). */
  private seenGen: number | undefined;
  /** The generation whose changes have all been sent (what a resuming cursor names). */
  private deliveredGen: number;
  private readonly resumeGen: number | undefined;
  private readonly pending = new Set<number>();
  /** Batches sent since `last` last moved. */
  private count = 0;
  private cols: { msgId: boolean; consumed: boolean; bytes: boolean } | undefined;
  /** Rows per batch now: halved by each torn read, so a catch-up fits between a busy writer's commits. */
  private limit: number | undefined;
  /** The last read was cut short (a full batch, or torn): there is more to read now. */
  private behind = false;
  /** Changed rows go next (a batch of new rows went out while changes were waiting). */
  private changesTurn = false;

  constructor(
    private readonly host: SqlTableHost,
    cursor: Cursor | undefined,
  ) {
    const at = resumePoint(cursor, host.table);
    this.last = at.last;
    this.resumeGen = at.tracker === host.tracker ? at.gen : undefined;
    this.deliveredGen = this.resumeGen ?? 0;
  }

  async next(): Promise<Batch | undefined> {
    // Behind: a batch was cut short, or the source has a view this reader has not read yet.
    const db = await this.host.database(this.behind || this.seenGen !== this.host.generation());
    if (!db) return undefined;
    try {
      const b = this.read(db);
      if (this.limit !== undefined) this.limit = Math.min(this.limit * 2, this.maxLimit());
      return b;
    } catch (e) {
      // A writer moved the files under a query: nothing was taken; the next wake reads again,
      // in a smaller batch.
      if (!(e instanceof TornRead)) throw e;
      this.limit = Math.max(MIN_ROWS_PER_BATCH, Math.floor((this.limit ?? this.maxLimit()) / 2));
      this.behind = true;
      return undefined;
    }
  }

  private maxLimit(): number {
    return this.cols?.bytes === false ? ROWS_PER_BATCH : SUMMARY_ROWS_PER_BATCH;
  }

  private read(db: SqlExec): Batch | undefined {
    this.cols ??= this.columns(db);
    this.collectChanges(db);
    const limit = this.limit ?? this.maxLimit();
    // New rows and changed rows take turns: under a writer that never pauses there are always
    // new rows, and a change (serve mode's reward) must not wait for the writer to stop.
    if (this.changesTurn) {
      this.changesTurn = false;
      const changed = this.changedBatch(db, limit);
      if (changed) return changed;
    }
    const fresh = this.select(db, `id > ? ORDER BY id LIMIT ${limit}`, [this.last]);
    this.behind = fresh.length === limit;
    if (fresh.length) {
      this.last = fresh[fresh.length - 1].id;
      this.count = 0;
      this.changesTurn = this.pending.size > 0;
      return this.batch(fresh);
    }
    return this.changedBatch(db, limit);
  }

  /** The next changed rows (already delivered once), sent again with `updated: true`. */
  private changedBatch(db: SqlExec, limit: number): Batch | undefined {
    while (this.pending.size) {
      const ids: number[] = [];
      for (const id of this.pending) {
        if (ids.length >= limit) break;
        ids.push(id);
      }
      const rows = this.select(db, `id IN (${ids.map(() => '?').join(',')}) ORDER BY id`, ids).map((r) => ({ ...r, updated: true }));
      for (const id of ids) this.pending.delete(id); // only once read: a torn read leaves them queued
      if (!this.pending.size) this.deliveredGen = this.seenGen!;
      if (!rows.length) continue;
      this.count = Math.min(this.count + 1, ROW_SCALE - 1);
      return this.batch(rows);
    }
    return undefined;
  }

  close(): void {
    this.pending.clear();
  }

  /** Queues the delivered rows that changed since this reader last looked. */
  private collectChanges(db: SqlExec): void {
    const gen = this.host.generation();
    const since = this.seenGen ?? this.resumeGen;
    if (since !== undefined && since !== gen) {
      const ids = this.host.changedSince(since);
      if (ids === undefined) this.queueRecent(db);
      else for (const id of ids) if (id <= this.last) this.queue(id);
    } else if (since === undefined && this.last > 0) {
      // Resumed from another relay process (or an older one): which rows changed while the
      // client was away is not known here, so its most recent rows are sent again.
      this.queueRecent(db);
    }
    this.seenGen = gen;
    if (!this.pending.size) this.deliveredGen = gen;
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
    const bytes = `length(experience_bytes), CASE WHEN length(experience_bytes) <= ${WHOLE_BYTES} THEN experience_bytes ELSE substr(experience_bytes, 1, ${HEAD_BYTES}) END`;
    const extra = [c.msgId ? 'msg_id' : 'NULL', c.consumed ? 'consumed' : 'NULL', c.bytes ? bytes : 'NULL, NULL'];
    const t = quoteIdent(this.host.table);
    const sql = `SELECT id, task_id, run_id, model_version, reward, timestamp, ${extra.join(', ')} FROM ${t} WHERE ${where}`;
    const out: ExperienceRow[] = [];
    // Row by row where the database can: each blob is summarized and dropped before the next.
    if (db.each) db.each(sql, params, (v) => out.push(this.rowOf(db, v)));
    else for (const v of db.exec(sql, params)[0]?.values ?? []) out.push(this.rowOf(db, v));
    return out;
  }

  private rowOf(db: SqlExec, v: unknown[]): ExperienceRow {
    const c = this.cols!;
    const t = quoteIdent(this.host.table);
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
  }

  private batch(rows: ExperienceRow[]): ExperiencesMessage {
    // The generation is in the fid: a batch of another generation is new to the client whatever its offset.
    const cursor: Cursor = { source: this.host.info.id, fid: `${this.host.table}@${this.host.tracker}.${this.deliveredGen}`, offset: this.last * ROW_SCALE + this.count };
    return { type: 'experiences', source: this.host.info.id, run: this.host.info.run, rows, cursor };
  }
}
