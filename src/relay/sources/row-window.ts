// What a client holds of an experience table's most recent rows, carried in its cursor so that a
// relay that did not send them (restarted, killed) re-sends only the rows that changed since:
// the last BUCKET_ROWS × WINDOW_BUCKETS (1024) row ids up to the cursor's, in buckets of BUCKET_ROWS ids, each bucket
// summed up by a digest of (id, reward, consumed) of its rows as they were sent. A resumed
// reader compares each bucket's digest with the database's rows now and re-sends the buckets
// that differ; unchanged rows do not come again. The digest is FNV-1a (32 bit) over, for each
// row of the bucket in id order: the id as int64 LE, the reward as float64 LE, consumed as
// int64 LE, a NULL as 8 bytes 0xff. A bucket whose rows the client may not hold as they are
// (a change waiting to be re-sent) is written as DIRTY, which never matches.

export const BUCKET_ROWS = 4;
const WINDOW_BUCKETS = 256;
const DIRTY = 'xxxxxxxx';

/** A row's state as the change tracking sees it (Trinity changes a row together with `consumed`). */
export interface RowState {
  id: number;
  reward: number | null;
  consumed: number | null;
}

const NULL8 = Buffer.alloc(8, 0xff);

/** FNV-1a of the rows' (id, reward, consumed), as 8 hex digits. */
export function bucketDigest(rows: readonly RowState[]): string {
  const b = Buffer.alloc(24);
  let h = 0x811c9dc5;
  for (const r of rows) {
    b.writeBigInt64LE(BigInt(r.id), 0);
    if (r.reward === null) NULL8.copy(b, 8);
    else b.writeDoubleLE(r.reward, 8);
    if (r.consumed === null) NULL8.copy(b, 16);
    else b.writeBigInt64LE(BigInt(Math.trunc(r.consumed)), 16);
    for (let i = 0; i < 24; i++) h = Math.imul(h ^ b[i], 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The buckets a cursor at row `last` describes: [first, end] bucket numbers. */
export function windowBuckets(last: number): [number, number] {
  const end = Math.floor(last / BUCKET_ROWS);
  return [Math.max(0, end - WINDOW_BUCKETS + 1), end];
}

/** A window as a cursor carries it: `<first bucket, base 36>:<8 hex digits per bucket>`. */
export interface EncodedWindow {
  first: number;
  digests: string[];
}

export function parseWindow(text: string): EncodedWindow | undefined {
  const m = /^([0-9a-z]{1,12}):((?:[0-9a-fx]{8}){0,256})$/.exec(text);
  if (!m) return undefined;
  return { first: parseInt(m[1], 36), digests: m[2].match(/.{8}/g) ?? [] };
}

/** The buckets whose rows now (`rows`, ids ≤ the cursor's) differ from what the window says the client holds. */
export function changedBuckets(w: EncodedWindow, rows: readonly RowState[]): number[] {
  const by = groupByBucket(rows);
  const out: number[] = [];
  w.digests.forEach((d, i) => {
    const b = w.first + i;
    if (d !== bucketDigest(by.get(b) ?? [])) out.push(b);
  });
  return out;
}

function groupByBucket(rows: readonly RowState[]): Map<number, RowState[]> {
  const by = new Map<number, RowState[]>();
  for (const r of rows) {
    const b = Math.floor(r.id / BUCKET_ROWS);
    let list = by.get(b);
    if (!list) by.set(b, (list = []));
    list.push(r);
  }
  return by;
}

/** One reader's record of the recent rows its client holds, as they were sent. */
export class RowWindow {
  private readonly rows = new Map<number, RowState>();

  /** Rows the client now holds as given (sent, or known to be as the client has them). */
  hold(rows: Iterable<RowState>, last: number): void {
    const [first] = windowBuckets(last);
    for (const r of rows) if (Math.floor(r.id / BUCKET_ROWS) >= first) this.rows.set(r.id, { id: r.id, reward: r.reward, consumed: r.consumed });
    this.prune(first);
  }

  /** The window of a cursor at row `last`; buckets holding a row of `dirty` (changes not sent yet) are written as DIRTY. */
  encode(last: number, dirty: Iterable<number>): string {
    const [first, end] = windowBuckets(last);
    this.prune(first);
    const by = groupByBucket([...this.rows.values()].filter((r) => r.id <= last).sort((a, b) => a.id - b.id));
    const dirtyBuckets = new Set<number>();
    for (const id of dirty) dirtyBuckets.add(Math.floor(id / BUCKET_ROWS));
    let out = '';
    for (let b = first; b <= end; b++) out += dirtyBuckets.has(b) ? DIRTY : bucketDigest(by.get(b) ?? []);
    return `${first.toString(36)}:${out}`;
  }

  private prune(first: number): void {
    for (const id of this.rows.keys()) if (Math.floor(id / BUCKET_ROWS) < first) this.rows.delete(id);
  }
}
