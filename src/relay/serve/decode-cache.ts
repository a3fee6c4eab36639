// One decode per source, shared by every client session of a relay: N viewers of one event
// file must not cost N decodes. A decoded batch is kept as the bytes it goes on the socket as
// (a points batch's binary frame), encoded once whatever the number of sessions that send it;
// keyed by the cursor it starts at, under one memory bound for the whole relay (oldest evicted
// first). Sessions keep only cursors: the batch starting at a session's cursor comes from the
// cache when some session decoded it already; otherwise the session decodes it — with the
// source's reader parked at that position if there is one (so viewers reading together drive
// one reader between them), else a reader of its own at its cursor (a cursor before the cache,
// or resuming from an old cursor) — and the result joins the cache for the others. Decodes of
// one position are single-flight. Correctness first: a session only ever gets the batch that
// starts exactly at its cursor, so every point arrives once, in order.
import type { Cursor } from '../../relay-protocol/messages';
import { encodePointsFrame } from '../../relay-protocol/points-frame';
import type { Batch, Source, SourceReader } from '../sources/source';

/** A batch as it goes on the socket: its bytes, and whether they are a binary frame. */
export interface Outgoing {
  data: Uint8Array;
  binary: boolean;
}

/** What a session reads from: a pre-serialized shared batch, or a batch of its own. */
export interface Feed {
  next(budget: number): Promise<Outgoing | Batch | undefined>;
  close(): void;
}

/** A batch as it goes on the socket: points as a binary frame, experience rows as JSON. */
export function serialize(batch: Batch): Outgoing {
  if (batch.type === 'points') return { data: encodePointsFrame(batch), binary: true };
  return { data: Buffer.from(JSON.stringify(batch)), binary: false };
}

export interface DecodeCacheStats {
  /** Batches decoded (each position once while cached, whatever the number of viewers). */
  decoded: number;
  /** Batches sent from the cache (decoded by another session). */
  served: number;
  /** Readers opened: one per position no parked reader was at (a new viewer's cursor, a gap). */
  opened: number;
  /** Batches dropped to stay under the bound. */
  evicted: number;
  bytes: number;
  peakBytes: number;
  boundBytes: number;
}

interface Entry {
  readonly cache: SourceCache;
  readonly start: string;
  readonly end: Cursor;
  /** The batch as it goes on the socket. */
  readonly out: Outgoing;
}

/** Where a cursor points, as a map key ('' = the start of the source). */
function cursorKey(c: Cursor | undefined): string {
  return c ? `${c.fid ?? ''}@${c.offset}` : '';
}

/** Readers kept between reads, at most this many per source (a session that left may leave one). */
const MAX_PARKED = 16;

/** The decoded batches of one source, and its readers parked where their next batch starts. */
class SourceCache {
  readonly byStart = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry | undefined>>();
  private readonly parked = new Map<string, SourceReader>();
  private closed = false;

  constructor(
    private readonly owner: DecodeCache,
    readonly source: Source,
  ) {}

  /** The batch starting at `cursor` (decoded once, whoever asks), or undefined when there is nothing new. */
  async at(cursor: Cursor | undefined, budget: number): Promise<Entry | undefined> {
    const key = cursorKey(cursor);
    for (;;) {
      const hit = this.byStart.get(key);
      if (hit) {
        this.owner.count('served');
        return hit;
      }
      const pending = this.inflight.get(key);
      if (!pending) break;
      // Another session is decoding this very batch: wait for it, then look again.
      if (!(await pending)) return undefined;
    }
    const p = this.decode(key, cursor, budget).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async decode(key: string, cursor: Cursor | undefined, budget: number): Promise<Entry | undefined> {
    let reader = this.parked.get(key);
    if (reader) this.parked.delete(key);
    else {
      reader = this.source.open(cursor);
      this.owner.count('opened');
    }
    let batch: Batch | undefined;
    try {
      batch = await reader.next(budget);
    } catch (e) {
      reader.close();
      throw e;
    }
    if (!batch) {
      this.park(key, reader, true); // at the live edge: the next poll reads on with it
      return undefined;
    }
    const entry: Entry = { cache: this, start: key, end: batch.cursor, out: serialize(batch) };
    this.owner.admit(entry);
    this.park(cursorKey(batch.cursor), reader);
    return entry;
  }

  /** Keeps a reader where its next batch starts, unless another reader already decoded from there. */
  private park(key: string, reader: SourceReader, stayed = false): void {
    // Closed: a decode that was under way when the relay stopped must not leave its reader open.
    if (this.closed || this.byStart.has(key) || this.parked.has(key) || (!stayed && this.inflight.has(key))) {
      reader.close();
      return;
    }
    this.parked.set(key, reader);
    if (this.parked.size > MAX_PARKED) {
      const [oldKey, old] = this.parked.entries().next().value as [string, SourceReader];
      this.parked.delete(oldKey);
      old.close();
    }
  }

  close(): void {
    this.closed = true;
    for (const r of this.parked.values()) r.close();
    this.parked.clear();
  }
}

export class DecodeCache {
  private readonly caches = new Map<string, SourceCache>();
  /** Every cached entry, oldest first (eviction order across sources). */
  private readonly queue: Entry[] = [];
  private qHead = 0;
  private readonly s: DecodeCacheStats;

  constructor(boundBytes: number) {
    this.s = { decoded: 0, served: 0, opened: 0, evicted: 0, bytes: 0, peakBytes: 0, boundBytes };
  }

  get stats(): Readonly<DecodeCacheStats> {
    return this.s;
  }

  /** Sources whose reads are shared: the event files (the costly decode); others read per session. */
  shares(source: Source): boolean {
    return source.info.kind === 'tfevents' && this.s.boundBytes > 0;
  }

  /** A session's feed of `source` from `cursor`. */
  feed(source: Source, cursor: Cursor | undefined): Feed {
    if (!this.shares(source)) return source.open(cursor);
    let cache = this.caches.get(source.info.id);
    if (!cache) {
      cache = new SourceCache(this, source);
      this.caches.set(source.info.id, cache);
    }
    return new SharedFeed(this, cache, cursor);
  }

  /** Stores a freshly decoded entry, evicting the oldest to stay within the bound. */
  admit(e: Entry): void {
    this.s.decoded++;
    const size = e.out.data.length;
    if (size > this.s.boundBytes) return;
    this.trim(this.s.boundBytes - size);
    e.cache.byStart.set(e.start, e);
    this.queue.push(e);
    this.s.bytes += size;
    this.s.peakBytes = Math.max(this.s.peakBytes, this.s.bytes);
  }

  /** Evicts the oldest entries until at most `bytes` are held. */
  private trim(bytes: number): void {
    while (this.s.bytes > bytes && this.qHead < this.queue.length) {
      const old = this.queue[this.qHead++];
      if (old.cache.byStart.get(old.start) === old) old.cache.byStart.delete(old.start);
      this.s.bytes -= old.out.data.length;
      this.s.evicted++;
    }
    if (this.qHead > 1024 && this.qHead * 2 > this.queue.length) {
      this.queue.splice(0, this.qHead); // compact now and then: shift() per eviction is O(n)
      this.qHead = 0;
    }
  }

  count(what: 'served' | 'opened'): void {
    this.s[what]++;
  }

  /** One line for the relay's log. */
  describe(): string {
    const s = this.s;
    const mb = (n: number) => (n / 1048576).toFixed(1);
    return `relay: decode cache: ${s.decoded} batch(es) decoded, ${s.served} sent from the cache, ${s.opened} reader(s) opened, ${s.evicted} evicted; peak ${s.peakBytes} bytes (${mb(s.peakBytes)} MiB) of a ${s.boundBytes}-byte bound`;
  }

  close(): void {
    for (const c of this.caches.values()) c.close();
    this.caches.clear();
    this.queue.length = 0;
    this.qHead = 0;
    this.s.bytes = 0;
  }
}

/** One session's view of a shared source: nothing but its cursor. */
class SharedFeed implements Feed {
  constructor(
    private readonly owner: DecodeCache,
    private readonly cache: SourceCache,
    private cursor: Cursor | undefined,
  ) {}

  async next(budget: number): Promise<Outgoing | undefined> {
    const entry = await this.cache.at(this.cursor, budget);
    if (!entry) return undefined;
    this.cursor = entry.end;
    return entry.out;
  }

  close(): void {
    // Nothing of its own: readers belong to the source's cache.
  }
}
