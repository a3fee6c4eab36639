// The shared decode (serve/decode-cache.ts) against a fake source whose batches are numbered
// points: concurrent readers at one position cause one decode, one reader travels on between
// sessions, the memory bound evicts the oldest, and an evicted cursor is read again exactly.
// The same cache behind real sockets: test/component/relay/serve/decode-cache.test.ts.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeCache, Feed } from '../../../../src/relay/serve/decode-cache';
import type { Batch, Source, SourceReader } from '../../../../src/relay/sources/source';
import type { Cursor, SourceInfo } from '../../../../src/relay-protocol/messages';
import { decodePointsFrame } from '../../../../src/relay-protocol/points-frame';

const info: SourceInfo = { id: 'run/events', kind: 'tfevents', run: 'run', role: '', path: 'events' };

/** A source of `total` points, `per` to a batch; counts opens and decodes. */
function fakeSource(total: number, per: number) {
  const counts = { opened: 0, decoded: 0 };
  const source: Source = {
    info,
    watchPaths: [],
    open(cursor: Cursor | undefined): SourceReader {
      counts.opened++;
      let at = cursor?.offset ?? 0;
      return {
        async next(): Promise<Batch | undefined> {
          await Promise.resolve();
          if (at >= total) return undefined;
          counts.decoded++;
          const n = Math.min(per, total - at);
          const step = Float64Array.from({ length: n }, (_, i) => at + i);
          at += n;
          return {
            type: 'points',
            source: info.id,
            run: 'run',
            role: '',
            series: [{ tag: 't', step, wallTime: step, value: step }],
            cursor: { source: info.id, fid: 'f', offset: at },
          };
        },
        close: () => undefined,
      };
    },
  };
  return { source, counts };
}

/** Reads a feed to its end: the steps, in order (each batch a binary points frame). */
async function drain(feed: Feed): Promise<number[]> {
  const out: number[] = [];
  for (;;) {
    const b = await feed.next(1000);
    if (!b) return out;
    assert.ok('data' in b, 'a shared batch comes serialized');
    assert.equal(b.binary, true);
    for (const s of decodePointsFrame(b.data).series) out.push(...s.step);
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

test('DecodeCache: 4 feeds reading together decode each batch once, with one reader', async () => {
  const { source, counts } = fakeSource(1000, 10);
  const cache = new DecodeCache(1 << 20);
  const got = await Promise.all([0, 1, 2, 3].map(() => drain(cache.feed(source, undefined))));
  for (const g of got) assert.deepEqual(g, range(0, 1000));
  assert.equal(counts.decoded, 100, 'each batch decoded once');
  assert.equal(counts.opened, 1, 'one reader traveled on for all four');
  assert.equal(cache.stats.served, 300);
});

test('DecodeCache: the bound evicts the oldest; an evicted cursor is read on exactly, by a reader of its own', async () => {
  const { source, counts } = fakeSource(1000, 10);
  const one = (await drain(new DecodeCache(1 << 20).feed(source, undefined))).length;
  assert.equal(one, 1000);
  const probe = new DecodeCache(1 << 20);
  await drain(probe.feed(source, { source: info.id, fid: 'f', offset: 990 }));
  const size = probe.stats.bytes; // one batch, serialized
  const bound = size * 5 + 1;
  const cache = new DecodeCache(bound);
  counts.opened = 0;
  assert.deepEqual(await drain(cache.feed(source, undefined)), range(0, 1000));
  assert.ok(cache.stats.peakBytes <= bound, `${cache.stats.peakBytes} ≤ ${bound}`);
  assert.ok(cache.stats.evicted >= 90, `evicted ${cache.stats.evicted}`);
  assert.deepEqual(await drain(cache.feed(source, { source: info.id, fid: 'f', offset: 100 })), range(100, 1000));
  assert.equal(counts.opened, 2, 'the old cursor opened its own reader');
  assert.ok(cache.stats.peakBytes <= bound);
  cache.close();
});

test('DecodeCache: only event files are shared; a bound of 0 turns it off', () => {
  const { source } = fakeSource(10, 10);
  const log: Source = { ...source, info: { ...info, kind: 'log' } };
  assert.equal(new DecodeCache(1 << 20).shares(source), true);
  assert.equal(new DecodeCache(1 << 20).shares(log), false);
  assert.equal(new DecodeCache(0).shares(source), false);
});
