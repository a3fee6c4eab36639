// The rows of a rowid table read straight from its b-tree pages (sqlite-pages.ts), in rowid
// order from a given rowid on, each handed over as the values of the columns asked for (and the
// first bytes and length of one blob column): what `SELECT … WHERE id > ? ORDER BY id` gives
// through SQLite (sqlite-db.ts), without SQLite's per-row and per-page costs — a pass over a
// 2 GB experience buffer copies each row's bytes once, from the file's read-ahead, and keeps none.
// Only what it can read exactly: a table whose `id` is its INTEGER PRIMARY KEY, a UTF-8
// database, records that hold every column asked for. Anything else — another schema, a page
// that is not what the b-tree says (a damaged file, a writer mid-commit) — throws NotScannable,
// and the caller asks SQLite instead (which names the damage, or reads the view again).
// Format: https://www.sqlite.org/fileformat2.html (§1.6 b-tree pages, overflow pages, §2.1 records).
import type { DbPages } from './sqlite-pages';

/** The rows cannot be read this way (the caller falls back to SQL). */
export class NotScannable extends Error {}

const TABLE_INTERIOR = 5;
const TABLE_LEAF = 13;
/** Interior levels at most (a real table b-tree of 2^64 rows is under 20). */
const MAX_DEPTH = 40;
/** Bytes of the columns after the blob kept per row at most (reward, consumed: a few bytes). */
const MAX_TAIL = 64 * 1024;
/** Bytes of a row through its blob's head kept at most (the columns before the blob, and that head). */
const MAX_HEAD = 16 * 1024 * 1024;

/** Text columns as sqlite-db.ts decodes them: invalid bytes replaced, a BOM kept. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** Bytes of a value of serial type t (§2.1); -1 for the reserved types. */
function valueSize(t: number): number {
  if (t >= 12) return (t - (t & 1 ? 13 : 12)) / 2;
  return t === 10 || t === 11 ? -1 : [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][t];
}

export interface ScanSpec {
  /** Record index of each column to hand over; 'rowid' for the table's INTEGER PRIMARY KEY, null for a NULL placeholder. */
  columns: (number | 'rowid' | null)[];
  /** A blob column handed over as [its length, its first `head` bytes] after the columns (SQL's length() and substr(…, 1, head)). */
  blob?: { index: number; head: number };
}

/** A level of the walk down to a leaf: an interior page (a copy) and the next child to visit. */
interface Level {
  page: Buffer;
  at: number;
  next: number;
  cells: number;
}

/**
 * Reads the rows with rowid > `after` of the table b-tree rooted at `root`, in rowid order,
 * calling `row` with each one's values (one array, and the blob's head a view of a buffer, that
 * the next row reuses: `row` reads them, never keeps them) until it throws (the caller's way to stop: the exception
 * goes through) or the table ends. Must run inside `pages.scanning` for the read-ahead.
 */
export function scanTable(pages: DbPages, root: number, after: number, spec: ScanSpec, row: (values: unknown[]) => void): void {
  const ps = pages.pageSize;
  const usable = pages.usable;
  const lastPage = Math.floor(pages.size / ps);
  if (usable < 480 || root < 2 || root > lastPage) throw new NotScannable('not a table b-tree this reader knows');
  const header = Buffer.alloc(4);
  if (pages.read(header, 56) !== 4 || header.readUInt32BE(0) !== 1) throw new NotScannable('the database is not UTF-8');
  const maxLocal = usable - 35;
  const minLocal = Math.floor(((usable - 12) * 32) / 255) - 23;
  const read = (pgno: number, out: Buffer): Buffer => {
    if (pgno < 1 || pgno > lastPage || pages.read(out, (pgno - 1) * ps) !== out.length) throw new NotScannable(`page ${pgno} is not in the database`);
    return out;
  };
  // Pages visited at most: every page once (a cycle in a damaged b-tree ends here).
  let budget = lastPage + 1;
  const visit = (pgno: number, out: Buffer): Buffer => {
    if (--budget < 0) throw new NotScannable('the b-tree leads round in circles');
    return read(pgno, out);
  };
  const pointer = Buffer.alloc(4);
  let leaf: Buffer = Buffer.alloc(ps);
  /** Where a page is read before it is known to be a leaf (then it becomes the leaf: no copy, no allocation). */
  let spare: Buffer = Buffer.alloc(ps);
  const levels: Level[] = [];
  // The kept bytes of the row being read: its payload through the blob's head, and after the blob.
  let head = Buffer.alloc(64 * 1024);
  const tail = Buffer.alloc(MAX_TAIL);

  /** Descends from `pgno` to the leaf holding the first rowid > after, stacking the interior levels. */
  const descend = (pgno: number, seek: boolean): void => {
    for (;;) {
      if (levels.length > MAX_DEPTH) throw new NotScannable('a b-tree deeper than any real one');
      const p = visit(pgno, spare);
      const h = pgno === 1 ? 100 : 0;
      const type = p[h];
      if (type === TABLE_LEAF) {
        spare = leaf;
        leaf = p;
        return;
      }
      if (type !== TABLE_INTERIOR) throw new NotScannable(`page ${pgno} is not a table b-tree page`);
      spare = Buffer.alloc(ps); // the interior page is kept in its level
      const cells = p.readUInt16BE(h + 3);
      let next = 0;
      if (seek) {
        // The first child whose keys (≤ its cell's key) may pass `after`.
        while (next < cells) {
          const c = p.readUInt16BE(h + 12 + 2 * next);
          if (c + 5 > ps) throw new NotScannable(`page ${pgno} has a cell past its end`);
          if (varint(p, c + 4) > after) break;
          next++;
        }
      }
      const level = { page: p, at: h, next, cells };
      levels.push(level);
      pgno = childOf(level);
      level.next++;
    }
  };
  const childOf = (l: Level): number => {
    if (l.next < l.cells) {
      const c = l.page.readUInt16BE(l.at + 12 + 2 * l.next);
      if (c + 4 > ps) throw new NotScannable('an interior cell past its page');
      return l.page.readUInt32BE(c);
    }
    return l.page.readUInt32BE(l.at + 8);
  };
  /** The next leaf after the current one (false at the table's end). */
  const nextLeaf = (): boolean => {
    while (levels.length) {
      const l = levels[levels.length - 1];
      if (l.next > l.cells) {
        levels.pop();
        continue;
      }
      const child = childOf(l);
      l.next++;
      descend(child, false);
      return true;
    }
    return false;
  };

  descend(root, true);
  const cols = spec.columns;
  const blobIndex = spec.blob?.index ?? -1;
  const blobHead = spec.blob?.head ?? 0;
  // Reused for every row (a pass over 500 k rows makes no garbage of its own but the values).
  let types = new Int32Array(64);
  let offsets = new Float64Array(64);
  const out: unknown[] = new Array(cols.length + (spec.blob ? 2 : 0)).fill(null);
  let keepHead = 0;
  let tailFrom = 0;
  /** The value of record column `idx` (its serial type `t`), from the kept bytes. */
  const value = (t: number, o: number): unknown => {
    if (t === 0) return null;
    if (t === 8) return 0;
    if (t === 9) return 1;
    const len = valueSize(t);
    const src = o >= tailFrom ? tail : head;
    const p = o >= tailFrom ? o - tailFrom : o;
    if (src === head && o + len > keepHead) throw new NotScannable('a column inside the blob span');
    switch (t) {
      case 1:
        return src.readInt8(p);
      case 2:
        return src.readInt16BE(p);
      case 3:
        return src.readIntBE(p, 3);
      case 4:
        return src.readInt32BE(p);
      case 5:
        return src.readIntBE(p, 6);
      case 6:
        return src.readInt32BE(p) * 2 ** 32 + src.readUInt32BE(p + 4);
      case 7:
        return src.readDoubleBE(p);
    }
    if (t & 1) {
      // A short ASCII text (a task id) made in place: what the decoder gives, without its call and a view.
      if (len <= 32) {
        let ascii = true;
        for (let i = p; i < p + len && ascii; i++) ascii = src[i] < 0x80;
        if (ascii) {
          let text = '';
          for (let i = p; i < p + len; i++) text += String.fromCharCode(src[i]);
          return text;
        }
      }
      return utf8.decode(src.subarray(p, p + len));
    }
    return Uint8Array.prototype.slice.call(src, p, p + len);
  };
  /** Payload bytes [from, from+len), at bytes[at…], into the kept head and tail. */
  const take = (from: number, bytes: Buffer, at: number, len: number): void => {
    const h0 = Math.min(from + len, keepHead);
    if (h0 > from) bytes.copy(head, from, at, at + (h0 - from));
    const t0 = Math.max(from, tailFrom);
    if (from + len > t0) bytes.copy(tail, t0 - tailFrom, at + (t0 - from), at + len);
  };
  for (let first = true; first || nextLeaf(); first = false) {
    const h = 0;
    if (leaf[h] !== TABLE_LEAF) throw new NotScannable('not a leaf');
    const cells = leaf.readUInt16BE(h + 3);
    for (let i = 0; i < cells; i++) {
      let c = leaf.readUInt16BE(h + 8 + 2 * i);
      if (c >= ps) throw new NotScannable('a cell past its page');
      const size = varint(leaf, c);
      const a = varintLen;
      const rowid = varint(leaf, c + a);
      c += a + varintLen;
      if (rowid > Number.MAX_SAFE_INTEGER) throw new NotScannable('a rowid past 2^53 (or negative)');
      if (rowid <= after) continue;
      const local =
        size <= maxLocal ? size : minLocal + ((size - minLocal) % (usable - 4)) <= maxLocal ? minLocal + ((size - minLocal) % (usable - 4)) : minLocal;
      if (c + local + (local < size ? 4 : 0) > ps) throw new NotScannable('a cell past its page');
      // The record header lies in the local part (SQLite keeps at least minLocal bytes there).
      const hs = varint(leaf, c);
      if (hs > local) throw new NotScannable('a record header beyond the page');
      let n = 0;
      let body = hs;
      for (let off = c + varintLen; off < c + hs;) {
        const t = varint(leaf, off);
        off += varintLen;
        const len = valueSize(t);
        if (len < 0) throw new NotScannable('a reserved serial type');
        if (n === types.length) {
          const t2 = new Int32Array(2 * n);
          t2.set(types);
          types = t2;
          const o2 = new Float64Array(2 * n);
          o2.set(offsets);
          offsets = o2;
        }
        types[n] = t;
        offsets[n] = body;
        n++;
        body += len;
      }
      if (body !== size) throw new NotScannable('a record that does not fill its payload');
      // The bytes to keep: through the blob's head, and from the blob's end on.
      keepHead = size;
      tailFrom = size;
      const isBlob = blobIndex >= 0 && blobIndex < n && types[blobIndex] >= 12 && !(types[blobIndex] & 1);
      if (isBlob) {
        const start = offsets[blobIndex];
        const len = valueSize(types[blobIndex]);
        keepHead = start + Math.min(len, blobHead);
        tailFrom = start + len;
        if (size - tailFrom > MAX_TAIL) throw new NotScannable('columns after the blob too large');
      }
      if (keepHead > MAX_HEAD) throw new NotScannable('a row of more than 16 MB to keep');
      if (keepHead > head.length) head = Buffer.alloc(Math.max(keepHead, 2 * head.length));
      // The payload: the local part, then the overflow chain (each page's first 4 bytes name the next).
      take(0, leaf, c, local);
      if (local < size) {
        let next = leaf.readUInt32BE(c + local);
        let pos = local;
        const per = usable - 4;
        while (pos < size) {
          if (--budget < 0) throw new NotScannable('an overflow chain round in circles');
          const len = Math.min(per, size - pos);
          const end = pos + len;
          if (next < 2 || next > lastPage) throw new NotScannable(`overflow page ${next} is not in the database`);
          const at = (next - 1) * ps;
          if (pages.read(pointer, at) !== 4) throw new NotScannable('a short read');
          // Only the kept bytes are copied: a blob's middle is passed over.
          if (pos < keepHead) {
            const m = Math.min(end, keepHead) - pos;
            if (pages.read(head.subarray(pos, pos + m), at + 4) !== m) throw new NotScannable('a short read');
          }
          if (end > tailFrom) {
            const t0 = Math.max(pos, tailFrom);
            if (pages.read(tail.subarray(t0 - tailFrom, end - tailFrom), at + 4 + (t0 - pos)) !== end - t0) throw new NotScannable('a short read');
          }
          next = pointer.readUInt32BE(0);
          pos = end;
        }
      }
      for (let j = 0; j < cols.length; j++) {
        const col = cols[j];
        if (col === null) out[j] = null;
        else if (col === 'rowid') out[j] = rowid;
        else if (col >= n) throw new NotScannable('a record without a column (added later): its default is SQL’s to say');
        else out[j] = value(types[col], offsets[col]);
      }
      if (spec.blob) {
        if (blobIndex >= n) throw new NotScannable('a record without the blob column');
        if (isBlob) {
          out[cols.length] = valueSize(types[blobIndex]);
          out[cols.length + 1] = head.subarray(offsets[blobIndex], keepHead); // a view: valid until `row` returns
        } else {
          // NULL, or not a blob: no summary (as length/substr of SQL give no blob)
          out[cols.length] = null;
          out[cols.length + 1] = null;
        }
      }
      row(out);
    }
  }
}

/** Bytes of the varint `varint` read last. */
let varintLen = 0;

/** SQLite's varint at `off` (its bytes in `varintLen`; 9-byte ones as a double: rowids past 2^53 are not exact). */
function varint(b: Buffer, off: number): number {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = b[off + i];
    if (c === undefined) throw new NotScannable('a varint past its page');
    v = v * 128 + (c & 0x7f);
    if (!(c & 0x80)) {
      varintLen = i + 1;
      return v;
    }
  }
  const last = b[off + 8];
  if (last === undefined) throw new NotScannable('a varint past its page');
  varintLen = 9;
  return v * 256 + last;
}
