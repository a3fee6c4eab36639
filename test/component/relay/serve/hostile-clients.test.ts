// Clients that misbehave on purpose, against the real relay process (any runtime: the relay is
// started from its command line, test/harness/relay.ts): one that stops reading and floods
// small requests, one that connects and never subscribes. What the relay promises: the client's
// memory (replies queued for it, requests waiting, reads under way) stays under a bound, it is
// cut off once it has not read for --stall-timeout, and the well-behaved client on the same
// relay keeps streaming meanwhile.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relayUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom, rssMiB } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { tmpDir } from '../helpers';

/** The relay's resident set may grow this far under a hostile client (MiB). */
const RSS_BOUND_MB = 200;

describe('adversarial: hostile clients', () => {
  const dirs: string[] = [];
  const relays: RelayProc[] = [];
  after(async () => {
    for (const r of relays) await r.stop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('a client that stops reading and floods small detail requests is cut off, its memory bounded; a reading client keeps streaming', { timeout: 180_000 }, async () => {
    const dir = tmpDir();
    dirs.push(dir);
    const file = path.join(dir, 'events.out.tfevents.1.node');
    const STEPS = 50_000;
    appendSteps(file, 0, STEPS);
    const relay = await launchRelay(relayUnderTest(), ['--logdir', dir, '--stall-timeout', '3', '--heartbeat', '60']);
    relays.push(relay);
    const good = await helloFrom(relay.url);
    good.subscribe();
    const hostile = await helloFrom(relay.url);
    hostile.subscribe();
    await good.waitFor('the good client to catch up', () => good.points().length === STEPS * TAGS.length, 120_000);
    await hostile.waitFor('the hostile client to catch up', () => hostile.points().length === STEPS * TAGS.length, 120_000);

    // Now it stops reading and asks, again and again, for every point of a tag (~2 MB a reply).
    hostile.stopReading();
    const st = fs.statSync(file);
    const source = (good.of('hello')[0].sources as { id: string }[])[0].id;
    const detail = (request: number) => ({ type: 'detail', request, source, tag: TAGS[0], from: 0, to: STEPS, maxPoints: 100_000, cursor: { source, fid: `${st.dev}:${st.ino}`, offset: st.size } });
    let request = 0;
    let peak = 0;
    while (!hostile.closed) {
      peak = Math.max(peak, rssMiB(relay.proc.pid!));
      assert.ok(peak <= RSS_BOUND_MB, `relay RSS ${peak.toFixed(0)} MiB > ${RSS_BOUND_MB} MiB with ${request} requests sent`);
      assert.ok(request < 2_000_000, 'the relay never cut the flooding client off');
      // While the relay reads the requests (no back-pressure on this side), keep them coming.
      if (hostile.ws.bufferedAmount < 1024 * 1024) for (let i = 0; i < 50; i++) hostile.send(detail(request++));
      await sleep(20);
    }
    assert.ok(request > 50, 'the flood was sent');

    // The reading client was served throughout and still is.
    appendSteps(file, STEPS, STEPS + 100);
    await good.waitFor('the steps appended after the flood', () => good.points().length === (STEPS + 100) * TAGS.length, 60_000);
    assert.equal(good.closed, undefined);
    assert.match(relay.stderr(), /client \d+ .*disconnect/i);
    good.close();
  });

  test('a client that never subscribes and only answers pings is cut off after --stall-timeout; a subscribed idle client stays', { timeout: 120_000 }, async () => {
    const dir = tmpDir();
    dirs.push(dir);
    appendSteps(path.join(dir, 'events.out.tfevents.1.node'), 0, 10);
    const relay = await launchRelay(relayUnderTest(), ['--logdir', dir, '--stall-timeout', '1', '--heartbeat', '0.2']);
    relays.push(relay);
    const good = await helloFrom(relay.url);
    good.subscribe();
    await good.waitFor('the points', () => good.points().length === 10 * TAGS.length);
    // The ws library answers every ping: this client looks alive, and never asks for anything.
    const idle = await WireClient.connect(relay.url);
    await idle.waitClosed('the relay to cut the unsubscribed client off', 30_000);
    const heartbeats = good.of('heartbeat').length;
    await good.waitFor('more heartbeats', () => good.of('heartbeat').length >= heartbeats + 5);
    assert.equal(good.closed, undefined, 'a subscribed client with nothing to read is not idle');
    good.close();
  });
});
