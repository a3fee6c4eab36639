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

/** One message sent as WebSocket fragments (the client joins them). */
export interface Fragments {
  fragments: Uint8Array[];
  binary: boolean;
}

/** Numbers written as the JSON array of `wire(v)` for each (only jsonFragments knows it: JSON.stringify does not). */
export class NumberColumn {
  constructor(
    readonly values: Float64Array,
    readonly wire: (v: number) => unknown = (v) => v,
  ) {}

  /** Items `from` to `to` (excluded) as a plain array (a plain loop: Array.from with a mapping function is twice as slow). */
  slice(from = 0, to = this.values.length): unknown[] {
    const end = Math.min(to, this.values.length);
    const out: unknown[] = [];
    const { values, wire } = this;
    for (let i = from; i < end; i++) out.push(wire(values[i]));
    return out;
  }
}

/** The UTF-8 fragments of `JSON.stringify(msg)` (one fragment for a message with no long array). */
export function jsonFragments(msg: unknown, chunkBytes = 64 * 1024): Buffer[] {
  return [...fragmentsOf(msg, chunkBytes)];
}

/** Work between two yields to the event loop (ms) while a long message is written. */
const SLICE_MS = 10;

/** jsonFragments, yielding to the event loop every SLICE_MS so that other clients take turns while a long answer is written. */
export async function jsonFragmentsInTurns(msg: unknown, chunkBytes = 64 * 1024): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let since = performance.now();
  for (const f of fragmentsOf(msg, chunkBytes)) {
    out.push(f);
    if (performance.now() - since >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
  return out;
}

function* fragmentsOf(msg: unknown, chunkBytes: number): Generator<Buffer> {
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
  if (!long.length) {
    yield Buffer.from(text);
    return;
  }
  let pending = '';
  /** Adds text; true when a fragment is ready (taken with `take`). */
  const add = (s: string) => {
    pending += s;
    return pending.length >= chunkBytes;
  };
  const take = () => {
    const b = Buffer.from(pending);
    pending = '';
    return b;
  };
  const marker = JSON.stringify(tag).slice(0, -1); // `"\u0000…:` as JSON writes it
  let at = 0;
  for (;;) {
    const m = text.indexOf(marker, at);
    if (m < 0) break;
    const close = text.indexOf('"', m + marker.length);
    const array = long[Number(text.slice(m + marker.length, close))];
    if (add(`${text.slice(at, m)}[`)) yield take();
    const length = array instanceof NumberColumn ? array.values.length : array.length;
    for (let i = 0; i < length; i += SLICE_ITEMS) {
      const part = JSON.stringify(array.slice(i, i + SLICE_ITEMS));
      if (add(i === 0 ? part.slice(1, -1) : `,${part.slice(1, -1)}`)) yield take();
    }
    if (add(']')) yield take();
    at = close + 1;
  }
  add(text.slice(at));
  if (pending) yield take();
}
