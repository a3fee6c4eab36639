// Trinity's SQL experience buffer (SQLite) as a source of experience rows; one source per
// table with the experience schema; cursor = last row id delivered (fid = table name), and
// rows whose reward or consumed state changed are sent again (sql-table-reader.ts).
// Read with sql.js (SQLite compiled to wasm, bundled): no compiler or native addon on the node.
// sql.js reads a snapshot of the file's bytes, re-taken when the file changes; for a database
// in WAL mode the committed frames of `<db>-wal` are folded in first (sqlite-wal.ts), so rows
// show up before SQLite checkpoints them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cursor, ExperienceDetail, SourceInfo } from '../../shared/relay-protocol';
import { toWireNumber } from '../../shared/relay-protocol';
import type { Logger } from '../../shared/log';
import { decodeExperienceBytes } from './experience-bytes';
import { RowChangeTracker, quoteIdent } from './row-changes';
import type { Source, SourceReader } from './source';
import { SqlTableReader } from './sql-table-reader';
import { applyWal } from './sqlite-wal';

interface SqlJsStatic {
  Database: new (data?: Uint8Array) => SqlJsDatabase;
}
interface SqlJsDatabase {
  exec(sql: string, params?: unknown[]): { columns: string[]; values: unknown[][] }[];
  close(): void;
}

let sqlJs: Promise<SqlJsStatic> | undefined;
function loadSqlJs(): Promise<SqlJsStatic> {
  // The inline build carries its wasm as base64, so the single-file CLI needs no side file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  sqlJs ??= (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<SqlJsStatic>)();
  return sqlJs;
}

/** Columns a table must have to be streamed as experiences (Trinity's ExperienceModel). */
export const EXPERIENCE_COLUMNS = ['id', 'task_id', 'run_id', 'model_version', 'reward', 'timestamp'];
const MAX_DB_BYTES = 2 * 1024 * 1024 * 1024 - 1;
const RELOAD_MS = 1000;
/** A reload that took d ms is not repeated before DUTY × d ms: reading a large buffer costs at most ~1/DUTY of a core. */
const DUTY = 20;

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

/** What identifies the state of one file: size, mtime (ns), inode; '-' when absent. */
function fileSig(file: string): string {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  } catch {
    return '-';
  }
}

/**
 * A rollback journal with a live header: a writer is between its first page write and its
 * commit, so the main file may hold half a transaction. (DELETE mode removes the journal at
 * commit, TRUNCATE empties it, PERSIST zeroes its header.)
 */
export function hasHotJournal(file: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(`${file}-journal`, 'r');
  } catch {
    return false;
  }
  try {
    const b = Buffer.alloc(8);
    return fs.readSync(fd, b, 0, 8, 0) === 8 && !b.equals(Buffer.alloc(8));
  } finally {
    fs.closeSync(fd);
  }
}

function sigOf(file: string): string | undefined {
  if (hasHotJournal(file)) return undefined;
  return `${fileSig(file)}|${fileSig(`${file}-wal`)}`;
}

/**
 * Reads a database file (and its WAL) only as a whole committed state: no hot journal
 * before or after, and neither file changed while it was read (its size, mtime, inode, and
 * page 1's header with the change counter). SQLite's own readers take a shared lock for
 * this; sql.js cannot, and a copy taken mid-write is "database disk image is malformed".
 * Undefined when a writer was busy on every one of `tries`.
 */
export async function readQuiescent(file: string, tries = 5, pauseMs = 25): Promise<{ main: Buffer; wal?: Buffer } | undefined> {
  for (let i = 0; i < tries; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, pauseMs * i));
    const before = sigOf(file);
    if (before === undefined) continue;
    const main = fs.readFileSync(file);
    let wal: Buffer | undefined;
    try {
      wal = fs.readFileSync(`${file}-wal`);
    } catch {
      /* no WAL: a rollback-journal database, or checkpointed */
    }
    const head = Buffer.alloc(100);
    const fd = fs.openSync(file, 'r');
    try {
      fs.readSync(fd, head, 0, 100, 0);
    } finally {
      fs.closeSync(fd);
    }
    if (sigOf(file) === before && head.equals(main.subarray(0, 100))) return { main, wal };
  }
  return undefined;
}

/** One database file, re-read when its bytes change; shared by its table sources. */
export class SqlDatabaseSnapshot {
  private db: SqlJsDatabase | undefined;
  private stamp = '';
  private loading: Promise<SqlJsDatabase | undefined> | undefined;
  private loadedAt = 0;
  /** How long the last reload took (ms). */
  private loadMs = 0;
  /** Rows changed between consecutive snapshots (a generation per snapshot). */
  readonly changes = new RowChangeTracker();

  constructor(
    readonly file: string,
    private readonly log: Logger,
    private readonly reloadMs = RELOAD_MS,
  ) {}

  private currentStamp(): string {
    const parts = [this.file, `${this.file}-wal`].map((f) => {
      try {
        const st = fs.statSync(f);
        return `${st.size}:${st.mtimeMs}:${st.ino}`;
      } catch {
        return '-';
      }
    });
    return parts.join('|');
  }

  /** The database as of now (re-read only when the files changed). */
  async get(): Promise<SqlJsDatabase | undefined> {
    const stamp = this.currentStamp();
    if (this.db && stamp === this.stamp) return this.db;
    // A busy buffer changes every step: re-read a large file at most once per reloadMs
    // (the relay's poll timer wakes the readers again after that).
    if (this.db && Date.now() - this.loadedAt < Math.max(this.reloadMs, DUTY * this.loadMs)) return this.db;
    if (this.loading) return this.loading;
    this.loading = (async () => {
      try {
        const SQL = await loadSqlJs();
        const t0 = performance.now();
        const st = fs.statSync(this.file);
        if (st.size > MAX_DB_BYTES) throw new Error(`${st.size} bytes is more than sql.js can hold`);
        const bytes = await readQuiescent(this.file);
        if (!bytes) {
          // A writer was mid-transaction on every try: keep the previous snapshot (or none).
          this.log.debug(`sql: ${this.file}: a write was in progress; reading it later`);
          return this.db;
        }
        const merged = applyWal(bytes.main, bytes.wal);
        if (merged.frames > 0) this.log.debug(`sql: ${this.file}: ${merged.frames} committed WAL frame(s) folded in`);
        const db = new SQL.Database(merged.db);
        try {
          this.changes.observe(merged.db, db, experienceTablesOf(db));
        } catch (e) {
          // Changed rows are extra: a failure to find them must not stop new rows.
          this.log.debug(`sql: ${this.file}: cannot compare with the previous snapshot: ${(e as Error).message}`);
        }
        this.db?.close();
        this.db = db;
        this.stamp = stamp;
        this.loadedAt = Date.now();
        this.loadMs = performance.now() - t0;
        return db;
      } catch (e) {
        this.log.debug(`sql: cannot read ${this.file}: ${(e as Error).message}`);
        return this.db;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** Tables with the experience columns. */
  async experienceTables(): Promise<string[]> {
    const db = await this.get();
    return db ? experienceTablesOf(db) : [];
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function experienceTablesOf(db: SqlJsDatabase): string[] {
  const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  const out: string[] = [];
  for (const [name] of tables[0]?.values ?? []) {
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(String(name))})`)[0]?.values.map((r) => String(r[1])) ?? [];
    if (EXPERIENCE_COLUMNS.every((c) => cols.includes(c))) out.push(String(name));
  }
  return out;
}

export class SqlTableSource implements Source {
  readonly watchPaths: string[];

  constructor(
    readonly info: SourceInfo,
    readonly snapshot: SqlDatabaseSnapshot,
    readonly table: string,
  ) {
    this.watchPaths = [path.dirname(snapshot.file)];
  }

  async readDetail(id: number): Promise<ExperienceDetail> {
    const db = await this.snapshot.get();
    if (!db) throw new Error(`cannot read ${path.basename(this.snapshot.file)}`);
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(this.table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
    if (!cols.includes('experience_bytes')) throw new Error(`table ${this.table} has no experience_bytes column`);
    const res = db.exec(`SELECT experience_bytes, reward FROM ${quoteIdent(this.table)} WHERE id = ?`, [id])[0];
    if (!res || !res.values.length) throw new Error(`no row ${id} in ${this.table}`);
    const [bytes, reward] = res.values[0];
    if (!(bytes instanceof Uint8Array)) throw new Error(`row ${id} of ${this.table} has no experience bytes`);
    const d = decodeExperienceBytes(bytes);
    // The column wins, as in Trinity's ExperienceModel.to_experience: serve mode writes the
    // bytes before /feedback sets the reward, which only updates the column.
    if (typeof reward === 'number') d.reward = toWireNumber(reward);
    return d;
  }

  open(cursor: Cursor | undefined): SourceReader {
    return new SqlTableReader(
      {
        info: this.info,
        table: this.table,
        database: () => this.snapshot.get(),
        generation: () => this.snapshot.changes.generation,
        tracker: this.snapshot.changes.id,
        changedSince: (gen) => this.snapshot.changes.since(this.table, gen),
      },
      cursor,
    );
  }
}
