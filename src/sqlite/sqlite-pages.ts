// A SQLite database file read page by page, as SQLite itself would see it committed: a page
// comes from the newest committed frame of `<db>-wal` when it has one (sqlite-wal.ts), else
// from the main file. Nothing holds the whole file: memory is a few pages and the WAL's page
// map. There is no lock to take from a writer in another process (SQLite's readers use POSIX
// locks and a shared-memory index), so a view is a "stamp" of the files checked before and
// after each read (sqlite-db.ts): a hot rollback journal, or a main file / WAL header that
// changed under the read, means a writer was busy and the read is retried later.
import * as fs from 'node:fs';
import { WalIndex } from './sqlite-wal';

/** Pages of a database by number (what btree-index.ts reads). */
export interface PageSource {
  readonly pageSize: number;
  /** Page size less the reserved bytes at each page's end. */
  readonly usable: number;
  /** Page `pgno`'s bytes; undefined past the end of the database. */
  page(pgno: number): Buffer | undefined;
}

/**
 * A rollback journal with a live header: a writer is between its first page write and its
 * commit, so the main file may hold half a transaction. (DELETE mode removes the journal at
 * commit, TRUNCATE empties it, PERSIST zeroes its header.)
 */
function hasHotJournal(file: string, open: (p: string) => number = (p) => fs.openSync(p, 'r')): boolean {
  let fd: number;
  try {
    fd = open(`${file}-journal`);
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

function statSig(file: string): string {
  try {
    const st = fs.statSync(file, { bigint: true });
    return `${st.size}:${st.mtimeNs}:${st.ino}`;
  } catch {
    return '-';
  }
}

function headHex(fd: number, at: number, n: number): string {
  const b = Buffer.alloc(n);
  return b.subarray(0, fs.readSync(fd, b, 0, n, at)).toString('hex');
}

export type RefreshResult = 'same' | 'changed' | 'busy';

/** Main-file bytes one read brings while a statement walks the file forward (`scanning`). */
const READ_AHEAD = 256 * 1024;

/** Opens a file read-only, returning its descriptor (or throws): how the reader reaches the
 *  database's files, so that a caller can confine it to a folder. */
export interface FileOpener {
  open(path: string): number;
}

/** One database file's pages, with the committed WAL frames laid over them. */
export class DbPages implements PageSource {
  readonly wal: WalIndex;
  /** Bumped by every refresh that found new content: shown to SQLite as the file change counter. */
  generation = 0;
  /** Pages (or header pieces) read from the files, for tests and benchmarks. */
  reads = 0;
  /** Reads made of the files (a read ahead serves many page reads), for tests and benchmarks. */
  fileReads = 0;
  pageSize = 4096;
  usable = 4096;
  private mainFd: number | undefined;
  private mainIno: bigint | undefined;
  /** device:inode of the main file open now ('' when none): a database replaced under its name is another one. */
  identity = '';
  private walFd: number | undefined;
  private walIno: bigint | undefined;
  private mainBytes = 0;
  /** What must not change while the view is read (main file, WAL identity). */
  private valid: string | undefined;
  /** Main file and WAL as a whole (an append to the WAL is new content, not a torn view). */
  private content = '';

  /** Opens a file of the database read-only (the relay passes its JobRoot: only inside its root). */
  private readonly open: (p: string) => number;
  /** Statements running in `scanning`, and the main-file bytes read ahead for them. */
  private aheadDepth = 0;
  private ahead: { at: number; bytes: Buffer; len: number } | undefined;
  /** Where the last main-file read ended (−1: none in this statement). */
  private lastEnd = -1;

  constructor(
    readonly file: string,
    root?: FileOpener,
  ) {
    this.open = root ? (p) => root.open(p) : (p) => fs.openSync(p, 'r');
    this.wal = new WalIndex(`${file}-wal`, this.open);
  }

  /**
   * The files' state that a view depends on; undefined while a writer is mid-transaction. The
   * main file's size, mtime and inode, and its change counter (a rollback-journal commit bumps
   * it, even within one mtime tick); the WAL's inode and header (a restarted log gets new
   * salts) — not its size: appended frames are not part of the view, so they do not tear it.
   */
  private validity(): string | undefined {
    if (hasHotJournal(this.file, this.open)) return undefined;
    const counter = this.mainFd === undefined ? '' : headHex(this.mainFd, 24, 4);
    let wal = '-';
    try {
      const ino = fs.statSync(this.wal.file, { bigint: true }).ino;
      wal = ino === this.walIno && this.walFd !== undefined ? `${ino}:${headHex(this.walFd, 0, 32)}` : `${ino}:?`;
    } catch {
      /* no WAL */
    }
    return `${statSig(this.file)}:${counter}|${wal}`;
  }

  /** Whether the view taken by the last refresh is still what the files hold. */
  stillValid(): boolean {
    return this.valid !== undefined && this.validity() === this.valid;
  }

  /** Takes a new view when the files changed: 'busy' when a writer was caught mid-write. */
  refresh(): RefreshResult {
    this.openMain();
    this.openWal();
    const before = this.validity();
    if (before === undefined) return 'busy';
    const content = `${before}|${statSig(this.wal.file)}`;
    if (content === this.content && this.valid === before) return 'same';
    const head = Buffer.alloc(100);
    const n = this.mainFd === undefined ? 0 : fs.readSync(this.mainFd, head, 0, 100, 0);
    this.wal.refresh();
    if (n === 100) {
      const raw = head.readUInt16BE(16);
      this.pageSize = raw === 1 ? 65536 : raw;
      this.usable = this.pageSize - head[20];
    } else if (this.wal.pageSize) {
      this.pageSize = this.usable = this.wal.pageSize;
    }
    this.mainBytes = this.mainFd === undefined ? 0 : fs.fstatSync(this.mainFd).size;
    if (this.validity() !== before) return 'busy';
    this.valid = before;
    this.content = content;
    this.generation++;
    return 'changed';
  }

  private openMain(): void {
    let ino: bigint | undefined;
    try {
      ino = fs.statSync(this.file, { bigint: true }).ino;
    } catch {
      ino = undefined;
    }
    if (ino === this.mainIno && this.mainFd !== undefined) return;
    if (this.mainFd !== undefined) fs.closeSync(this.mainFd);
    this.mainFd = undefined;
    this.mainIno = ino;
    if (ino === undefined) return;
    this.mainFd = this.open(this.file);
    const st = fs.fstatSync(this.mainFd, { bigint: true });
    this.identity = `${st.dev}:${st.ino}`;
  }

  private openWal(): void {
    let ino: bigint | undefined;
    try {
      ino = fs.statSync(this.wal.file, { bigint: true }).ino;
    } catch {
      ino = undefined;
    }
    if (ino === this.walIno && this.walFd !== undefined) return;
    if (this.walFd !== undefined) fs.closeSync(this.walFd);
    this.walFd = undefined;
    this.walIno = ino;
    try {
      if (ino !== undefined) this.walFd = this.open(this.wal.file);
    } catch {
      this.walIno = undefined; // removed meanwhile
    }
  }

  /** The database's size in bytes as of the view. */
  get size(): number {
    return this.wal.dbPages !== undefined ? this.wal.dbPages * this.pageSize : this.mainBytes;
  }

  /**
   * Fills `out` with the bytes at `offset` (any range; SQLite reads whole pages and pieces of
   * the header). Returns the bytes that exist (the rest is zeroed).
   */
  read(out: Uint8Array, offset: number): number {
    const ps = this.pageSize;
    const end = Math.min(offset + out.length, this.size);
    let pos = offset;
    while (pos < end) {
      const pgno = Math.floor(pos / ps) + 1;
      const within = pos - (pgno - 1) * ps;
      const len = Math.min(end - pos, ps - within);
      const frame = this.wal.frameOffset(pgno);
      const fd = frame !== undefined ? this.walFd : this.mainFd;
      const at = frame !== undefined ? frame + within : pos;
      const got = fd === undefined ? 0 : frame === undefined ? this.readMain(fd, out, pos - offset, len, at) : this.readFile(fd, out, pos - offset, len, at);
      this.reads++;
      if (got < len) {
        out.fill(0, pos - offset + got);
        return pos - offset + got;
      }
      pos += len;
    }
    if (end - offset < out.length) out.fill(0, Math.max(0, end - offset));
    if (offset < 100) this.patchHeader(out, offset);
    return Math.max(0, end - offset);
  }

  /**
   * Runs `fn` (one statement) reading the main file ahead: a page just past the last one read
   * (a table walk meets its leaves and overflow pages in about file order) brings the next
   * READ_AHEAD bytes with it, so a scan of a big buffer costs a read per chunk, not per page.
   * What was read ahead is dropped when the statement ends: the statement's own validity check
   * (sqlite-db.ts) covers every byte it was given, as for the pages read one by one.
   */
  scanning<T>(fn: () => T): T {
    this.aheadDepth++;
    try {
      return fn();
    } finally {
      if (--this.aheadDepth === 0) {
        this.ahead = undefined;
        this.lastEnd = -1;
      }
    }
  }

  private readFile(fd: number, out: Uint8Array, o: number, len: number, at: number): number {
    this.fileReads++;
    return fs.readSync(fd, out, o, len, at);
  }

  /** `len` bytes of the main file at `at` into `out` at `o`: from the bytes read ahead when they hold them. */
  private readMain(fd: number, out: Uint8Array, o: number, len: number, at: number): number {
    const a = this.ahead;
    if (a && at >= a.at && at + len <= a.at + a.len) {
      out.set(a.bytes.subarray(at - a.at, at - a.at + len), o);
      this.lastEnd = at + len;
      return len;
    }
    // Forward and near the last read: the walk goes on in file order (index pages lie between).
    const onward = this.aheadDepth > 0 && this.lastEnd >= 0 && at >= this.lastEnd && at < this.lastEnd + READ_AHEAD;
    this.lastEnd = at + len;
    if (!onward || len >= READ_AHEAD) return this.readFile(fd, out, o, len, at);
    const bytes = a?.bytes ?? Buffer.allocUnsafe(READ_AHEAD);
    const n = this.readFile(fd, bytes, 0, READ_AHEAD, at);
    this.ahead = { at, bytes, len: n };
    const got = Math.min(len, n);
    out.set(bytes.subarray(0, got), o);
    return got;
  }

  /**
   * The header SQLite is shown: a plain rollback-journal database (the WAL is laid over here,
   * not by SQLite, which would want the -shm index and locks), whose change counter is the
   * view's generation so SQLite drops its page cache exactly when the view moved, and whose
   * size is the committed one.
   */
  private patchHeader(out: Uint8Array, offset: number): void {
    const put = (at: number, bytes: number[]): void => {
      bytes.forEach((b, i) => {
        const p = at + i - offset;
        if (p >= 0 && p < out.length) out[p] = b;
      });
    };
    const u32 = (v: number): number[] => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    put(18, [1, 1]);
    put(24, u32(this.generation));
    put(28, u32(Math.floor(this.size / this.pageSize)));
    put(92, u32(this.generation));
  }

  page(pgno: number): Buffer | undefined {
    if (pgno < 1 || pgno * this.pageSize > this.size) return undefined;
    const b = Buffer.alloc(this.pageSize);
    return this.read(b, (pgno - 1) * this.pageSize) === this.pageSize ? b : undefined;
  }

  close(): void {
    if (this.mainFd !== undefined) fs.closeSync(this.mainFd);
    if (this.walFd !== undefined) fs.closeSync(this.walFd);
    this.mainFd = this.walFd = undefined;
    this.ahead = undefined;
    this.mainIno = this.walIno = undefined;
    this.valid = undefined;
    this.content = '';
  }
}
