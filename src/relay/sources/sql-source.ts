// Trinity's SQL experience buffer (SQLite) as a source of experience rows; one source per
// table with the experience schema; cursor = last row id delivered (fid = table name), and
// rows whose reward or consumed state changed are sent again (sql-table-reader.ts).
// Read by pages (sqlite-pages.ts, with the committed frames of `<db>-wal` laid over, so rows
// show up before SQLite checkpoints) through wa-sqlite (sqlite-db.ts): a query costs the pages
// it touches and memory stays bounded whatever the buffer's size.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cursor, ExperienceDetail, SourceInfo } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';
import type { Logger } from '../../base/log';
import { RowDecodeError, type SummaryTensors, TRXP_HEAD_BYTES, decodeExperienceBytes, detailBytes } from '../formats/trxp';
import { type RowTokenParts, decodeTokenParts, readTokenParts } from '../formats/trxp-tokens';
import { tableTreeProblem } from '../../sqlite/btree-index';
import { RowChangeTracker, SqlExec, quoteIdent } from '../../sqlite/row-changes';
import type { RowTokens, Source, SourceReader } from './source';
import { SqlTableReader } from './sql-table-reader';
import { PagedDatabase, TornRead } from '../../sqlite/sqlite-db';
import { DbPages } from '../../sqlite/sqlite-pages';
import { NotScannable, type ScanSpec, scanTable } from '../../sqlite/table-scan';
import type { JobRoot } from './job-root';

/** Columns a table must have to be streamed as experiences (Trinity's ExperienceModel). */
const EXPERIENCE_COLUMNS = ['id', 'task_id', 'run_id', 'model_version', 'reward', 'timestamp'];
const RELOAD_MS = 1000;
/** A refresh that took d ms is not repeated before DUTY × d ms: following a busy buffer costs at most ~1/DUTY of a core. */
const DUTY = 20;
/** The same for a reader whose client waits for an answer (it asks once per answer, not on every commit). */
const ASKED_DUTY = 2;
/** Views taken in one refresh while commits keep overlapping the change comparison. */
const OBSERVE_TRIES = 3;
/** Tries of a detail read while a writer keeps the files moving. */
const DETAIL_TRIES = 5;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function isSqliteFile(file: string): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const b = Buffer.alloc(16);
      return fs.readSync(fd, b, 0, 16, 0) === 16 && b.equals(SQLITE_MAGIC);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** One database file, followed view by view (at most one new view per reload period); shared by its table sources. */
export class SqlDatabaseSnapshot {
  readonly pages: DbPages;
  private db: PagedDatabase | undefined;
  private opening: Promise<PagedDatabase> | undefined;
  private refreshedAt = 0;
  /** How long the last refresh took (ms). */
  private refreshMs = 0;
  /** Rows changed between consecutive views (a generation per view). */
  readonly changes = new RowChangeTracker();
  /** The database file the changes are of (device:inode). */
  private identity = '';
  /** How the change comparisons went (tests and debug logs). */
  readonly stats = { views: 0, observed: 0, torn: 0, failed: 0, lastError: '' };

  constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly reloadMs = RELOAD_MS,
    root?: JobRoot,
  ) {
    this.pages = new DbPages(file, root);
  }

  /**
   * The database as of a recent consistent view; undefined while a writer keeps it moving (the
   * relay's poll timer asks again). `fresh`: take a new view now whatever the reload period.
   * `behind`: the caller has not read all of the current view (or has rows to catch up on), so
   * it gets the view, or a stale one is replaced as soon as the duty cycle allows rather than
   * after the reload period; otherwise nothing before the reload period. `asked`: a client waits
   * for an answer read from the buffer now (a tasks table): a view the files moved past is
   * replaced as soon as a lighter duty cycle allows (the buffer's new step is in the answer).
   */
  async get(fresh = false, behind = false, asked = false): Promise<SqlExec | undefined> {
    try {
      this.db ??= await (this.opening ??= PagedDatabase.open(this.pages));
    } catch (e) {
      this.log.debug(`sql: cannot open ${this.file}: ${(e as Error).message}`);
      return undefined;
    } finally {
      this.opening = undefined;
    }
    const db = this.db;
    const since = Date.now() - this.refreshedAt;
    const period = since >= Math.max(this.reloadMs, DUTY * this.refreshMs);
    // A reader that has read the current view has nothing new before the next one: a wake by
    // the directory watch (every commit) costs no file access then.
    if (!fresh && !period && !behind) return undefined;
    const valid = this.pages.stillValid();
    // A client waiting for an answer built from the buffer (a tasks table) sees a commit as soon
    // as a refresh costs at most ~1/ASKED_DUTY of the time: it asks once per answer it waits for.
    const due = fresh || period || (!valid && since >= (asked ? ASKED_DUTY : DUTY) * this.refreshMs);
    if (!due) return valid ? db : undefined;
    const t0 = performance.now();
    // A commit during the comparison (TornRead) loses nothing — the tracker keeps the last
    // pages it compared — but under a writer that commits several times a second, waiting a
    // whole reload period each time could starve changes for good: take a new view at once.
    for (let attempt = 1; ; attempt++) {
      const r = this.pages.refresh();
      if (r === 'busy') {
        // A writer was mid-transaction: the previous view serves if the files still hold it.
        this.log.debug(`sql: ${this.file}: a write was in progress; reading it later`);
        return this.pages.stillValid() ? db : undefined;
      }
      if (r === 'changed') this.stats.views++;
      if (r === 'changed' && this.pages.identity !== this.identity) {
        // Another database under the same name (the job dir recreated): its changes start afresh.
        if (this.identity !== '') this.changes.reset();
        this.identity = this.pages.identity;
      }
      if (r !== 'changed' || this.observe(db) || attempt >= OBSERVE_TRIES) break;
    }
    this.refreshedAt = Date.now();
    this.refreshMs = performance.now() - t0;
    return this.pages.stillValid() ? db : undefined;
  }

  /**
   * Records the rows changed since the last view; false when the comparison failed — a commit
   * overlapped it (TornRead), or SQLite stumbled on pages a commit was rewriting — so that a
   * new view is taken at once (the tracker keeps the last pages it compared: nothing is lost).
   */
  private observe(db: PagedDatabase): boolean {
    try {
      this.changes.observe(this.pages, db, experienceTablesOf(db));
      this.stats.observed++;
      return true;
    } catch (e) {
      if (e instanceof TornRead) {
        this.stats.torn++;
        return false;
      }
      // Changed rows are extra: a failure to find them must not stop new rows.
      this.stats.failed++;
      const msg = (e as Error).message;
      if (msg !== this.stats.lastError) this.log.debug(`sql: ${this.file}: cannot compare with the previous view: ${msg}`);
      this.stats.lastError = msg;
      return false;
    }
  }

  /** Tables with the experience columns. */
  async experienceTables(): Promise<string[]> {
    for (let i = 0; i < DETAIL_TRIES; i++) {
      const db = await this.get(i > 0, true);
      try {
        return db ? experienceTablesOf(db) : [];
      } catch (e) {
        if (!(e instanceof TornRead)) throw e;
      }
    }
    return [];
  }

  /** Runs `read` on a consistent view, retrying while a writer moves the files under it. */
  async withRetry<T>(read: (db: SqlExec) => T): Promise<T> {
    let last: unknown;
    for (let i = 0; i < DETAIL_TRIES; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25 * i));
      const db = await this.get(i > 0, true);
      if (!db) continue;
      try {
        return read(db);
      } catch (e) {
        if (!(e instanceof TornRead)) throw e;
        last = e;
      }
    }
    throw last instanceof Error ? last : new Error(`cannot read ${path.basename(this.file)}: a writer kept it busy`);
  }

  /** What is wrong with `table`'s b-tree (a cycle, a page out of range), read from the pages; undefined when it holds. */
  treeProblem(table: string): string | undefined {
    try {
      const root = this.db?.exec("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", [table])[0]?.values[0]?.[0];
      return typeof root === 'number' ? tableTreeProblem(this.pages, root) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The rows of `table` with id > `after` read from the pages of the current view (table-scan.ts);
   * TornRead when the files moved under the read, NotScannable when the table cannot be read so.
   */
  scan(table: string, after: number, spec: ScanSpec, row: (values: unknown[]) => void): void {
    const db = this.db;
    if (!db) throw new NotScannable('no view');
    const root = db.exec("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", [table])[0]?.values[0]?.[0];
    if (typeof root !== 'number') throw new NotScannable(`no table ${table}`);
    try {
      this.pages.scanning(() => scanTable(this.pages, root, after, spec, row));
    } catch (e) {
      // Rows enough (the caller's stop), or a page not what the b-tree says: if a writer moved
      // the files meanwhile, what was read is dropped and read again later, as for a query.
      if (!this.pages.stillValid()) throw new TornRead(this.file);
      throw e;
    }
    if (!this.pages.stillValid()) throw new TornRead(this.file);
  }

  /** The connection, once opened (tests and benchmarks look at its heap). */
  get connection(): PagedDatabase | undefined {
    return this.db;
  }

  close(): void {
    const db = this.db;
    this.db = undefined;
    if (db) void db.close();
    else this.pages.close();
  }
}

function experienceTablesOf(db: SqlExec): string[] {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  const out: string[] = [];
  for (const [name] of tables[0]?.values ?? []) {
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(String(name))})`)[0]?.values.map((r) => String(r[1])) ?? [];
    if (EXPERIENCE_COLUMNS.every((c) => cols.includes(c))) out.push(String(name));
  }
  return out;
}

/** The database and its WAL as stat sees them ('' when unreadable): equal, the rows are too. */
function filesSignature(file: string): string {
  const sig = (f: string): string => {
    try {
      const st = fs.statSync(f, { bigint: true });
      return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
    } catch {
      return '-';
    }
  };
  const main = sig(file);
  return main === '-' ? '' : `${main}|${sig(`${file}-wal`)}`;
}

/** What a row's tokens decode from, as a digest: the same bytes decode to the same reply. */
function partsDigest(id: number, parts: RowTokenParts): string {
  const h = createHash('sha1').update(`${id}\0`).update(parts.meta);
  for (const [name, t] of Object.entries(parts.tensors)) if (t) h.update(`\0${name}\0${t.dtype}\0${t.bytes.length}\0`).update(t.bytes);
  return h.digest('hex');
}

export class SqlTableSource implements Source {
  readonly watchPaths: string[];
  readonly dataFiles: string[];
  /**
   * The last row's tokens as decoded (or its error), by the digest of its bytes: a client asking
   * for the same row again — or flooding requests for it — costs a read and a hash, not another
   * decode (unpickling a 200 000-message row makes ~100 MB of short-lived objects each time).
   */
  private lastTokens:
    | {
        key: string;
        id: number;
        /** The database files as they were when the row was read (filesSignature). */
        files: string;
        out?: RowTokens;
        error?: string;
        withReward?: { reward: unknown; out: RowTokens };
      }
    | undefined;

  constructor(
    readonly info: SourceInfo,
    readonly snapshot: SqlDatabaseSnapshot,
    readonly table: string,
  ) {
    this.watchPaths = [path.dirname(snapshot.file)];
    this.dataFiles = [snapshot.file, `${snapshot.file}-wal`];
  }

  async readDetail(id: number): Promise<ExperienceDetail> {
    // The bytes are read on a consistent view; decoding them (bounded, in slices) needs none.
    const { bytes, reward } = await this.snapshot.withRetry((db) => this.rowBytes(db, id));
    const d = await decodeExperienceBytes(bytes);
    // The column wins, as in Trinity's ExperienceModel.to_experience: serve mode writes the
    // bytes before /feedback sets the reward, which only updates the column.
    if (typeof reward === 'number') d.reward = toWireNumber(reward);
    return d;
  }

  async readTokens(id: number): Promise<RowTokens> {
    // The same row asked again while neither file changed (a client flooding `tokens` for a heavy
    // row): what was read then is what would be read now, with no page read and no hash.
    const files = filesSignature(this.snapshot.file);
    const kept = this.lastTokens;
    if (kept?.id === id && kept.files === files && files !== '') {
      if (kept.error !== undefined) throw new Error(kept.error);
      return kept.withReward?.out ?? kept.out!;
    }
    // The ranges are read on one consistent view; decoding them needs none.
    const { parts, reward } = await this.snapshot.withRetry((db) => {
      const cols = db.exec(`PRAGMA table_info(${quoteIdent(this.table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
      if (!cols.includes('experience_bytes')) throw new Error(`table ${this.table} has no experience_bytes column`);
      const t = quoteIdent(this.table);
      const res = db.exec(`SELECT length(experience_bytes), reward FROM ${t} WHERE id = ?`, [id])[0];
      if (!res || !res.values.length) throw new Error(`no row ${id} in ${this.table}`);
      const [length, reward] = res.values[0];
      if (typeof length !== 'number') throw new Error(`row ${id} of ${this.table} has no experience bytes`);
      const read = (start: number, len: number): Uint8Array | undefined => {
        if (len === 0) return new Uint8Array(0);
        const b = db.exec(`SELECT substr(experience_bytes, ?, ?) FROM ${t} WHERE id = ?`, [start + 1, len, id])[0]?.values[0]?.[0];
        return b instanceof Uint8Array ? b : undefined;
      };
      try {
        return { parts: readTokenParts(read, length), reward };
      } catch (e) {
        if (e instanceof RowDecodeError) throw new Error(`row ${id} of ${this.table}: ${e.message}`, { cause: e });
        throw e;
      }
    });
    const key = partsDigest(id, parts);
    let last = this.lastTokens?.key === key ? this.lastTokens : undefined;
    if (!last) {
      try {
        last = { key, id, files, out: await decodeTokenParts(parts) };
      } catch (e) {
        last = { key, id, files, error: `row ${id} of ${this.table}: ${(e as Error).message}` };
      }
      this.lastTokens = last;
    }
    last.files = files;
    if (last.error !== undefined) throw new Error(last.error);
    // The column wins, as for the detail. The same reward gives the same object: the relay's
    // tokens frames (serve/tokens-frames.ts) are kept by it, so a row asked again is not laid out again.
    if (typeof reward !== 'number') {
      last.withReward = undefined;
      return last.out!;
    }
    if (last.withReward?.reward !== reward) last.withReward = { reward, out: { ...last.out!, reward: toWireNumber(reward) } };
    return last.withReward.out;
  }

  /** The part of a row's experience_bytes its detail needs: TRXP's header and metadata (never its tensors), or a legacy pickle whole. */
  private rowBytes(db: SqlExec, id: number): { bytes: Uint8Array; reward: unknown } {
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(this.table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
    if (!cols.includes('experience_bytes')) throw new Error(`table ${this.table} has no experience_bytes column`);
    const t = quoteIdent(this.table);
    const res = db.exec(`SELECT length(experience_bytes), substr(experience_bytes, 1, ${TRXP_HEAD_BYTES}), reward FROM ${t} WHERE id = ?`, [id])[0];
    if (!res || !res.values.length) throw new Error(`no row ${id} in ${this.table}`);
    const [length, head, reward] = res.values[0];
    if (!(head instanceof Uint8Array) || typeof length !== 'number') throw new Error(`row ${id} of ${this.table} has no experience bytes`);
    const need = detailBytes(head, length);
    if (typeof need === 'string') throw new Error(`row ${id} of ${this.table}: ${need}`);
    const bytes = db.exec(`SELECT substr(experience_bytes, 1, ?) FROM ${t} WHERE id = ?`, [need, id])[0]?.values[0]?.[0];
    if (!(bytes instanceof Uint8Array)) throw new Error(`row ${id} of ${this.table} has no experience bytes`);
    return { bytes, reward };
  }

  open(cursor: Cursor | undefined): SourceReader {
    return this.reader(cursor, 'facts');
  }

  openForTasks(): SourceReader {
    return this.reader(undefined, 'shapes');
  }

  private reader(cursor: Cursor | undefined, tensors: SummaryTensors): SourceReader {
    const changes = this.snapshot.changes;
    // The tasks fold reads when a client asks for the table (task-cache.ts): each read is asked for.
    const asked = tensors === 'shapes';
    return new SqlTableReader(
      {
        info: this.info,
        table: this.table,
        database: (behind) => this.snapshot.get(false, behind || asked, asked),
        generation: () => this.snapshot.changes.generation,
        get tracker(): string {
          return changes.id; // a new one once the database file was replaced
        },
        changedSince: (gen) => this.snapshot.changes.since(this.table, gen),
        databaseId: () => this.snapshot.pages.identity,
        diagnose: () => this.snapshot.treeProblem(this.table),
        scan: (after, spec, row) => this.snapshot.scan(this.table, after, spec, row),
      },
      cursor,
      tensors,
    );
  }
}
