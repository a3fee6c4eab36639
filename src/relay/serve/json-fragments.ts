// A JSON message as the fragments of one WebSocket message, none much over `chunkBytes`: its
// long arrays (a `detail` answer's 100 k points, a timeline's events) are written a slice at a
// time, so neither the whole text nor its Buffer copy is ever held. A reading client flooding
// `detail` requests for 50 k points made the relay build a ~2 MB string and a ~2 MB Buffer per
// answer, 20 answers a second; as objects of V8's large-object space they stayed until a full
// collection, and the relay's RSS went from 164 to 242 MB (relay-hostile bench). Slices are
// young objects, gone at the next scavenge. A message may hold its numbers as NumberColumns
// (typed arrays, outside the heap), written as JSON arrays. The client's WebSocket joins the
// fragments: it reads the same message as JSON.stringify's of the plain arrays, byte for byte.
import * as crypto from 'node:crypto';

/** Arrays at least this long are written a slice at a time. */
const LONG_ARRAY = 1024;
/** Items of a long array stringified together. */
const SLICE_ITEMS = 2048;

/** Numbers written as the JSON array of `wire(v)` for each (only jsonFragments knows it: JSON.stringify does not). */
export class NumberColumn {
  constructor(
    readonly values: Float64Array,
    readonly wire: (v: number) => unknown = (v) => v,
  ) {}

  /** Items `from` to `to` (excluded) as a plain array. */
  slice(from = 0, to = this.values.length): unknown[] {
    return Array.from(this.values.subarray(from, to), this.wire);
  }
}

/** The UTF-8 fragments of `JSON.stringify(msg)` (one fragment for a message with no long array). */
export function jsonFragments(msg: unknown, chunkBytes = 64 * 1024): Buffer[] {
  const long: (unknown[] | NumberColumn)[] = [];
  // A marker no string of the message can hold by chance: NUL characters and a random tag.
  const tag = `\u0000${crypto.randomBytes(6).toString('hex')}:`;
  const text = JSON.stringify(msg, (_key, value: unknown) => {
    if (value instanceof NumberColumn) {
      if (value.values.length < LONG_ARRAY) return value.slice();
    } else if (!Array.isArray(value) || value.length < LONG_ARRAY) return value;
    long.push(value);
    return `${tag}${long.length - 1}`;
  });
  if (!long.length) return [Buffer.from(text)];
  const out: Buffer[] = [];
  let pending = '';
  const add = (s: string) => {
    pending += s;
    if (pending.length >= chunkBytes) {
      out.push(Buffer.from(pending));
      pending = '';
    }
  };
  const marker = JSON.stringify(tag).slice(0, -1); // `"\u0000…:` as JSON writes it
  let at = 0;
  for (;;) {
    const m = text.indexOf(marker, at);
    if (m < 0) break;
    const close = text.indexOf('"', m + marker.length);
    const array = long[Number(text.slice(m + marker.length, close))];
    add(text.slice(at, m));
    add('[');
    const length = array instanceof NumberColumn ? array.values.length : array.length;
    for (let i = 0; i < length; i += SLICE_ITEMS) {
      const part = JSON.stringify(array.slice(i, i + SLICE_ITEMS));
      add(i === 0 ? part.slice(1, -1) : `,${part.slice(1, -1)}`);
    }
    add(']');
    at = close + 1;
  }
  add(text.slice(at));
  if (pending) out.push(Buffer.from(pending));
  return out;
}
