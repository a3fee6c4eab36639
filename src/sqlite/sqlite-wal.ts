// Where the committed frames of a SQLite write-ahead log (`<db>-wal`) put each page, so a
// page reader (sqlite-pages.ts) sees every committed row before SQLite checkpoints, without
// reading the log as a whole each time: frames appended since the last look are scanned once,
// and a page read takes its newest committed frame. Format:
// https://www.sqlite.org/fileformat2.html#walformat — a frame is valid while its salts match
// the WAL header and the running checksum holds; frames count up to the last valid commit
// frame (db size ≠ 0).
import * as fs from 'node:fs';

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
/** Bytes read from the log per call while scanning new frames. */
const CHUNK = 1 << 20;

/** Running WAL checksum over `data` (a multiple of 8 bytes), starting from (s0, s1). */
function walChecksum(data: Buffer, bigEndian: boolean, s0: number, s1: number): [number, number] {
  for (let i = 0; i + 8 <= data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

/** The committed state of one WAL, kept up to date by `refresh()`. */
export class WalIndex {
  /** Page number → file offset of its newest committed frame's page bytes. */
  private committed = new Map<number, number>();
  /** Frames after the last commit frame (page number → offset), not visible yet. */
  private pending = new Map<number, number>();
  /** Database size in pages as of the last commit frame; undefined when no frame is committed. */
  dbPages: number | undefined;
  pageSize = 0;
  /** Identifies the log's generation (its salts): it changes when a writer restarts the log. */
  salts = '';
  private bigEndian = false;
  private sum: [number, number] = [0, 0];
  /** Where the next frame starts (past the last valid frame scanned). */
  private next = WAL_HEADER;

  constructor(
    readonly file: string,
    private readonly open: (p: string) => number = (p) => fs.openSync(p, 'r'),
  ) {}

  /** Committed frames (distinct pages) visible now. */
  get frames(): number {
    return this.committed.size;
  }

  /** File offset of page `pgno`'s committed bytes in the log, when it has some. */
  frameOffset(pgno: number): number | undefined {
    return this.dbPages === undefined ? undefined : this.committed.get(pgno);
  }

  private reset(): void {
    this.committed = new Map();
    this.pending = new Map();
    this.dbPages = undefined;
    this.salts = '';
    this.next = WAL_HEADER;
  }

  /** Reads the header and any frames appended since the last call (bytes read: only the new ones). */
  refresh(): void {
    let fd: number;
    try {
      fd = this.open(this.file);
    } catch {
      this.reset(); // no log: a rollback-journal database, or checkpointed and removed
      return;
    }
    try {
      this.scan(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  private scan(fd: number): void {
    const head = Buffer.alloc(WAL_HEADER);
    if (fs.readSync(fd, head, 0, WAL_HEADER, 0) < WAL_HEADER) return this.reset();
    const magic = head.readUInt32BE(0);
    const pageSize = head.readUInt32BE(8);
    const validPage = pageSize >= 512 && pageSize <= 65536 && (pageSize & (pageSize - 1)) === 0;
    if ((magic !== 0x377f0682 && magic !== 0x377f0683) || !validPage) return this.reset();
    const bigEndian = (magic & 1) === 1;
    const start = walChecksum(head.subarray(0, 24), bigEndian, 0, 0);
    if (start[0] !== head.readUInt32BE(24) || start[1] !== head.readUInt32BE(28)) return this.reset();
    const salts = head.subarray(16, 24).toString('hex');
    if (salts !== this.salts || pageSize !== this.pageSize) {
      // A new log (or the first look): what was indexed belongs to the old one.
      this.reset();
      this.salts = salts;
      this.pageSize = pageSize;
      this.bigEndian = bigEndian;
      this.sum = start;
    }
    const frame = FRAME_HEADER + pageSize;
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.max(frame, Math.floor(CHUNK / frame) * frame));
    const salt1 = head.readUInt32BE(16);
    const salt2 = head.readUInt32BE(20);
    while (this.next + frame <= size) {
      const want = Math.min(buf.length, Math.floor((size - this.next) / frame) * frame);
      const got = fs.readSync(fd, buf, 0, want, this.next);
      for (let at = 0; at + frame <= got; at += frame) {
        const h = buf.subarray(at, at + FRAME_HEADER);
        if (h.readUInt32BE(8) !== salt1 || h.readUInt32BE(12) !== salt2) return;
        let s = walChecksum(h.subarray(0, 8), this.bigEndian, this.sum[0], this.sum[1]);
        s = walChecksum(buf.subarray(at + FRAME_HEADER, at + frame), this.bigEndian, s[0], s[1]);
        // A frame still being written (or left over from an older log) ends the valid part.
        if (s[0] !== h.readUInt32BE(16) || s[1] !== h.readUInt32BE(20)) return;
        this.sum = s;
        this.pending.set(h.readUInt32BE(0), this.next + FRAME_HEADER);
        const dbSize = h.readUInt32BE(4);
        if (dbSize !== 0) {
          for (const [pgno, off] of this.pending) this.committed.set(pgno, off);
          this.pending.clear();
          // A commit that shrank the database (vacuum) drops the pages past its end.
          if (this.dbPages !== undefined && dbSize < this.dbPages) for (const pgno of this.committed.keys()) if (pgno > dbSize) this.committed.delete(pgno);
          this.dbPages = dbSize;
        }
        this.next += frame;
      }
      if (got < want) return;
    }
  }
}
