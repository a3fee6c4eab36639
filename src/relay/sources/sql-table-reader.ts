// One client's reader of one SQL experience table: first the rows it has not had (id past its
// cursor), then the rows it has had whose reward or consumed state changed since (serve mode
// rewards a row when /feedback arrives, after it was written; the trainer's read bumps
// `consumed`). Changes come from the database's RowChangeTracker, so each costs a read of the
// changed rows only. A query that a writer tore (TornRead) is dropped and read again later. Changed rows go out with `updated: true` and a cursor that is past the
// previous batch and resumes at both the last new row and the last change delivered
// (src/relay-protocol/wire-values.ts, Cursor), so a client that reconnects gets exactly what it missed. The
// cursor also names the database file (a database replaced under the same name is read from its
// first row) and carries the window of the client's recent rows (row-window.ts): a relay that did
// not send them re-sends only those that changed meanwhile. Rows come in strictly increasing
// id order or not at all: a corrupt b-tree that walks in circles ends the read with an error
// naming the damage, never a row twice or a cursor moving backwards.
import type { Cursor, ExperienceRow, ExperiencesMessage, SourceInfo } from '../../relay-protocol/messages';
import { fromWireNumber, toWireNumber } from '../../relay-protocol/messages';
import { valueText } from '../../base/value-text';
import { type SummaryTensors, summarizeExperience } from '../formats/trxp';
import { SqlExec, quoteIdent } from '../../sqlite/row-changes';
import { EncodedWindow, RowState, RowWindow, changedBuckets, parseWindow, windowBuckets, BUCKET_ROWS } from './row-window';
import type { Batch, SourceReader } from './source';
import { TornRead } from '../../sqlite/sqlite-db';
import { NotScannable, type ScanSpec } from '../../sqlite/table-scan';

const ROWS_PER_BATCH = 2000;
/** Rows per batch when each carries a summary read from its experience_bytes. */
const SUMMARY_ROWS_PER_BATCH = 500;
/** Rows per batch of the tasks fold (a few microseconds each: a batch's fixed costs — the view's
 *  checks, the walk down the b-tree — are spread over more of them). */
const FOLD_ROWS_PER_BATCH = 2000;
/** The fewest rows a batch shrinks to after torn reads (a busy writer commits every ~100 ms). */
const MIN_ROWS_PER_BATCH = 25;
/** First bytes of experience_bytes read with a row (Trinity's pickled metadata mostly fits). */
const HEAD_BYTES = 16 * 1024;
/** A blob up to this size is read whole with its row (SQLite loads all of it for substr anyway),
 *  so its summary needs no second query for the tensors at its end. */
const WHOLE_BYTES = 1024 * 1024;
/** Rows re-sent when a client resumes from another relay process (its changes are unknown here). */
const RESUME_ROWS = 1000;
/** A cursor offset is last row id × ROW_SCALE + a batch count (update batches do not move the row id). */
export const ROW_SCALE = 2 ** 21;
/** Changed rows waiting to be re-sent, at most (more: the oldest are dropped). */
const MAX_PENDING = 200_000;
/** Bytes of pickled metadata a batch decodes at most: past it the batch ends early (the rest is the next batch). */
const BATCH_DECODE_BYTES = 16 * 1024 * 1024;

/** Thrown from a row callback to end a query early (its rows so far are kept). */
const ENOUGH = new Error('enough rows for one batch');

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
  /** Identity (device:inode) of the database file as of the view `database()` returned last. */
  databaseId(): string;
  /** What is wrong with the table's b-tree, when its rows came out of order (a diagnosis for the error). */
  diagnose?(): string | undefined;
  /**
   * The rows with id > `after` read from the table's pages (table-scan.ts) on the view `database()`
   * returned last: what the SELECT of the new rows gives, at a fraction of its cost. Throws
   * NotScannable when the table cannot be read so (the SELECT serves), TornRead as a query does.
   */
  scan?(after: number, spec: ScanSpec, row: (values: unknown[]) => void): void;
}

/** A resume point: after row `last`, and after the changes of generation `gen` of `tracker`, in database `db`, the client holding `window`. */
export interface ResumePoint {
  last: number;
  tracker?: string;
  gen?: number;
  db?: string;
  window?: EncodedWindow;
}

/** Where a cursor resumes (fid `<table>@<tracker>.<gen>[/<db id>][~<window>]`). */
export function resumePoint(cursor: Cursor | undefined, table: string): ResumePoint {
  if (!cursor) return { last: 0 };
  const m = cursor.fid?.startsWith(`${table}@`) ? /^([0-9a-f]+)\.(\d+)(?:\/(\d+:\d+))?(?:~(.*))?$/.exec(cursor.fid.slice(table.length + 1)) : null;
  if (!m) return { last: 0 };
  const window = m[4] === undefined ? undefined : parseWindow(m[4]);
  return { last: Math.floor(cursor.offset / ROW_SCALE), tracker: m[1], gen: Number(m[2]), ...(m[3] ? { db: m[3] } : {}), ...(window ? { window } : {}) };
}

/** A table whose rows came out of id order: its b-tree is damaged. */
class CorruptTable extends Error {}

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
  private resumeGen: number | undefined;
  /** The database file the cursor's rows came from (undefined: not named), then the one read. */
  private db: string | undefined;
  /** The client's recent rows as the cursor described them (a relay that did not send them). */
  private resumeWindow: EncodedWindow | undefined;
  /** The client's recent rows as sent (loaded from the database at the first read). */
  private window = new RowWindow();
  private windowLoaded = false;
  private readonly pending = new Set<number>();
  /** Batches sent since `last` last moved. */
  private count = 0;
  private cols: { msgId: boolean; consumed: boolean; bytes: boolean; scan?: ScanSpec } | undefined;
  /** Rows per batch now: halved by each torn read, so a catch-up fits between a busy writer's commits. */
  private limit: number | undefined;
  /** The last read was cut short (a full batch, or torn): there is more to read now. */
  private behind = false;
  /** Changed rows go next (a batch of new rows went out while changes were waiting). */
  private changesTurn = false;
  /** Metadata bytes decoded for the batch being read. */
  private decoded = 0;
  /** The last select stopped early (the batch's decode budget). */
  private cut = false;

  /**
   * `tensors`: what each row's summary reads of its tensors — `facts` for the experience list
   * (advantage, trained tokens), `shapes` for the tasks fold (the response length from the
   * safetensors header; only the row's first bytes are selected, never a whole blob).
   */
  constructor(
    private readonly host: SqlTableHost,
    cursor: Cursor | undefined,
    private readonly tensors: SummaryTensors = 'facts',
  ) {
    const at = resumePoint(cursor, host.table);
    this.last = at.last;
    this.resumeGen = at.tracker === host.tracker ? at.gen : undefined;
    this.deliveredGen = this.resumeGen ?? 0;
    this.db = at.db;
    this.resumeWindow = at.window;
  }

  /** Starts over at the first row: the database file is another one than the cursor's rows came from. */
  private restart(): void {
    this.last = 0;
    this.count = 0;
    this.resumeGen = undefined;
    this.seenGen = undefined;
    this.deliveredGen = 0;
    this.resumeWindow = undefined;
    this.pending.clear();
    this.window = new RowWindow();
    this.windowLoaded = false;
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
    return this.cols?.bytes === false ? ROWS_PER_BATCH : this.tensors === 'shapes' ? FOLD_ROWS_PER_BATCH : SUMMARY_ROWS_PER_BATCH;
  }

  private read(db: SqlExec): Batch | undefined {
    const file = this.host.databaseId();
    if (this.db !== undefined && this.db !== file) this.restart();
    this.db = file;
    this.cols ??= this.columns(db);
    this.collectChanges(db);
    if (!this.windowLoaded) {
      // What the client holds of its recent rows: as they are now, but for the changes queued (sent again).
      this.windowLoaded = true;
      this.window.hold(this.states(db, windowBuckets(this.last)[0] * BUCKET_ROWS, this.last), this.last);
    }
    const limit = this.limit ?? this.maxLimit();
    // New rows and changed rows take turns: under a writer that never pauses there are always
    // new rows, and a change (serve mode's reward) must not wait for the writer to stop.
    if (this.changesTurn) {
      this.changesTurn = false;
      const changed = this.changedBatch(db, limit);
      if (changed) return changed;
    }
    const fresh = this.select(db, `id > ? ORDER BY id LIMIT ${limit}`, [this.last], this.last);
    this.behind = fresh.length === limit || this.cut;
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
      // Resumed from another relay process: which rows changed while the client was away is not
      // known here; its window says what it holds of its recent rows, so those that differ now
      // are sent again (without a window — an older relay's cursor — its most recent rows are).
      const w = this.resumeWindow;
      if (w) {
        const states = this.states(db, w.first * BUCKET_ROWS, this.last);
        const changed = new Set(changedBuckets(w, states));
        for (const r of states) if (changed.has(Math.floor(r.id / BUCKET_ROWS))) this.queue(r.id);
      } else this.queueRecent(db);
    }
    this.seenGen = gen;
    if (!this.pending.size) this.deliveredGen = gen;
  }

  /** (id, reward, consumed) of the rows with ids in [from, to], in id order. */
  private states(db: SqlExec, from: number, to: number): RowState[] {
    if (to < from) return [];
    const consumed = this.cols?.consumed ? 'consumed' : 'NULL';
    const res = db.exec(`SELECT id, reward, ${consumed} FROM ${quoteIdent(this.host.table)} WHERE id >= ? AND id <= ? ORDER BY id`, [from, to])[0];
    const out: RowState[] = [];
    for (const [id, reward, c] of res?.values ?? []) {
      const row = { id: Number(id), reward: reward === null ? null : Number(reward), consumed: c === null ? null : Number(c) };
      if (out.length && row.id <= out[out.length - 1].id) break; // out of order: a damaged b-tree (the rows say so)
      out.push(row);
    }
    return out;
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

  private columns(db: SqlExec): { msgId: boolean; consumed: boolean; bytes: boolean; scan?: ScanSpec } {
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(this.host.table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
    const out = { msgId: cols.includes('msg_id'), consumed: cols.includes('consumed'), bytes: cols.includes('experience_bytes') };
    // The tasks fold reads new rows from the pages when the table's rows are plain records by rowid.
    const scan = this.tensors === 'shapes' && this.host.scan ? this.scanSpec(db) : undefined;
    return scan ? { ...out, scan } : out;
  }

  /**
   * Where the select's columns lie in the table's records, when the rows can be read from the
   * pages exactly as the SELECT gives them: `id` is the table's INTEGER PRIMARY KEY (the rowid),
   * no column is generated (each column is in its record, at its cid), the table has a rowid.
   */
  private scanSpec(db: SqlExec): ScanSpec | undefined {
    const t = quoteIdent(this.host.table);
    const sql = db.exec("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [this.host.table])[0]?.values[0]?.[0];
    if (typeof sql !== 'string' || /WITHOUT\s+ROWID|PRIMARY\s+KEY\s+DESC/i.test(sql)) return undefined;
    const info = db.exec(`PRAGMA table_xinfo(${t})`)[0]?.values ?? [];
    // cid, name, type, notnull, default, pk, hidden
    if (info.some((r) => Number(r[6]) !== 0)) return undefined;
    const pks = info.filter((r) => Number(r[5]) > 0);
    if (pks.length !== 1 || pks[0][1] !== 'id' || String(pks[0][2]).toUpperCase() !== 'INTEGER') return undefined;
    const at = (name: string): number | null => {
      const r = info.find((x) => x[1] === name);
      return r ? Number(r[0]) : null;
    };
    const need = (name: string): number => at(name)!;
    const consumed = info.some((r) => r[1] === 'consumed');
    // timestamp and msg_id: not read by the fold (null, as its SELECT gives them)
    const columns: ScanSpec['columns'] = [
      'rowid',
      need('task_id'),
      need('run_id'),
      need('model_version'),
      need('reward'),
      null,
      null,
      consumed ? at('consumed') : null,
    ];
    const bytes = at('experience_bytes');
    return bytes === null ? { columns } : { columns, blob: { index: bytes, head: HEAD_BYTES } };
  }

  /** Rows of `where` (ordered by id), strictly increasing: rows out of order end the read (CorruptTable when none came before them). */
  private select(db: SqlExec, where: string, params: unknown[], after = -Infinity): ExperienceRow[] {
    const c = this.cols!;
    const bytes =
      this.tensors === 'shapes'
        ? `length(experience_bytes), substr(experience_bytes, 1, ${HEAD_BYTES})`
        : `length(experience_bytes), CASE WHEN length(experience_bytes) <= ${WHOLE_BYTES} THEN experience_bytes ELSE substr(experience_bytes, 1, ${HEAD_BYTES}) END`;
    // The tasks fold reads neither the timestamp nor msg_id (null in its rows).
    const fold = this.tensors === 'shapes';
    const extra = [c.msgId && !fold ? 'msg_id' : 'NULL', c.consumed ? 'consumed' : 'NULL', c.bytes ? bytes : 'NULL, NULL'];
    const t = quoteIdent(this.host.table);
    const sql = `SELECT id, task_id, run_id, model_version, reward, ${fold ? 'NULL' : 'timestamp'}, ${extra.join(', ')} FROM ${t} WHERE ${where}`;
    const out: ExperienceRow[] = [];
    this.decoded = 0;
    this.cut = false;
    // Row by row where the database can: each blob is summarized and dropped before the next, and
    // the query ends early once the batch decoded enough (a table of huge or crafted rows is read
    // in bounded slices, the event loop free in between).
    let prev = after;
    let disorder: string | undefined;
    const take = (v: unknown[]): void => {
      const id = Number(v[0]);
      if (!(id > prev)) {
        // A b-tree that leads back to pages already walked (a cycle) gives rows again: stop.
        disorder = `row ${id} came after row ${prev}`;
        throw ENOUGH;
      }
      prev = id;
      out.push(this.rowOf(db, v));
      if (this.decoded > BATCH_DECODE_BYTES) {
        this.cut = true;
        throw ENOUGH;
      }
    };
    try {
      const scan = c.scan && this.host.scan && where.startsWith('id > ?') ? c.scan : undefined;
      if (scan) {
        // The new rows of the tasks fold, from the pages (the same values the SELECT gives).
        const limit = Number(/LIMIT (\d+)$/.exec(where)?.[1] ?? Infinity);
        try {
          this.host.scan!(Number(params[0]), scan, (v) => {
            take(v);
            if (out.length >= limit) throw ENOUGH;
          });
        } catch (e) {
          if (!(e instanceof NotScannable)) throw e;
          // Not readable so (another layout, a damaged page): the SELECT reads this batch.
          out.length = 0;
          prev = after;
          disorder = undefined;
          this.decoded = 0;
          this.cut = false;
          this.cols = { ...c, scan: undefined };
          if (db.each) db.each(sql, params, take);
          else for (const v of db.exec(sql, params)[0]?.values ?? []) take(v);
        }
      } else if (db.each) db.each(sql, params, take);
      else for (const v of db.exec(sql, params)[0]?.values ?? []) take(v);
    } catch (e) {
      if (e !== ENOUGH) throw e;
    }
    if (disorder !== undefined && out.length === 0) {
      const why = this.host.diagnose?.();
      throw new CorruptTable(`table ${this.host.table} is damaged: ${disorder}${why ? `; ${why}` : ''}: no rows are read past row ${this.last}`);
    }
    return out;
  }

  /** The row, and the view, whose experience_bytes `readRange` reads. */
  private rangeRow = 0;
  private rangeDb: SqlExec | undefined;
  /** Reads a range of the experience_bytes of row `rangeRow` (one closure for every row). */
  private readonly readRange = (start: number, len: number): Uint8Array | undefined => {
    const sql = `SELECT substr(experience_bytes, ?, ?) FROM ${quoteIdent(this.host.table)} WHERE id = ?`;
    const r = this.rangeDb!.exec(sql, [start + 1, len, this.rangeRow])[0]?.values[0]?.[0];
    return r instanceof Uint8Array ? r : undefined;
  };

  private rowOf(db: SqlExec, v: unknown[]): ExperienceRow {
    const c = this.cols!;
    const id = Number(v[0]);
    const row: ExperienceRow = {
      id,
      table: this.host.table,
      task_id: v[1] === null ? null : valueText(v[1]),
      run_id: intOrNull(v[2]),
      model_version: intOrNull(v[3]),
      reward: v[4] === null || v[4] === undefined ? null : toWireNumber(Number(v[4])),
      timestamp: v[5] === null ? null : valueText(v[5]),
    };
    if (c.msgId) row.msg_id = v[6] === null ? null : valueText(v[6]);
    if (c.consumed) row.consumed = intOrNull(v[7]);
    if (v[9] instanceof Uint8Array) {
      this.rangeRow = id;
      this.rangeDb = db;
      const s = summarizeExperience(v[9], Number(v[8]), this.readRange, this.tensors);
      this.decoded += s.metaBytes;
      if (s.metrics) row.metrics = s.metrics;
      if (s.advantage !== undefined) row.advantage = s.advantage;
      if (s.response_tokens !== undefined) row.response_tokens = s.response_tokens;
      if (s.trained_tokens !== undefined) row.trained_tokens = s.trained_tokens;
      if (s.truncated !== undefined) row.truncated = s.truncated;
      if (s.empty_response !== undefined) row.empty_response = s.empty_response;
      if (s.task_index !== undefined) row.task_index = s.task_index;
      if (s.taskset_id !== undefined) row.taskset_id = s.taskset_id;
      if (s.response_hash !== undefined) row.response_hash = s.response_hash;
      if (s.error) row.error = s.error.slice(0, 500);
    }
    return row;
  }

  private batch(rows: ExperienceRow[]): ExperiencesMessage {
    // The tasks fold's reader has no client to resume: its batches carry no window.
    if (this.tensors === 'shapes')
      return {
        type: 'experiences',
        source: this.host.info.id,
        run: this.host.info.run,
        rows,
        cursor: { source: this.host.info.id, fid: `${this.host.table}@${this.host.tracker}.${this.deliveredGen}`, offset: this.last * ROW_SCALE + this.count },
      };
    this.window.hold(
      rows.map((r) => ({ id: r.id, reward: r.reward === null ? null : fromWireNumber(r.reward), consumed: r.consumed ?? null })),
      this.last,
    );
    // The generation is in the fid: a batch of another generation is new to the client whatever its offset.
    const fid = `${this.host.table}@${this.host.tracker}.${this.deliveredGen}/${this.db}~${this.window.encode(this.last, this.pending)}`;
    const cursor: Cursor = { source: this.host.info.id, fid, offset: this.last * ROW_SCALE + this.count };
    return { type: 'experiences', source: this.host.info.id, run: this.host.info.run, rows, cursor };
  }
}
