// Envelope-first opening through a real relay and real WebSocket clients: a
// client that asks for it gets one envelope per tag (equal to the brute force over the file)
// and then only the points written after; `detail` answers exactly the points of a range,
// never those that came live; a second client shares the relay's pass; a client that does
// not ask (an older one) still gets every point.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../../src/relay/serve/relay';
import { RelayClient } from '../../../../src/relay-protocol/client';
import { EnvelopeBatch, envelopeColumns } from '../../../../src/relay-protocol/envelope-frame';
import { fromWireNumber } from '../../../../src/relay-protocol/messages';
import { silentLogger } from '../../../../src/base/log';
import { allPoints, bruteEnvelope, sameEnvelope, writeEvents } from '../../../unit/relay/envelope/brute';
import { collect, keyOf, tmpDir } from '../helpers';
import { pointsOf } from '../../../harness/relay-points';
import { until } from '../../../harness/wait';

function relayOn(dir: string): Relay {
  return new Relay({ ...RELAY_DEFAULTS, root: { mode: 'logdir', dir }, port: 0, token: undefined, allowOrigins: [], log: silentLogger, pollMs: 100 });
}

function envelopeClient(url: string, minBytes?: number) {
  const client = new RelayClient({ url, envelope: { buckets: 128, minBytes } });
  const envelopes: EnvelopeBatch[] = [];
  const live: string[] = [];
  client.on('envelope', (m) => envelopes.push(m));
  client.on('points', (b) => live.push(...pointsOf(b).map(keyOf)));
  client.start();
  return { client, envelopes, live };
}

test('relay: envelope first, then live points; detail of a range; an older client gets every point', async () => {
  const dir = tmpDir('relay-envelope-');
  const file = path.join(dir, 'run1', 'events.out.tfevents.1');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeEvents(file, 41, 6, 3000);
  const before = allPoints(file);
  const tags = [...new Set(before.map((p) => p.tag))];
  const relay = relayOn(dir);
  const url = await relay.start();
  const a = envelopeClient(url);
  const old = collect({ url });
  try {
    await until('an envelope per tag', () => a.envelopes.length === tags.length, 20_000);
    for (const m of a.envelopes) {
      const mine = before.filter((p) => p.tag === m.tag);
      const c = envelopeColumns(m.env);
      assert.equal(m.points, mine.length);
      assert.ok(c.bucket.length <= 128);
      assert.equal(sameEnvelope(c, bruteEnvelope(mine, c.width)), undefined, m.tag);
      // A binary frame: one buffer for all columns.
      assert.equal(m.env.min.buffer, m.env.bucket.buffer, `${m.tag}: a binary frame`);
    }
    await old.until((p) => p.length >= before.length, 20_000);
    assert.equal(old.points.length, before.length, 'a client without the capability gets every point');

    // Written after the envelope: streamed live, and not part of a detail answer.
    writeEvents(file, 42, 6, 200);
    const after = allPoints(file).slice(before.length);
    await until('the live points', () => a.live.length >= after.length, 20_000);
    assert.deepEqual([...a.live].sort(), after.map(keyOf).sort(), 'only what followed the envelope streams');

    const tag = tags[0];
    const cursor = a.envelopes[0].cursor;
    const d = await a.client.requestDetail({ source: a.envelopes[0].source, tag, from: 1000, to: 3000, maxPoints: 100_000, cursor });
    const want = before.filter((p) => p.tag === tag && p.step >= 1000 && p.step <= 3000);
    assert.deepEqual(
      d.points?.step,
      want.map((p) => p.step),
    );
    assert.deepEqual(
      d.points?.value.map((v) => String(fromWireNumber(v))),
      want.map((p) => String(p.value)),
    );
    const coarse = await a.client.requestDetail({ source: a.envelopes[0].source, tag, from: 0, to: 1e9, maxPoints: 50, cursor });
    assert.ok(coarse.envelope && coarse.envelope.bucket.length <= 50, 'past maxPoints: a finer envelope, bounded');
    await assert.rejects(a.client.requestDetail({ source: 'nope', tag, from: 0, to: 1, maxPoints: 10, cursor }), /no event file/);

    // A second viewer: the relay reads on from its pass instead of reading the file again.
    const b = envelopeClient(url);
    await until('the second envelope', () => b.envelopes.length === tags.length, 20_000);
    assert.equal(relay.envelopes.stats.passes, 1, 'one pass for both viewers');
    assert.ok(relay.envelopes.stats.shared >= 1);
    assert.equal(
      b.envelopes.reduce((n, m) => n + m.points, 0),
      before.length + after.length,
      'the second envelope covers what was written since',
    );
    await b.client.close();
  } finally {
    await a.client.close();
    await old.client.close();
    await relay.close();
  }
});

test("relay: an event file below the client's minBytes streams every point, none as an envelope", async () => {
  const dir = tmpDir('relay-envelope-small-');
  const file = path.join(dir, 'run1', 'events.out.tfevents.1');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeEvents(file, 7, 4, 500);
  const all = allPoints(file);
  const size = fs.statSync(file).size;
  const relay = relayOn(dir);
  const url = await relay.start();
  const small = envelopeClient(url, size + 1);
  const big = envelopeClient(url, size);
  try {
    await until('every point streamed', () => small.live.length >= all.length, 20_000);
    assert.deepEqual([...small.live].sort(), all.map(keyOf).sort(), 'every point once');
    assert.equal(small.envelopes.length, 0, 'no envelope for a file under minBytes');
    await until('an envelope per tag at minBytes = its size', () => big.envelopes.length === 4, 20_000);
    assert.equal(big.live.length, 0, 'a file at minBytes opens by its envelope');
  } finally {
    await small.client.close();
    await big.client.close();
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
