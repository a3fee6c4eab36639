// Binary points frames end to end: one relay serving two clients delivers every point written
// to both — NaN/±Inf included, backlog and live appends — as binary frames (a bare socket that
// subscribes gets points in no other form), from one shared decode. A real in-process relay
// and real sockets.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { wsText } from '../../harness/ws-text';
import { RELAY_DEFAULTS, Relay } from '../../../src/relay/serve/relay';
import { EventType } from '../../../src/tfrecord/event-proto';
import { frameRecord } from '../../../src/tfrecord/scan';
import { RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL } from '../../../src/relay-protocol/messages';
import { silentLogger } from '../../../src/base/log';
import { collect, tmpDir } from '../relay/helpers';
import type { RelayPoint } from '../../harness/relay-points';

const TAGS = ['train/loss', 'rollout/reward/mean', 'odd'];
/** Every 7th value of a tag is non-finite; tag 'odd' only has odd steps (an empty tag in some batches). */
const valueAt = (t: number, step: number) => (step % 7 === 3 ? [NaN, Infinity, -Infinity][t] : Math.fround(Math.sin(step + t) * 100));

/** Appends steps [from, to) to the file; the points written (as the relay reports them). */
type Written = Pick<RelayPoint, 'tag' | 'step' | 'wallTime' | 'value'>;

function append(file: string, from: number, to: number): Written[] {
  const parts: Buffer[] = [];
  const written: Written[] = [];
  for (let step = from; step < to; step++) {
    for (let t = 0; t < TAGS.length; t++) {
      if (t === 2 && step % 2 === 0) continue;
      const wallTime = 1.7e9 + step / 4;
      const ev = EventType.fromObject({ wall_time: wallTime, step, summary: { value: [{ tag: TAGS[t], simple_value: valueAt(t, step) }] } });
      parts.push(frameRecord(EventType.encode(ev).finish()));
      written.push({ tag: TAGS[t], step, wallTime, value: valueAt(t, step) });
    }
  }
  fs.appendFileSync(file, Buffer.concat(parts));
  return written;
}

const keys = (pts: Written[]) => pts.map((p) => `${p.tag}@${p.step}@${p.wallTime}=${p.value}`).sort();

/** A bare socket that subscribes and counts the frame kinds it gets. */
function frameCounter(url: string): { kinds: { binary: number; text: number }; close: () => void } {
  const kinds = { binary: 0, text: 0 };
  const ws = new WebSocket(url, RELAY_SUBPROTOCOL);
  ws.on('message', (data, isBinary) => {
    if (isBinary) kinds.binary++;
    else {
      kinds.text++;
      const m = JSON.parse(wsText(data)) as { type: string };
      if (m.type === 'hello') ws.send(JSON.stringify({ type: 'subscribe', protocol: RELAY_PROTOCOL_VERSION, cursors: [] }));
    }
  });
  return { kinds, close: () => ws.terminate() };
}

test('two clients of one relay get every point written, as binary frames from one decode', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-binary-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  const written = append(file, 0, 5000);
  const relay = new Relay({
    ...RELAY_DEFAULTS,
    root: { mode: 'logdir', dir },
    port: 0,
    token: undefined,
    allowOrigins: [],
    log: silentLogger,
    pollMs: 100,
    batchBytes: 4096,
    decodeCacheBytes: 64 << 20,
  });
  const url = await relay.start();
  const one = collect({ url });
  const two = collect({ url });
  let batches = 0;
  one.client.on('points', () => batches++);
  const raw = frameCounter(url);
  try {
    await Promise.all([one.until((p) => p.length >= written.length), two.until((p) => p.length >= written.length)]);
    // Live: appends after both caught up arrive too.
    written.push(...append(file, 5000, 6000));
    await Promise.all([one.until((p) => p.length >= written.length), two.until((p) => p.length >= written.length)]);
    assert.equal(one.points.length, written.length);
    assert.deepEqual(keys(one.points), keys(written), 'the points written, bit for bit');
    assert.deepEqual(one.points, two.points, 'the same to both, in the same order (tag by tag within a batch)');
    const nonFinite = one.points.filter((p) => !Number.isFinite(p.value)).map((p) => String(p.value));
    assert.deepEqual([...new Set(nonFinite)].sort(), ['-Infinity', 'Infinity', 'NaN']);
    assert.equal(one.client.stats.staleBatches, 0);
    // The bare socket: points as binary frames (hello and heartbeats stay JSON).
    const deadline = Date.now() + 20_000;
    while (raw.kinds.binary < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(raw.kinds.binary >= 10, `binary frames to a bare subscriber: ${JSON.stringify(raw.kinds)}`);
    // One decode for all three sessions: each batch decoded once.
    const st = relay.decodeCache.stats;
    assert.ok(st.decoded <= batches, `decoded ${st.decoded} ≤ ${batches} batches`);
    assert.ok(st.served >= st.decoded, `served ${st.served} from the cache`);
  } finally {
    raw.close();
    await one.client.close();
    await two.client.close();
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
