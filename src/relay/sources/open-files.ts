// The relay's open source files, bounded per relay: every reader of every client takes its file
// descriptor here, and past `max` open ones the least recently used is closed (its reader
// reopens the file on its next read, checking that the path still names the same file). Without
// the bound, ten clients of a run with 2000 event files held 20 000 descriptors and the relay
// hit EMFILE. A descriptor the scan worker reads from is pinned until it is done with it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobRoot } from './job-root';
import { fileId } from './source';

/** Open source files a relay keeps at most (its sockets, databases and watches come on top). */
const DEFAULT_MAX_OPEN_FILES = 256;

export class OpenFiles {
  /** Leases holding a descriptor, least recently used first. */
  private readonly held = new Map<FileLease, true>();
  /** Descriptors opened (tests: a reader that reopens is counted). */
  opened = 0;

  constructor(
    readonly root: JobRoot | undefined,
    readonly max = DEFAULT_MAX_OPEN_FILES,
  ) {}

  /** Descriptors held now. */
  get count(): number {
    return this.held.size;
  }

  /** A lease on the file at `file` now; throws when it cannot be opened (gone, outside the root). */
  lease(file: string): FileLease {
    const fd = this.openFd(file);
    return this.admit(new FileLease(this, file, fd, fileId(fs.fstatSync(fd))));
  }

  /**
   * A lease on the file of identity `fid` next to `file` (a log rotated to `<name>.1`), or
   * undefined when none of the files in that directory is it.
   */
  leaseSibling(file: string, fid: string): FileLease | undefined {
    const dir = path.dirname(file);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return undefined;
    }
    for (const n of names) {
      const p = path.join(dir, n);
      try {
        if (fileId(fs.lstatSync(p)) !== fid) continue;
        return this.lease(p);
      } catch {
        /* vanished, or outside the root */
      }
    }
    return undefined;
  }

  /** Opens `file` (inside the root when there is one); the pool counts it once admitted. */
  openFd(file: string): number {
    this.opened++;
    return this.root ? this.root.open(file) : fs.openSync(file, 'r');
  }

  admit(lease: FileLease): FileLease {
    this.held.delete(lease);
    this.held.set(lease, true);
    if (this.held.size > this.max) {
      for (const l of this.held.keys()) {
        if (this.held.size <= this.max) break;
        if (l !== lease && !l.pinned) l.evict();
      }
    }
    return lease;
  }

  /** A lease gave its descriptor back. */
  release(lease: FileLease): void {
    this.held.delete(lease);
  }

  /** Marks a lease most recently used. */
  touch(lease: FileLease): void {
    if (!this.held.has(lease)) return;
    this.held.delete(lease);
    this.held.set(lease, true);
  }
}

/** One reader's hold on one file (identity `fid`), whose descriptor the pool may close meanwhile. */
export class FileLease {
  private fdNum: number | undefined;
  /** Pinned leases are not evicted (the scan worker reads from the descriptor). */
  pinned = false;
  private closed = false;

  constructor(
    private readonly pool: OpenFiles,
    readonly path: string,
    fd: number,
    readonly fid: string,
  ) {
    this.fdNum = fd;
  }

  /**
   * The descriptor, reopened at the path when the pool closed it; undefined when the path now
   * names another file (or none): the file this lease was taken on is out of reach.
   */
  fd(): number | undefined {
    if (this.closed) return undefined;
    if (this.fdNum !== undefined) {
      this.pool.touch(this);
      return this.fdNum;
    }
    let fd: number;
    try {
      fd = this.pool.openFd(this.path);
    } catch {
      return undefined;
    }
    if (fileId(fs.fstatSync(fd)) !== this.fid) {
      fs.closeSync(fd);
      return undefined;
    }
    this.fdNum = fd;
    this.pool.admit(this);
    return fd;
  }

  /** Whether the lease holds its descriptor now (tests). */
  get open(): boolean {
    return this.fdNum !== undefined;
  }

  /** Closes the descriptor (the pool's bound); fd() reopens it. */
  evict(): void {
    if (this.fdNum !== undefined) fs.closeSync(this.fdNum);
    this.fdNum = undefined;
    this.pool.release(this);
  }

  close(): void {
    this.evict();
    this.closed = true;
  }
}
