// Tag strings of event values, interned by their UTF-8 bytes: the hot decode path finds a
// tag it has seen without decoding a string, and hands the sink a small integer id with it.

export interface TagEntry {
  bytes: Buffer;
  tag: string;
  id: number;
}

/** Interns tag strings by their UTF-8 bytes, so the hot path rarely decodes a string. */
export class TagInterner {
  /** Direct-mapped cache on (length, first, middle, last byte): hits without hashing. */
  private readonly slots = new Array<TagEntry | undefined>(1024);
  private readonly table = new Map<number, TagEntry[]>();
  private count = 0;

  intern(buf: Uint8Array, start: number, len: number): TagEntry {
    const end = start + len;
    const slot = len === 0 ? 0 : (len * 31 + buf[start] * 7 + buf[start + (len >> 1)] * 3 + buf[end - 1]) & 1023;
    const hit = this.slots[slot];
    if (hit && same(hit.bytes, buf, start, len)) return hit;
    const e = this.lookup(buf, start, len);
    this.slots[slot] = e;
    return e;
  }

  private lookup(buf: Uint8Array, start: number, len: number): TagEntry {
    let h = Math.imul(len, 0x9e3779b1);
    for (let i = start, end = start + len; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    let bucket = this.table.get(h);
    if (bucket) {
      for (const e of bucket) if (same(e.bytes, buf, start, len)) return e;
    } else {
      bucket = [];
      this.table.set(h, bucket);
    }
    const bytes = Buffer.from(buf.subarray(start, start + len));
    const e = { bytes, tag: bytes.toString('utf8'), id: this.count++ };
    bucket.push(e);
    return e;
  }
}

function same(a: Buffer, buf: Uint8Array, start: number, len: number): boolean {
  if (a.length !== len) return false;
  let i = len - 1;
  // Tags often share prefixes ("rollout/…"): compare from the end, 4 bytes per step.
  for (; i >= 3; i -= 4) {
    if (a[i] !== buf[start + i] || a[i - 1] !== buf[start + i - 1] || a[i - 2] !== buf[start + i - 2] || a[i - 3] !== buf[start + i - 3]) return false;
  }
  for (; i >= 0; i--) if (a[i] !== buf[start + i]) return false;
  return true;
}
