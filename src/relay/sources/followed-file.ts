// A source file as one reader follows it by name while it changes identity: log rotation (the
// file renamed, a new one created: the old one is read to its end first, then the new one from
// its start), `copytruncate` (the same file cut back under the reader: read again from its
// start), a job dir deleted and recreated (a new file under the old name). A reader asks where to
// read before each read; its cursor is (fid, offset) of the file it reads. A cursor naming a file
// the path no longer names is looked for among its siblings (`role.log.1`), so a client that
// reconnects mid-rotation still gets the rest of the old file. After a truncation in place the
// same file starts over: the cursor's fid gains a `~N` suffix (as the Python relay's), so a client
// never takes the new bytes for ones it has (same fid, lower offset: a stale batch to it).
import * as fs from 'node:fs';
import type { Cursor } from '../../relay-protocol/messages';
import type { FdSource } from '../../tfrecord/file-reader';
import type { FileLease, OpenFiles } from './open-files';
import { fileId } from './source';

export type FileChange =
  /** The path names another file now; `lostBytes`: what could not be read of the old one. */
  | { kind: 'replaced'; lostBytes?: number }
  /** The file was cut back below the reader's offset (copytruncate): read again from its start. */
  | { kind: 'truncated'; from: number; size: number };

/** What to read: a descriptor of the followed file and its size now. */
export interface ReadAt {
  fd: number;
  size: number;
}

/** The file identity a cursor's fid names, and its truncation generation (`dev:ino~N`). */
function splitFid(fid: string): { base: string; gen: number } {
  const i = fid.indexOf('~');
  if (i < 0) return { base: fid, gen: 0 };
  const gen = Number(fid.slice(i + 1));
  return { base: fid.slice(0, i), gen: Number.isSafeInteger(gen) && gen > 0 ? gen : 0 };
}

function statOf(file: string): { fid: string; size: number } | undefined {
  try {
    const st = fs.statSync(file);
    return st.isFile() ? { fid: fileId(st), size: st.size } : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes before the offset remembered to tell a file rewritten in place (copytruncate, then written past the offset). */
const TAIL = 32;

export class FollowedFile implements FdSource {
  /** Identity of the file read now ('' before the first open). */
  fid = '';
  /** Where the next read starts in it (readers move it with moveTo()). */
  offset = 0;
  /** Truncations in place of the file read seen so far (its cursor's `~N`). */
  private gen = 0;
  /** The bytes just before `offset` as they were read. */
  private tail: Buffer | undefined;
  /** The file was found shorter than the offset a read reached: the next look reports the truncation. */
  private cut = false;
  private lease: FileLease | undefined;
  /** The path names another file than the one read (which is finished before moving on). */
  private replaced = false;
  private started = false;

  constructor(
    private readonly files: OpenFiles,
    readonly path: string,
    private readonly cursor: Cursor | undefined,
    private readonly onChange: (change: FileChange) => void = () => undefined,
  ) {}

  /** The followed file's descriptor, for a reader that reads on its own (FdSource, tfrecord/file-reader.ts). */
  fd(): number | undefined {
    return this.lease?.fd();
  }

  /** Kept open while set (the scan worker reads from it). */
  get pinned(): boolean {
    return this.lease?.pinned ?? false;
  }

  set pinned(v: boolean) {
    if (this.lease) this.lease.pinned = v;
  }

  /** The cursor of the position reached. */
  at(source: string): Cursor {
    return { source, fid: this.gen > 0 ? `${this.fid}~${this.gen}` : this.fid, offset: this.offset };
  }

  /**
   * Where to read now: the followed file (its rest, when the path already names another one),
   * or undefined when there is no file to read.
   */
  where(): ReadAt | undefined {
    const now = statOf(this.path);
    if (!this.started) return this.first(now);
    if (this.lease === undefined) return this.take(now);
    if (now?.fid === this.fid) {
      this.replaced = false;
      const fd = this.lease.fd();
      if (fd === undefined) return undefined;
      // Cut back below the offset — or cut back and written past it again since the last look.
      if (this.cut || now.size < this.offset || !this.tailHolds(fd)) {
        this.onChange({ kind: 'truncated', from: this.offset, size: now.size });
        this.offset = 0;
        this.tail = undefined;
        this.cut = false;
        this.gen++;
      }
      return { fd, size: now.size };
    }
    // Renamed away, deleted, or replaced: what is left of the file read goes first.
    this.replaced = true;
    const fd = this.lease.fd() ?? this.relocate();
    if (fd === undefined) {
      this.onChange({ kind: 'replaced' });
      return this.take(now);
    }
    return { fd, size: fs.fstatSync(fd).size };
  }

  /**
   * Moves the offset past what the reader consumed (read from `fd`, the descriptor where() gave).
   * A file cut back around the read is reported at the next where().
   */
  moveTo(offset: number, fd: number): void {
    // Nothing consumed (a look at the live edge, nearly every wake): the tail stays, the next look checks it.
    if (offset === this.offset && this.tail !== undefined) return;
    const n = Math.min(TAIL, offset);
    const b = Buffer.alloc(n);
    const tail = fs.readSync(fd, b, 0, n, offset - n) === n ? b : undefined;
    // Then the bytes before where the read started: shorter than the read's end, or no longer the
    // bytes read before it, the file was cut back around the read — which may have found the new
    // file's bytes at the old offset, and the tail just taken may be the new file's. A cut after
    // this check is the next look's to find (the tail was taken before it).
    if (!tail || !this.tailHolds(fd)) this.cut = true;
    this.offset = offset;
    this.tail = tail;
  }

  /** Whether the bytes before the offset are still those read (true when none were remembered). */
  private tailHolds(fd: number): boolean {
    const t = this.tail;
    if (!t || t.length === 0) return true;
    const b = Buffer.alloc(t.length);
    return fs.readSync(fd, b, 0, t.length, this.offset - t.length) === t.length && b.equals(t);
  }

  /**
   * The reader has read what there was: when the path names another file now, the one read is
   * finished and the next where() starts the new one (true: read again at once).
   */
  drained(size: number): boolean {
    if (!this.replaced) return false;
    const rest = size - this.offset;
    this.onChange({ kind: 'replaced', ...(rest > 0 ? { lostBytes: rest } : {}) });
    this.drop();
    // The file read is finished: whatever the path names next is new, even when it reuses the
    // old one's inode number (freed once its descriptor closed: a job dir deleted, seen gone, then
    // created again) — read it from its start.
    this.fid = '';
    this.offset = 0;
    this.tail = undefined;
    this.cut = false;
    this.gen = 0;
    return true;
  }

  close(): void {
    this.drop();
  }

  private first(now: { fid: string; size: number } | undefined): ReadAt | undefined {
    const c = this.cursor;
    const { base, gen } = splitFid(c?.fid ?? '');
    if (c && base && base !== now?.fid) {
      // The client read a file this name no longer holds: finish it if it is still next door.
      const old = this.files.leaseSibling(this.path, base);
      if (old) {
        this.started = true;
        this.lease = old;
        this.fid = base;
        this.replaced = true;
        const fd = old.fd();
        const size = fd === undefined ? 0 : fs.fstatSync(fd).size;
        this.resumeAt(c.offset, size, gen);
        return fd === undefined ? undefined : { fd, size };
      }
    }
    const at = this.take(now);
    if (at && c && base === this.fid) this.resumeAt(c.offset, at.size, gen);
    return at;
  }

  /** The cursor's place in the file it names; past its end, the file was cut back since: its start, a generation on. */
  private resumeAt(offset: number, size: number, gen: number): void {
    this.tail = undefined;
    this.cut = false;
    if (offset <= size) {
      this.offset = offset;
      this.gen = gen;
    } else {
      this.offset = 0;
      this.gen = gen + 1;
    }
  }

  /** Opens the file the path names now, from its start (the same file where it was, if it came back). */
  private take(now: { fid: string; size: number } | undefined): ReadAt | undefined {
    if (!now) return undefined;
    let lease: FileLease;
    try {
      lease = this.files.lease(this.path);
    } catch {
      return undefined;
    }
    this.started = true;
    this.lease = lease;
    this.replaced = false;
    if (lease.fid !== this.fid) {
      this.fid = lease.fid;
      this.offset = 0;
      this.tail = undefined;
      this.cut = false;
      this.gen = 0;
    }
    const fd = lease.fd();
    return fd === undefined ? undefined : { fd, size: fs.fstatSync(fd).size };
  }

  /** The file read, found by its identity beside the path (the pool closed its descriptor meanwhile). */
  private relocate(): number | undefined {
    const lease = this.files.leaseSibling(this.path, this.fid);
    if (!lease) return undefined;
    this.lease?.close();
    this.lease = lease;
    return lease.fd();
  }

  private drop(): void {
    this.lease?.close();
    this.lease = undefined;
    this.replaced = false;
  }
}
