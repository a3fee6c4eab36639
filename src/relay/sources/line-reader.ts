// Complete lines of a growing text file (a log, a JSON-lines buffer), read in bounded pieces: a
// line still being written waits for its end, and a line longer than `maxLine` is passed over up
// to its end — never held whole, never a stop — and counted, so its source can say so. A read
// takes no more room than the file has past the offset: a source polled at its end (every wake
// of every client) allocated its whole budget, 1 MB, each time, ~50 MB/s of garbage buffers in
// the relay-hostile bench that malloc kept as RSS (164 MB with nothing hostile going on).
import * as fs from 'node:fs';

const NL = 0x0a;
const MIN_READ = 64 * 1024;
const NOTHING = Buffer.alloc(0);

export interface Lines {
  /** The bytes read, from file offset `at`; the complete lines are buf[from, to), each ending with '\n'. */
  buf: Buffer;
  at: number;
  from: number;
  to: number;
  /** The file offset after what was consumed (lines and skipped bytes). */
  next: number;
  /** Over-long lines whose end was passed in this read. */
  skipped: number;
}

export class LineReader {
  /** Inside a line longer than maxLine: its bytes are passed over until its end. */
  private skipping = false;

  constructor(readonly maxLine: number) {}

  /** Complete lines from `offset` (about `budget` bytes, or one line more when it is longer). */
  read(fd: number, offset: number, budget: number): Lines {
    const there = fs.fstatSync(fd).size - offset;
    if (there <= 0) return { buf: NOTHING, at: offset, from: 0, to: 0, next: offset, skipped: 0 };
    // A line still being written may grow past what is there: the loop below reads again, twice the size.
    let size = Math.min(Math.max(budget, MIN_READ), this.maxLine, there);
    let skipped = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const got = fs.readSync(fd, buf, 0, size, offset);
      const empty = (from: number): Lines => ({ buf, at: offset, from, to: from, next: offset + from, skipped });
      if (got === 0) return empty(0);
      const data = buf.subarray(0, got);
      let start = 0;
      if (this.skipping) {
        const nl = data.indexOf(NL);
        if (nl < 0) {
          offset += got;
          if (got < size) return empty(0);
          continue;
        }
        start = nl + 1;
        this.skipping = false;
        skipped++;
      }
      const last = data.lastIndexOf(NL);
      if (last >= start) return { buf, at: offset, from: start, to: last + 1, next: offset + last + 1, skipped };
      if (got - start >= this.maxLine) {
        // A line over the limit starts here: pass over it.
        this.skipping = true;
        offset += got;
        continue;
      }
      if (start > 0 || got < size || size >= this.maxLine) return empty(start); // a line still being written
      size = Math.min(size * 2, this.maxLine);
    }
  }
}
