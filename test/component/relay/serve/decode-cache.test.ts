// One decode per source, shared by every client of a relay (serve/decode-cache.ts):
// clients at any cursor still get every point exactly once, in order, and the relay
// decodes each batch once (its cache counters say so), within its memory bound. A real
// in-process relay and real WebSocket clients; small batches so that a file is many batches.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../../src/relay/serve/relay';
import type { Cursor } from '../../../../src/relay-protocol/messages';
import { silentLogger } from '../../../../src/base/log';
import { appendSteps } from '../appender';
import { collect, keyOf, tmpDir } from '../helpers';
import { byTag, pointsOf } from '../../../harness/relay-points';

const tagOfKey = (k: string) => k.slice(0, k.lastIndexOf('@'));

const BATCH = 4096; // the reader still reads ≥ 64 KiB: a batch is ~1200 points
const STEPS = 30_000; // × 2 tags: ~50 batches

function relayOn(dir: string, decodeCacheBytes: number): Relay {
  return new Relay({
    ...RELAY_DEFAULTS,
    root: { mode: 'logdir', dir },
    port: 0,
    token: undefined,
    allowOrigins: [],
    log: silentLogger,
    pollMs: 100,
    batchBytes: BATCH,
    decodeCacheBytes,
  });
}

interface Viewer {
  keys: string[];
  /** The cursor after each batch this client got, as "fid@offset". */
  ends: string[];
  cursors: Cursor[];
  /** Points received once each batch had arrived. */
  counts: number[];
  stale: () => number;
  done: (n: number) => Promise<void>;
  close: () => Promise<void>;
}

/** A client from `cursor` (the start when undefined) that records points and batch ends. */
function viewer(url: string, cursor?: Cursor): Viewer {
  const c = collect({ url, cursors: cursor ? [cursor] : [] });
  const v: Viewer = {
    keys: [],
    ends: [],
    cursors: [],
    counts: [],
    stale: () => c.client.stats.staleBatches,
    done: (n) => c.until((p) => p.length >= n, 30_000),
    close: () => c.client.close(),
  };
  c.client.on('points', (b) => {
    for (const p of pointsOf(b)) v.keys.push(keyOf(p));
    v.ends.push(`${b.cursor.fid}@${b.cursor.offset}`);
    v.cursors.push(b.cursor);
    v.counts.push(v.keys.length);
  });
  return v;
}

/** The whole stream and its batch boundaries, read by a relay without the cache. */
async function reference(dir: string, points: number): Promise<{ keys: string[]; cursors: Cursor[]; counts: number[] }> {
  const relay = relayOn(dir, 0);
  const v = viewer(await relay.start());
  try {
    await v.done(points);
    assert.equal(relay.decodeCache.stats.decoded, 0, 'a bound of 0 turns the cache off');
    return { keys: [...v.keys], cursors: [...v.cursors], counts: [...v.counts] };
  } finally {
    await v.close();
    await relay.close();
  }
}

const assertOnce = (keys: string[], what: string) => assert.equal(new Set(keys).size, keys.length, `${what}: no point twice`);

test('4 clients at different cursors get identical, complete, duplicate-free streams from one decode', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-shared-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, STEPS);
  const ref = await reference(dir, 2 * STEPS);
  assert.ok(ref.cursors.length >= 40, `many batches (${ref.cursors.length})`);
  const relay = relayOn(dir, 64 << 20);
  const url = await relay.start();
  const starts = [undefined, 5, 20, 35].map((i) => (i === undefined ? undefined : ref.cursors[i]));
  const skip = [0, 5, 20, 35].map((i) => (i === 0 ? 0 : ref.counts[i]));
  const vs = starts.map((c) => viewer(url, c));
  try {
    await Promise.all(vs.map((v, i) => v.done(2 * STEPS - skip[i])));
    appendSteps(file, STEPS, STEPS + 3000);
    const full = [...ref.keys];
    for (let s = STEPS; s < STEPS + 3000; s++) full.push(`train/loss@${s}`, `rollout/reward/mean@${s}`);
    await Promise.all(vs.map((v, i) => v.done(2 * STEPS + 6000 - skip[i])));
    vs.forEach((v, i) => {
      assert.deepEqual(
        byTag(v.keys, tagOfKey),
        byTag(full.slice(skip[i]), tagOfKey),
        `client ${i} (from point ${skip[i]}): the same stream, complete, each tag in order`,
      );
      assertOnce(v.keys, `client ${i}`);
      assert.equal(v.stale(), 0);
    });
    const st = relay.decodeCache.stats;
    const delivered = vs.reduce((n, v) => n + v.ends.length, 0);
    const distinct = new Set(vs.flatMap((v) => v.ends)).size;
    assert.equal(st.evicted, 0);
    assert.equal(st.decoded, distinct, `each batch decoded once (${st.decoded} decodes for ${distinct} distinct batches)`);
    assert.equal(st.served, delivered - distinct, 'every other delivery came from the cache');
    assert.ok(st.decoded < delivered / 2, `${st.decoded} decodes for ${delivered} batches delivered`);
  } finally {
    for (const v of vs) await v.close();
    await relay.close();
  }
});

test('a client joining late and one resuming from an old cursor are served from the cache, then share the new data', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-shared-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, STEPS);
  const relay = relayOn(dir, 64 << 20);
  const url = await relay.start();
  const first = viewer(url);
  const vs = [first];
  try {
    await first.done(2 * STEPS);
    const st = relay.decodeCache.stats;
    const decoded = st.decoded;
    const opened = st.opened;
    assert.equal(decoded, first.ends.length, 'the first client decoded every batch it got');
    const old = 12;
    const late = viewer(url);
    const resumed = viewer(url, first.cursors[old]);
    vs.push(late, resumed);
    await Promise.all([late.done(2 * STEPS), resumed.done(2 * STEPS - first.counts[old])]);
    assert.deepEqual(late.keys, first.keys, 'the late client: the whole stream, in order');
    assert.deepEqual(resumed.keys, first.keys.slice(first.counts[old]), 'the resumed client: exactly what followed its cursor');
    assert.equal(st.decoded, decoded, 'nothing decoded again for them');
    assert.equal(st.opened, opened, 'no reader opened for them');
    assert.equal(st.served, late.ends.length + resumed.ends.length);
    appendSteps(file, STEPS, STEPS + 3000);
    await Promise.all(vs.map((v) => v.done(v === resumed ? 2 * STEPS + 6000 - first.counts[old] : 2 * STEPS + 6000)));
    assert.equal(st.decoded - decoded, first.ends.length - decoded, 'the new data decoded once for the 3 clients');
    for (const v of vs) {
      assertOnce(v.keys, 'each client');
      assert.equal(v.stale(), 0);
    }
    assert.deepEqual(late.keys, first.keys);
  } finally {
    for (const v of vs) await v.close();
    await relay.close();
  }
});

test('the memory bound holds, and a cursor evicted from the cache is read on alone, exactly', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-shared-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, STEPS);
  const bound = 256 * 1024; // ~4 batches of ~55 KB
  const relay = relayOn(dir, bound);
  // Measure what the cache really holds (its entries, not its own byte counter) after every admission.
  const cache = relay.decodeCache as unknown as { caches: Map<string, { byStart: Map<string, { out: { data: Uint8Array } }> }>; admit(e: unknown): void };
  const admit = cache.admit.bind(cache);
  let peak = 0;
  cache.admit = (e) => {
    admit(e);
    let held = 0;
    for (const c of cache.caches.values()) for (const x of c.byStart.values()) held += x.out.data.length;
    peak = Math.max(peak, held);
  };
  const url = await relay.start();
  const vs = [viewer(url), viewer(url)];
  try {
    await Promise.all(vs.map((v) => v.done(2 * STEPS)));
    const st = relay.decodeCache.stats;
    // Two clients more than the bound apart each decode (the bound trades sharing for memory);
    // every batch still went through the cache.
    assert.equal(st.decoded + st.served, vs[0].ends.length + vs[1].ends.length, `the cache was used (${st.decoded} decoded, ${st.served} served)`);
    assert.ok(st.evicted > 0, 'the bound made it evict');
    assert.ok(peak <= bound, `held ${peak} bytes at most, bound ${bound}`);
    assert.ok(peak > bound / 2, `the bound was reached (peak ${peak})`);
    assert.equal(st.peakBytes, peak, 'its own counter agrees');
    const [a] = vs;
    const opened = st.opened;
    const old = 3;
    const resumed = viewer(url, a.cursors[old]);
    vs.push(resumed);
    await resumed.done(2 * STEPS - a.counts[old]);
    assert.ok(st.opened > opened, 'the evicted cursor got a reader of its own');
    assert.deepEqual(resumed.keys, a.keys.slice(a.counts[old]), 'exactly what followed its cursor');
    assert.deepEqual(vs[1].keys, a.keys, 'the two first clients got the same stream');
    for (const v of vs) {
      assertOnce(v.keys, 'each client');
      assert.equal(v.stale(), 0);
    }
    assert.equal(a.keys.length, 2 * STEPS);
    assert.ok(peak <= bound, `still within the bound (${peak})`);
  } finally {
    for (const v of vs) await v.close();
    await relay.close();
  }
});
