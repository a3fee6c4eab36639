// The strings of a Ray timeline.json (pid, tid, cat, name of each event) by id, for
// timeline-scan.ts: found by their UTF-8 bytes in the file's buffer, so no string is made for one
// already seen. A million events hold a few hundred distinct strings; each event's are matched
// against the one its field likely holds (Ray's events come in cycles), else a cache of recent
// entries by a cheap key, else a hash of the bytes.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/** Slots of StringTable's cache of recent entries (a power of two). */
const RECENT = 1024;
/** The event's fields StringTable tracks apart: pid, tid, cat, name. */
const SLOTS = 4;

/** Strings by id, found by their UTF-8 bytes (no string made for one already seen) or by text. */
export class StringTable {
  readonly text: string[] = [];
  private readonly ids = new Map<string, number>();
  /** hash → first entry; entries: the bytes, their id, the next entry of the same hash. */
  private readonly head = new Map<number, number>();
  private readonly entryBytes: Buffer[] = [];
  private readonly entryId: number[] = [];
  private readonly entryNext: number[] = [];

  /** Entries by a cheap key of their bytes (length and three of them), tried before the hash. */
  private readonly recent = new Int32Array(RECENT).fill(-1);
  /** Per slot (a field of the event), the entry it found last; per entry and slot, the one found after it the last time. */
  private readonly lastOf = new Int32Array(SLOTS).fill(-1);
  private readonly nextOf: number[] = [];
  /** Per entry, whether its bytes hold no quote, backslash or control byte (they can be matched in place). */
  private readonly entryPlain: boolean[] = [];

  /**
   * The entry `slot` likely finds now: the one it found after its last entry the last time
   * (Ray's events come in cycles: deserialize, execute, store outputs, the task), else that last
   * one; -1 when none or one that cannot be matched in place (see `guessBytes`, `found`).
   */
  guess(slot: number): number {
    const last = this.lastOf[slot];
    if (last < 0) return -1;
    const next = this.nextOf[last * SLOTS + slot];
    const k = next < 0 ? last : next;
    return this.entryPlain[k] ? k : -1;
  }

  guessBytes(k: number): Buffer {
    return this.entryBytes[k];
  }

  /** The guessed entry `k` was the one: its id. */
  found(slot: number, k: number): number {
    const last = this.lastOf[slot];
    if (last >= 0) this.nextOf[last * SLOTS + slot] = k;
    this.lastOf[slot] = k;
    return this.entryId[k];
  }

  /** The id of the string in bytes [s, e), found for `slot`: tried first against the entry last found under its cheap key (no hash then). */
  ofBytes(slot: number, b: Buffer, s: number, e: number): number {
    const len = e - s;
    const r = len === 0 ? 0 : (len * 61 + b[s + (len >> 2)] * 7 + b[s + (len >> 1)] * 31 + b[e - 1]) & (RECENT - 1);
    const last = this.recent[r];
    if (last >= 0) {
      const have = this.entryBytes[last];
      if (have.length === len) {
        let j = 0;
        while (j < len && have[j] === b[s + j]) j++;
        if (j === len) return this.found(slot, last);
      }
    }
    const k = this.entryOf(b, s, e, hashOf(b, s, e));
    this.recent[r] = k;
    return this.found(slot, k);
  }

  /** The entry of the string in bytes [s, e) (of that hash), made when new. */
  private entryOf(b: Buffer, s: number, e: number, hash: number): number {
    const len = e - s;
    let k = this.head.get(hash);
    while (k !== undefined) {
      const have = this.entryBytes[k];
      if (have.length === len) {
        let j = 0;
        while (j < len && have[j] === b[s + j]) j++;
        if (j === len) return k;
      }
      k = this.entryNext[k] < 0 ? undefined : this.entryNext[k];
    }
    const id = this.ofText(b.toString('utf8', s, e), false);
    return this.addEntry(Buffer.from(b.subarray(s, e)), hash, id);
  }

  ofString(t: string): number {
    return this.ofText(t, true);
  }

  private ofText(t: string, withBytes: boolean): number {
    let id = this.ids.get(t);
    if (id === undefined) {
      id = this.text.length;
      this.text.push(t);
      this.ids.set(t, id);
      if (withBytes) {
        const bytes = Buffer.from(t, 'utf8');
        this.addEntry(bytes, hashOf(bytes, 0, bytes.length), id);
      }
    }
    return id;
  }

  private addEntry(bytes: Buffer, hash: number, id: number): number {
    const k = this.entryBytes.length;
    this.entryBytes.push(bytes);
    let plain = true;
    for (const c of bytes) if (c === QUOTE || c === BACKSLASH || c < 0x20) plain = false;
    this.entryPlain.push(plain);
    for (let slot = 0; slot < SLOTS; slot++) this.nextOf.push(-1);
    this.entryId.push(id);
    this.entryNext.push(this.head.get(hash) ?? -1);
    this.head.set(hash, k);
    return k;
  }
}

function hashOf(b: Buffer, s: number, e: number): number {
  let h = FNV_OFFSET;
  for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], FNV_PRIME);
  return h;
}
