// A session's part in envelope-first opening, kept beside session.ts: which
// sources get an envelope, and the answer to a client's `detail` request, read from the file
// regions the shared envelope pass indexed (envelope/detail.ts).
import * as fs from 'node:fs';
import type { DetailMessage, DetailRequestMessage } from '../../relay-protocol/envelope';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import type { Cursor, ServerMessage, SubscribeMessage } from '../../relay-protocol/messages';
import type { ErrorDigest } from './error-digest';
import { readDetailColumns, releaseColumns } from '../envelope/detail';
import { toWireNumber } from '../../relay-protocol/messages';
import { type Fragments, NumberColumn, jsonFragmentsInTurns } from './json-fragments';
import type { EnvelopeCache } from '../envelope/cache';
import { FileSource, Source } from '../sources/source';

/** Buckets of the pass a detail request rebuilds an index with when its pass was dropped. */
const INDEX_ONLY_BUCKETS = 2;

function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** The event file of a source that can be opened envelope-first; undefined for the others. */
function envelopeFile(source: Source): string | undefined {
  return source.info.kind === 'tfevents' && source instanceof FileSource ? source.file : undefined;
}

export interface DetailHost {
  sources(): Source[];
  envelopes?: EnvelopeCache;
}

/**
 * The exact points (or a finer envelope) of a tag's step range, up to the client's envelope
 * cursor: as the fragments of its JSON (its points written from their columns, in turns with
 * other clients), or an error message.
 */
export async function answerDetail(host: DetailHost, m: DetailRequestMessage): Promise<DetailMessage | Fragments> {
  const base = { type: 'detail' as const, request: m.request, source: m.source, tag: m.tag, from: m.from, to: m.to };
  const source = host.sources().find((s) => s.info.id === m.source);
  const file = source && envelopeFile(source);
  const cache = host.envelopes;
  if (!file || !cache) return { ...base, error: `no event file '${m.source.slice(0, 200)}'` };
  try {
    let pass = cache.indexed(m.source, m.cursor.fid);
    // Dropped from the cache (memory bound): index the file again.
    if (!pass || pass.offset < m.cursor.offset) pass = await cache.envelope(m.source, file, INDEX_ONLY_BUCKETS);
    if (pass.fid !== m.cursor.fid) return { ...base, error: 'the event file was replaced since its envelope' };
    const regions = pass.index.regions(m.from, m.to, m.cursor.offset);
    const { points, envelope } = await readDetailColumns(file, regions, m);
    if (envelope) return { fragments: await jsonFragmentsInTurns({ ...base, envelope }), binary: false };
    const { step, wallTime, value } = points!;
    try {
      const answer = { ...base, points: { step: new NumberColumn(step), wallTime: new NumberColumn(wallTime), value: new NumberColumn(value, toWireNumber) } };
      return { fragments: await jsonFragmentsInTurns(answer), binary: false };
    } finally {
      releaseColumns(points!); // written out: the next answers reuse them
    }
  } catch (e) {
    return { ...base, error: (e as Error).message };
  }
}

/** What a session lends its envelope-first sources. */
export interface EnvelopeSessionHooks {
  send(m: ServerMessage): void;
  /** Sends one tag's envelope in the form the client asked for (binary frame or JSON). */
  envelope(b: EnvelopeBatch): void;
  /** False once the session closed or subscribed anew (the result is dropped). */
  current(): boolean;
  /** Streams `source` live from `cursor` (the envelope's end; undefined: its start). */
  open(source: Source, cursor: Cursor | undefined): void;
}

/** The event files of one session waiting for their envelope before their live stream. */
export class EnvelopeFirst {
  private waiting: { source: Source; file: string }[] = [];

  clear(): void {
    this.waiting = [];
  }

  /** Whether `source` waits for its envelope (read from its beginning, the client asked) instead of a reader now. */
  wait(source: Source, sub: SubscribeMessage | undefined, host: DetailHost, hasCursor: boolean): boolean {
    const asked = sub?.envelope && host.envelopes && !hasCursor ? envelopeFile(source) : undefined;
    const file = asked !== undefined && sizeOf(asked) >= (sub?.envelope?.minBytes ?? 0) ? asked : undefined;
    if (file !== undefined) this.waiting.push({ source, file });
    return file !== undefined;
  }

  /** Sends the envelope of each waiting file (the shared pass reads on to its end), then opens its live stream after it. */
  async send(host: DetailHost & { errors: ErrorDigest }, sub: SubscribeMessage | undefined, hooks: EnvelopeSessionHooks): Promise<void> {
    const buckets = sub?.envelope?.buckets;
    const cache = host.envelopes;
    while (this.waiting.length && buckets && cache && hooks.current()) {
      const { source, file } = this.waiting.shift()!;
      const id = source.info.id;
      let cursor: Cursor | undefined;
      try {
        const pass = await cache.envelope(id, file, buckets);
        if (!hooks.current()) return;
        for (const b of pass.messages(source.info)) {
          hooks.envelope(b);
          cursor = b.cursor;
        }
      } catch (e) {
        const message = (e as Error).message;
        if (host.errors.fail(`relay: source ${id}`, message)) hooks.send({ type: 'error', code: 'source-error', message, source: id });
      }
      // Without an envelope (no scalars yet, a failed read) the source streams from its start.
      hooks.open(source, cursor);
    }
  }
}
