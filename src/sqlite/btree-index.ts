// Reads the entries of a SQLite index b-tree straight from its pages, so a change between two
// views of a database is found by comparing pages instead of re-reading rows: an UPDATE of an
// indexed column rewrites only the few index pages that hold the row's old and new entries.
// Format: https://www.sqlite.org/fileformat2.html (§1.6 b-tree pages, §2.1 record format).
import type { PageSource } from './sqlite-pages';

const INDEX_INTERIOR = 2;
const INDEX_LEAF = 10;
const TABLE_INTERIOR = 5;
const TABLE_LEAF = 13;

/** A whole database image as pages (tests build images in memory; the relay reads pages, sqlite-pages.ts). */
export function imagePages(image: Buffer): PageSource | undefined {
  if (image.length < 100) return undefined;
  const raw = image.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return undefined;
  return {
    pageSize,
    usable: pageSize - image[20],
    page: (pgno) => {
      const off = (pgno - 1) * pageSize;
      return pgno < 1 || off + pageSize > image.length ? undefined : image.subarray(off, off + pageSize);
    },
  };
}

/** Page 1 starts with the 100-byte database header. */
const headerOffset = (pgno: number): number => (pgno === 1 ? 100 : 0);

/**
 * The pages of the index b-tree rooted at `root` (page number → its bytes); undefined when
 * `root` is not an index b-tree or it has more than `maxPages` pages.
 */
export function indexTreePages(src: PageSource, root: number, maxPages: number): Map<number, Buffer> | undefined {
  const out = new Map<number, Buffer>();
  const stack = [root];
  while (stack.length) {
    const pgno = stack.pop()!;
    const p = out.has(pgno) ? undefined : src.page(pgno);
    if (!p) return undefined; // out of range, or a cycle: not a b-tree we can trust
    const h = headerOffset(pgno);
    const type = p[h];
    if (type !== INDEX_INTERIOR && type !== INDEX_LEAF) return undefined;
    out.set(pgno, p);
    if (out.size > maxPages) return undefined;
    if (type === INDEX_INTERIOR) {
      const n = p.readUInt16BE(h + 3);
      for (let i = 0; i < n; i++) stack.push(p.readUInt32BE(p.readUInt16BE(h + 12 + 2 * i)));
      stack.push(p.readUInt32BE(h + 8));
    }
  }
  return out;
}

/**
 * What is wrong with the structure of the table b-tree rooted at `root` — a page reached twice
 * (a cycle: SQLite would walk it again and again), a child past the end, a page of another kind —
 * or undefined when it holds. Each page is read once, at most `maxPages`.
 */
export function tableTreeProblem(src: PageSource, root: number, maxPages = 1_000_000): string | undefined {
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length) {
    const pgno = stack.pop()!;
    if (seen.has(pgno)) return `page ${pgno} of its b-tree is reached twice (a cycle)`;
    seen.add(pgno);
    if (seen.size > maxPages) return undefined;
    const p = src.page(pgno);
    if (!p) return `page ${pgno} of its b-tree is past the end of the database`;
    const h = headerOffset(pgno);
    if (p[h] === TABLE_LEAF) continue;
    if (p[h] !== TABLE_INTERIOR) return `page ${pgno} of its b-tree is not a table page`;
    const n = p.readUInt16BE(h + 3);
    for (let i = 0; i < n; i++) {
      const at = p.readUInt16BE(h + 12 + 2 * i);
      if (at + 4 > p.length) return `page ${pgno} of its b-tree has a cell past its end`;
      stack.push(p.readUInt32BE(at));
    }
    stack.push(p.readUInt32BE(h + 8));
  }
  return undefined;
}

/** SQLite's varint at `off`: [value, bytes]. */
function varint(b: Buffer, off: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const c = b[off + i];
    v = v * 128 + (c & 0x7f);
    if (!(c & 0x80)) return [v, i + 1];
  }
  return [v * 256 + b[off + 8], 9];
}

/** Bytes of a value of serial type t (§2.1). */
function valueSize(t: number): number {
  if (t >= 12) return (t - (t & 1 ? 13 : 12)) / 2;
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][t];
}

/** The integer a record ends with (an index entry ends with its row id); undefined when not an integer. */
function lastInteger(rec: Buffer): number | undefined {
  const [hs, a] = varint(rec, 0);
  if (hs > rec.length) return undefined;
  let off = a;
  let body = hs;
  let t = -1;
  let at = 0;
  while (off < hs) {
    const [st, k] = varint(rec, off);
    off += k;
    t = st;
    at = body;
    body += valueSize(st);
  }
  if (t === 8 || t === 9) return t - 8;
  if (t < 1 || t > 6 || body > rec.length) return undefined;
  const n = valueSize(t);
  return n <= 6 ? rec.readIntBE(at, n) : Number(rec.readBigInt64BE(at));
}

export interface IndexEntry {
  /** The entry's record bytes (key columns and row id), as a string to put in a Set. */
  key: string;
  rowid: number;
}

/** The entries stored on one index page (interior pages hold entries too). */
export function indexEntries(p: Buffer, pgno: number, usable: number): IndexEntry[] {
  const h = headerOffset(pgno);
  const interior = p[h] === INDEX_INTERIOR;
  if (!interior && p[h] !== INDEX_LEAF) return [];
  const n = p.readUInt16BE(h + 3);
  const ptrs = h + (interior ? 12 : 8);
  // Largest payload kept on the page (§1.6); a longer one spills: not a small (key, rowid) entry.
  const maxLocal = Math.floor(((usable - 12) * 64) / 255) - 23;
  const out: IndexEntry[] = [];
  for (let i = 0; i < n; i++) {
    let off = p.readUInt16BE(ptrs + 2 * i) + (interior ? 4 : 0);
    if (off >= p.length) continue;
    const [size, k] = varint(p, off);
    off += k;
    if (size > maxLocal || off + size > p.length) continue;
    const rec = p.subarray(off, off + size);
    const rowid = lastInteger(rec);
    if (rowid !== undefined) out.push({ key: rec.toString('latin1'), rowid });
  }
  return out;
}
