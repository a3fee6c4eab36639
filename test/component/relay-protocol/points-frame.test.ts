// Binary points frames beside JSON: one relay serving a client that asked for
// binary frames and one that did not (an older client, `agentrl tail` of an older release)
// delivers the same points to both — NaN/±Inf included, backlog and live appends — in the
// frame kind each asked for, from one shared decode. A real in-process relay and real sockets.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { RELAY_DEFAULTS, Relay } from '../../../src/relay/serve/relay';
import { EventType } from '../../../src/tfrecord/event-proto';
import { frameRecord } from '../../../src/tfrecord/scan';
import { RELAY_PROTOCOL_VERSION, RELAY_SUBPROTOCOL } from '../../../src/relay-protocol/messages';
import { silentLogger } from '../../../src/base/log';
import { collect, jsonSubscriber, tmpDir } from '../relay/helpers';
import type { RelayPoint } from '../../harness/relay-points';

const TAGS = ['train/loss', 'rollout/reward/mean', 'odd'];
/** Every 7th value of a tag is non-finite; tag 'odd' only has odd steps (an empty tag in some batches). */
const valueAt = (t: number, step: number) => (step % 7 === 3 ? [NaN, Infinity, -Infinity][t] : Math.fround(Math.sin(step + t) * 100));

function append(file: string, from: number, to: number): number {
  const parts: Buffer[] = [];
  let n = 0;
  for (let step = from; step < to; step++) {
    for (let t = 0; t < TAGS.length; t++) {
      if (t === 2 && step % 2 === 0) continue;
      const ev = EventType.fromObject({ wall_time: 1.7e9 + step / 4, step, summary: { value: [{ tag: TAGS[t], simple_value: valueAt(t, step) }] } });
      parts.push(frameRecord(EventType.encode(ev).finish()));
      n++;
    }
  }
  fs.appendFileSync(file, Buffer.concat(parts));
  return n;
}

const keys = (pts: RelayPoint[]) => pts.map((p) => `${p.run}/${p.role}/${p.tag}@${p.step}@${p.wallTime}=${p.value}`).sort();

/** A bare socket that subscribes (asking for binary frames or not) and counts the frame kinds it gets. */
function frameCounter(url: string, binary: boolean): { kinds: { binary: number; text: number }; close: () => void } {
  const kinds = { binary: 0, text: 0 };
  const ws = new WebSocket(url, RELAY_SUBPROTOCOL);
  ws.on('message', (data, isBinary) => {
    if (isBinary) kinds.binary++;
    else {
      kinds.text++;
      const m = JSON.parse(String(data)) as { type: string };
      if (m.type === 'hello') ws.send(JSON.stringify({ type: 'subscribe', protocol: RELAY_PROTOCOL_VERSION, cursors: [], ...(binary ? { binary: ['points'] } : {}) }));
    }
  });
  return { kinds, close: () => ws.terminate() };
}

test('a JSON client and a binary client of one relay get the same points, each in its own frames', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-binary-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  let total = append(file, 0, 5000);
  const relay = new Relay({ ...RELAY_DEFAULTS, root: { mode: 'logdir', dir }, port: 0, token: undefined, allowOrigins: [], log: silentLogger, pollMs: 100, batchBytes: 4096, decodeCacheBytes: 64 << 20 });
  const url = await relay.start();
  const bin = collect({ url });
  const json = jsonSubscriber(url);
  let batches = 0;
  bin.client.on('points', () => batches++);
  const rawBin = frameCounter(url, true);
  const rawJson = frameCounter(url, false);
  try {
    await Promise.all([bin.until((p) => p.length >= total), json.until((p) => p.length >= total)]);
    // Live: appends after both caught up arrive in both forms too.
    total += append(file, 5000, 6000);
    await Promise.all([bin.until((p) => p.length >= total), json.until((p) => p.length >= total)]);
    assert.equal(bin.points.length, total);
    assert.deepEqual(keys(bin.points), keys(json.points), 'the same points, bit for bit');
    assert.deepEqual(bin.points, json.points, 'in the same order (tag by tag within a batch)');
    const nonFinite = bin.points.filter((p) => !Number.isFinite(p.value)).map((p) => String(p.value));
    assert.deepEqual([...new Set(nonFinite)].sort(), ['-Infinity', 'Infinity', 'NaN']);
    assert.equal(bin.client.stats.staleBatches, 0);
    // The bare sockets: frames of the kind each asked for (hello and heartbeats stay JSON).
    const deadline = Date.now() + 20_000;
    while ((rawBin.kinds.binary < 10 || rawJson.kinds.text < 10) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(rawBin.kinds.binary >= 10, `binary frames to the client that asked: ${JSON.stringify(rawBin.kinds)}`);
    assert.equal(rawJson.kinds.binary, 0, 'no binary frame to a client that did not ask');
    // One decode for all four sessions: each batch decoded once, whatever forms it is sent in.
    const st = relay.decodeCache.stats;
    assert.ok(st.decoded <= batches, `decoded ${st.decoded} ≤ ${batches} batches`);
    assert.ok(st.served >= st.decoded, `served ${st.served} from the cache`);
  } finally {
    rawBin.close();
    rawJson.close();
    await bin.client.close();
    json.close();
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
