// Clients that misbehave on purpose, against the real relay process (any runtime: the relay is
// started from its command line, test/harness/relay.ts):
// - one that stops reading and floods small requests, one that connects and never subscribes:
//   the client's memory (replies queued for it, requests waiting, reads under way) stays under a
//   bound, it is cut off once it has not read for --stall-timeout, and the well-behaved client on
//   the same relay keeps streaming meanwhile;
// - a seeded fuzz of what clients send: mutated subscribe / experience / detail messages, wrong
//   types, deep nesting, random text and bytes, binary and oversized frames. The relay never
//   crashes or stalls, never answers with a stack trace, and keeps serving a reading client.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom, rssMiB } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { rng, tmpDir } from '../helpers';

/** One fuzzed frame: text (usually JSON-ish) or binary. */
function frame(rand: () => number, source: string): string | Buffer {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const weird = (): unknown =>
    pick([
      null,
      -1,
      1e308,
      -0,
      2 ** 53 + 1,
      'NaN',
      '',
      'x'.repeat(Math.floor(rand() * 5000)),
      [],
      {},
      [1, 'a'],
      { __proto__: { a: 1 } },
      true,
      '\u0000\uffff',
      1.5,
    ]);
  const base = [
    { type: 'subscribe', protocol: 1, cursors: [] },
    { type: 'subscribe', protocol: 1, cursors: [{ source, offset: 0, fid: 'x' }], runs: ['r'], experiences: false },
    { type: 'subscribe', protocol: 1, cursors: [], envelope: { buckets: 64 } },
    { type: 'experience', request: 1, source, id: 1 },
    { type: 'detail', request: 2, source, tag: TAGS[0], from: 0, to: 100, maxPoints: 10, cursor: { source, offset: 0 } },
  ];
  const r = rand();
  if (r < 0.55) {
    const m = structuredClone(pick(base)) as Record<string, unknown>;
    for (let k = 0, n = 1 + Math.floor(rand() * 3); k < n; k++) {
      const keys = [...Object.keys(m), 'extra', '__proto__', 'constructor'];
      m[pick(keys)] = weird();
    }
    return JSON.stringify(m);
  }
  if (r < 0.65) {
    const depth = Math.floor(rand() * 20_000);
    return `${'['.repeat(depth)}${']'.repeat(rand() < 0.5 ? depth : 0)}`;
  }
  if (r < 0.75) return Buffer.from(Array.from({ length: Math.floor(rand() * 300) }, () => Math.floor(rand() * 256)));
  if (r < 0.85) return Array.from({ length: Math.floor(rand() * 300) }, () => String.fromCharCode(Math.floor(rand() * 0x3000))).join('');
  if (r < 0.9) return JSON.stringify({ type: pick(['hello', 'points', 'error', 'x'.repeat(100), '']), protocol: weird() });
  if (r < 0.93) return JSON.stringify({ type: 'subscribe', protocol: 1, cursors: Array.from({ length: 3000 }, (_, i) => ({ source: `s${i}`, offset: i })) });
  return JSON.stringify({ type: 'subscribe', protocol: pick([0, 2, -1, 1e9]), cursors: [] });
}

for (const subject of relaysUnderTest())
  describe(`adversarial: client frames [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test('fuzz (fixed seed): 3000 frames over 30 connections; no crash, no stack trace, a reading client served throughout', { timeout: 120_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      const file = path.join(dir, 'events.out.tfevents.1.node');
      appendSteps(file, 0, 200);
      const relay = await launchRelay(subject.command(), ['--logdir', dir, '--poll-interval', '100', '--max-clients', '8']);
      relays.push(relay);
      const good = await helloFrom(relay.url);
      good.subscribe();
      await good.waitFor('the points', () => good.points().length === 200 * TAGS.length);
      const source = (good.of('hello')[0].sources as { id: string }[])[0].id;
      const rand = rng(424242);
      let replies = 0;
      for (let conn = 0; conn < 30; conn++) {
        const c = await WireClient.connect(relay.url);
        for (let i = 0; i < 100 && !c.closed; i++) {
          const f = frame(rand, source);
          c.sendRaw(f);
          if (i % 20 === 19) await sleep(5);
        }
        // An oversized frame now and then: the relay closes that connection (1009), nothing else.
        if (conn % 10 === 9 && !c.closed) c.sendRaw('x'.repeat(70 * 1024));
        await sleep(50);
        for (const m of c.messages) {
          replies++;
          const text = JSON.stringify(m);
          assert.doesNotMatch(text, /\\n\s+at |node:internal|\.js:\d+:\d+/, `a stack trace went to the client: ${text.slice(0, 300)}`);
        }
        c.close();
        assert.equal(relay.proc.exitCode, null, `the relay exited after connection ${conn}: ${relay.stderr().slice(-2000)}`);
      }
      assert.ok(replies > 100, `${replies} replies`);
      // Still serving: new points reach the reading client, and a new client gets hello.
      appendSteps(file, 200, 210);
      await good.waitFor('points appended after the fuzz', () => good.points().length === 210 * TAGS.length, 30_000);
      (await helloFrom(relay.url, {}, 10_000)).close();
      assert.ok(rssMiB(relay.proc.pid!) < 200, `relay RSS ${rssMiB(relay.proc.pid!).toFixed(0)} MiB`);
      assert.doesNotMatch(relay.stderr(), /\n\s+at |TypeError|RangeError|Uncaught/, 'no stack trace in the relay log either');
      good.close();
    });
  });

/** The relay's resident set may grow this far under a hostile client (MiB). */
const RSS_BOUND_MB = 200;

for (const subject of relaysUnderTest())
  describe(`adversarial: hostile clients [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop();
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test(
      'a client that stops reading and floods small detail requests is cut off, its memory bounded; a reading client keeps streaming',
      { timeout: 180_000 },
      async () => {
        const dir = tmpDir();
        dirs.push(dir);
        const file = path.join(dir, 'events.out.tfevents.1.node');
        const STEPS = 50_000;
        appendSteps(file, 0, STEPS);
        const relay = await launchRelay(subject.command(), ['--logdir', dir, '--stall-timeout', '3', '--heartbeat', '60']);
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
        const detail = (request: number) => ({
          type: 'detail',
          request,
          source,
          tag: TAGS[0],
          from: 0,
          to: STEPS,
          maxPoints: 100_000,
          cursor: { source, fid: `${st.dev}:${st.ino}`, offset: st.size },
        });
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
      },
    );

    test('a client that reads its answers but keeps asking for heavy details does not starve another: clients take turns', { timeout: 240_000 }, async () => {
      const dir = tmpDir();
      dirs.push(dir);
      const file = path.join(dir, 'events.out.tfevents.1.node');
      const STEPS = 50_000;
      appendSteps(file, 0, STEPS);
      const relay = await launchRelay(subject.command(), ['--logdir', dir, '--heartbeat', '60']);
      relays.push(relay);
      const good = await helloFrom(relay.url);
      good.subscribe();
      const flooder = await helloFrom(relay.url);
      flooder.subscribe();
      await good.waitFor('the good client to catch up', () => good.points().length === STEPS * TAGS.length, 120_000);
      await flooder.waitFor('the flooder to catch up', () => flooder.points().length === STEPS * TAGS.length, 120_000);
      const st = fs.statSync(file);
      const source = (good.of('hello')[0].sources as { id: string }[])[0].id;
      const detail = (request: number, from: number, to: number) => ({
        type: 'detail',
        request,
        source,
        tag: TAGS[0],
        from,
        to,
        maxPoints: 100_000,
        cursor: { source, fid: `${st.dev}:${st.ino}`, offset: st.size },
      });
      // The flooder keeps 4 requests for every point of the tag in flight, reading each answer (~2 MB).
      let sent = 0;
      const answers = () => flooder.of('detail').length;
      const flood = setInterval(() => {
        while (sent - answers() < 4) flooder.send(detail(sent++, 0, STEPS));
      }, 5);
      try {
        await flooder.waitFor('the first heavy answer', () => answers() >= 1, 120_000);
        assert.ok(
          flooder.of('detail').every((a) => a.error === undefined && (a.points as { step: number[] }).step.length === STEPS),
          'the heavy answers are whole',
        );
        // The good client asks for a few points, one request after the other: each costs the relay
        // a slice, and it takes turns with the flooder, so the flooder's heavy answers (each many
        // slices) do not come between every two of them.
        const ask = async (request: number) => {
          good.send(detail(request, 100, 110));
          await good.waitFor(`answer ${request}`, () => good.of('detail').some((a) => a.request === request), 120_000);
        };
        await ask(1_000_000);
        const before = answers();
        for (let i = 1; i <= 5; i++) await ask(1_000_000 + i);
        const during = answers() - before;
        // Taking turns, a small answer waits behind at most the heavy answer being written and the
        // flooder's next (two per small one); a relay that serves a client's queue first gave 21–23.
        assert.ok(during <= 10, `${during} heavy answers went to the flooder while the good client waited for 5 small ones`);
        assert.deepEqual((good.of('detail').at(-1)!.points as { step: number[] }).step, [100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
      } finally {
        clearInterval(flood);
      }
      assert.equal(good.closed, undefined);
      assert.equal(flooder.closed, undefined, 'a client that reads its answers is not cut off');
      good.close();
      flooder.close();
    });

    test(
      'a client that never subscribes and only answers pings is cut off after --stall-timeout; a subscribed idle client stays',
      { timeout: 120_000 },
      async () => {
        const dir = tmpDir();
        dirs.push(dir);
        appendSteps(path.join(dir, 'events.out.tfevents.1.node'), 0, 10);
        const relay = await launchRelay(subject.command(), ['--logdir', dir, '--stall-timeout', '1', '--heartbeat', '0.2']);
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
      },
    );
  });
