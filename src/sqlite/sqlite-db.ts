// SQLite (wa-sqlite: SQLite compiled to wasm, bundled, so no compiler or native addon on the
// node; `node:sqlite` is not in VS Code's Node 20) reading a database through a read-only VFS
// over DbPages (sqlite-pages.ts): SQLite asks for the pages a query needs and keeps at most
// CACHE_KB of them, so a 2 GB buffer costs what its queries touch, not its size.
// Queries run synchronously (the sync build, no Asyncify): a row's summary reads more of its
// blob from inside a row callback (trxp.ts). Each query checks that the view it
// read is still what the files hold; if a writer moved them meanwhile it throws TornRead.
import * as path from 'node:path';
import type { SqlExec } from './row-changes';
import { valueText } from '../base/value-text';
import { DbPages } from './sqlite-pages';
import { sqliteWasm } from './sqlite-wasm';

/** SQLite's page cache per connection (KiB): the bound on what a reader holds of a database. */
export const CACHE_KB = 4096;

/** VM instructions one statement may run (thousands of times what the relay's queries need): a
 *  corrupt b-tree that sends SQLite round in circles ends in an error, not a held event loop. */
const MAX_STATEMENT_STEPS = 20_000_000;
/** How often (VM instructions) SQLite asks whether to go on. */
const PROGRESS_PERIOD = 10_000;
const INTERRUPT = 9;

/** A statement ran past MAX_STATEMENT_STEPS (a corrupt database, most likely). */
class QueryBudgetExceeded extends Error {}

/** A writer changed the files while a query read them: its rows are not to be trusted. */
export class TornRead extends Error {
  constructor(file: string) {
    super(`${path.basename(file)} changed while it was read`);
  }
}

const OK = 0;
const IOERR = 10;
const CANTOPEN = 14;
const IOERR_SHORT_READ = 522;
const OPEN_READONLY = 0x1;
const ROW = 100;
const DONE = 101;
const INTEGER = 1;
const FLOAT = 2;
const TEXT = 3;
const BLOB = 4;
/** SQLITE_TRANSIENT: SQLite copies a bound value. */
const TRANSIENT = -1;

type CFn = (...args: (number | string)[]) => number;
interface WasmModule {
  cwrap(name: string, ret: string | null, args: string[]): CFn;
  getValue(ptr: number, type: string): number;
  getTempRet0(): number;
  UTF8ToString(ptr: number): string;
  HEAPU8: Uint8Array;
  _malloc(n: number): number;
  _free(p: number): void;
}
interface SqliteApi {
  open_v2(name: string, flags: number, vfs: string): Promise<number>;
  progress_handler(db: number, period: number, handler: ((userData: unknown) => number) | null, userData: unknown): void;
  close(db: number): Promise<number>;
  vfs_register(vfs: object, makeDefault: boolean): number;
}

/** The VFS: file ids (SQLite's sqlite3_file pointers) → the DbPages they read. */
class PagesVfs {
  readonly name = 'agentrl-pages';
  readonly mxPathName = 64;
  /** Short aliases → databases (wa-sqlite's VFS bridge holds paths of ≤ 64 bytes). */
  readonly byName = new Map<string, DbPages>();
  private readonly open = new Map<number, DbPages>();

  xOpen(name: string | null, fileId: number, flags: number, pOutFlags: DataView): number {
    const db = name === null ? undefined : this.byName.get(name);
    // Only the main database is read; no journal, WAL or temp file is ever opened here.
    if (!db) return CANTOPEN;
    this.open.set(fileId, db);
    pOutFlags.setInt32(0, OPEN_READONLY, true);
    return OK;
  }
  xClose(fileId: number): number {
    this.open.delete(fileId);
    return OK;
  }
  xRead(fileId: number, pData: Uint8Array, iOffset: number): number {
    const db = this.open.get(fileId);
    if (!db) return IOERR;
    try {
      return db.read(pData, iOffset) < pData.length ? IOERR_SHORT_READ : OK;
    } catch {
      return IOERR;
    }
  }
  xWrite(): number {
    return IOERR;
  }
  xTruncate(): number {
    return IOERR;
  }
  xSync(): number {
    return OK;
  }
  xFileSize(fileId: number, pSize64: DataView): number {
    const db = this.open.get(fileId);
    if (!db) return IOERR;
    pSize64.setBigInt64(0, BigInt(db.size), true);
    return OK;
  }
  xLock(): number {
    return OK;
  }
  xUnlock(): number {
    return OK;
  }
  xCheckReservedLock(_fileId: number, pResOut: DataView): number {
    pResOut.setInt32(0, 0, true);
    return OK;
  }
  xFileControl(): number {
    return 12; // SQLITE_NOTFOUND
  }
  xSectorSize(): number {
    return 512;
  }
  xDeviceCharacteristics(): number {
    return 0;
  }
  xDelete(): number {
    return IOERR;
  }
  xAccess(_name: string, _flags: number, pResOut: DataView): number {
    pResOut.setInt32(0, 0, true); // no journal or WAL for SQLite to replay: DbPages did it
    return OK;
  }
  handleAsync(f: () => number): number {
    return f();
  }
}

interface Engine {
  api: SqliteApi;
  c: Record<string, CFn>;
  mod: WasmModule;
  vfs: PagesVfs;
}

let engine: Promise<Engine> | undefined;

function loadEngine(): Promise<Engine> {
  engine ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const factory = (require('wa-sqlite/dist/wa-sqlite.mjs') as { default: (m: object) => Promise<WasmModule> }).default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Factory } = require('wa-sqlite/src/sqlite-api.js') as { Factory: (m: WasmModule) => SqliteApi };
    const wasmBinary = sqliteWasm(); // inline in the bundles (esbuild.mjs)
    // locateFile: the wasm is given, and a bundle has no import.meta.url to resolve its name against.
    const mod = await factory({ wasmBinary, locateFile: (f: string) => f });
    const api = Factory(mod);
    const vfs = new PagesVfs();
    api.vfs_register(vfs, false);
    const n = 'number';
    const c: Record<string, CFn> = {
      prepare: mod.cwrap('sqlite3_prepare_v2', n, [n, n, n, n, n]),
      step: mod.cwrap('sqlite3_step', n, [n]),
      finalize: mod.cwrap('sqlite3_finalize', n, [n]),
      bindDouble: mod.cwrap('sqlite3_bind_double', n, [n, n, n]),
      bindInt64: mod.cwrap('sqlite3_bind_int64', n, [n, n, n, n]),
      bindText: mod.cwrap('sqlite3_bind_text', n, [n, n, 'string', n, n]),
      bindNull: mod.cwrap('sqlite3_bind_null', n, [n, n]),
      columnCount: mod.cwrap('sqlite3_column_count', n, [n]),
      columnName: mod.cwrap('sqlite3_column_name', n, [n, n]),
      columnType: mod.cwrap('sqlite3_column_type', n, [n, n]),
      columnInt64: mod.cwrap('sqlite3_column_int64', n, [n, n]),
      columnDouble: mod.cwrap('sqlite3_column_double', n, [n, n]),
      columnText: mod.cwrap('sqlite3_column_text', n, [n, n]),
      columnBlob: mod.cwrap('sqlite3_column_blob', n, [n, n]),
      columnBytes: mod.cwrap('sqlite3_column_bytes', n, [n, n]),
      errmsg: mod.cwrap('sqlite3_errmsg', n, [n]),
    };
    return { api, c, mod, vfs };
  })();
  return engine;
}

let aliases = 0;
/** Text columns as the Python relay decodes them: invalid bytes replaced, a BOM kept. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** A read-only connection to one database file through its DbPages. */
export class PagedDatabase implements SqlExec {
  private closed = false;
  /** Progress callbacks of the statement running now (each PROGRESS_PERIOD instructions), nested ones included. */
  private progress = 0;
  /** Statements running (a row callback may run another: they share the outer one's budget). */
  private depth = 0;

  private constructor(
    readonly pages: DbPages,
    private readonly e: Engine,
    private readonly db: number,
    private readonly alias: string,
  ) {}

  static async open(pages: DbPages): Promise<PagedDatabase> {
    const e = await loadEngine();
    const alias = `db${++aliases}`;
    e.vfs.byName.set(alias, pages);
    const db = await e.api.open_v2(alias, OPEN_READONLY, e.vfs.name);
    const conn = new PagedDatabase(pages, e, db, alias);
    e.api.progress_handler(db, PROGRESS_PERIOD, () => (++conn.progress * PROGRESS_PERIOD > MAX_STATEMENT_STEPS ? 1 : 0), null);
    // Settings only (no page is read): no view needed yet.
    conn.run(`PRAGMA cache_size = -${CACHE_KB}`, []);
    conn.run('PRAGMA temp_store = MEMORY', []);
    return conn;
  }

  /**
   * Runs one statement; throws TornRead when the files moved under it. One check, after: it
   * compares with the files as the view found them, so it covers the whole query.
   */
  exec(sql: string, params: unknown[] = []): { columns: string[]; values: unknown[][] }[] {
    const values: unknown[][] = [];
    const columns = this.each(sql, params, (v) => values.push(v));
    return columns.length ? [{ columns, values }] : [];
  }

  /**
   * Runs one statement, handing each row to `row` as it is stepped (a large blob is copied
   * out of the wasm heap and dropped one row at a time); returns the column names. Throws
   * TornRead after the rows when the files moved under it: the caller drops what it got.
   */
  each(sql: string, params: unknown[], row: (values: unknown[]) => void): string[] {
    if (this.closed) throw new Error('database closed');
    let res: string[];
    try {
      res = this.pages.scanning(() => this.run(sql, params, row));
    } catch (e) {
      // "malformed" from a page a commit was rewriting: the writer's fault, not the file's.
      if (!this.pages.stillValid()) throw new TornRead(this.pages.file);
      throw e;
    }
    if (!this.pages.stillValid()) throw new TornRead(this.pages.file);
    return res;
  }

  private run(sql: string, params: unknown[], row: (values: unknown[]) => void = () => undefined): string[] {
    const { c, mod } = this.e;
    const pp = mod._malloc(4);
    const bytes = Buffer.from(`${sql}\0`, 'utf8');
    const zSql = mod._malloc(bytes.length);
    mod.HEAPU8.set(bytes, zSql);
    let stmt = 0;
    if (this.depth++ === 0) this.progress = 0;
    try {
      this.check(c.prepare(this.db, zSql, -1, pp, 0));
      stmt = mod.getValue(pp, 'i32');
      if (!stmt) return [];
      params.forEach((v, i) => this.bind(stmt, i + 1, v));
      const n = c.columnCount(stmt);
      const columns = Array.from({ length: n }, (_, i) => mod.UTF8ToString(c.columnName(stmt, i)));
      for (;;) {
        const rc = c.step(stmt);
        if (rc === DONE) break;
        if (rc === INTERRUPT)
          throw new QueryBudgetExceeded(`a query on ${path.basename(this.pages.file)} ran past ${MAX_STATEMENT_STEPS} steps: the database may be corrupt`);
        if (rc !== ROW) this.check(rc);
        row(Array.from({ length: n }, (_, i) => this.column(stmt, i)));
      }
      return columns;
    } finally {
      this.depth--;
      if (stmt) c.finalize(stmt);
      mod._free(zSql);
      mod._free(pp);
    }
  }

  private bind(stmt: number, i: number, v: unknown): void {
    const { c } = this.e;
    if (v === null || v === undefined) this.check(c.bindNull(stmt, i));
    else if (typeof v === 'number' && Number.isSafeInteger(v)) this.check(c.bindInt64(stmt, i, v >>> 0, Math.floor(v / 2 ** 32)));
    else if (typeof v === 'number') this.check(c.bindDouble(stmt, i, v));
    else this.check(c.bindText(stmt, i, valueText(v), -1, TRANSIENT));
  }

  private column(stmt: number, i: number): unknown {
    const { c, mod } = this.e;
    switch (c.columnType(stmt, i)) {
      case INTEGER: {
        const lo = c.columnInt64(stmt, i);
        const hi = mod.getTempRet0();
        return hi * 2 ** 32 + (lo >>> 0);
      }
      case FLOAT:
        return c.columnDouble(stmt, i);
      case TEXT: {
        // A byte that is not UTF-8 becomes U+FFFD (UTF8ToString made lone surrogates of it and what followed).
        const at = c.columnText(stmt, i);
        return utf8.decode(mod.HEAPU8.subarray(at, at + c.columnBytes(stmt, i)));
      }
      case BLOB: {
        const at = c.columnBlob(stmt, i);
        return mod.HEAPU8.slice(at, at + c.columnBytes(stmt, i));
      }
      default:
        return null;
    }
  }

  private check(rc: number): void {
    if (rc !== OK) throw new Error(this.e.mod.UTF8ToString(this.e.c.errmsg(this.db)) || `SQLite error ${rc}`);
  }

  /** Bytes of the wasm heap (SQLite's page cache and everything else it holds). */
  heapBytes(): number {
    return this.e.mod.HEAPU8.byteLength;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.e.api.close(this.db);
    this.e.vfs.byName.delete(this.alias);
    this.pages.close();
  }
}
