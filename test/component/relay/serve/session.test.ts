// A seeded fuzz of what clients send, against the real relay process (any runtime:
// test/harness/relay.ts): mutated subscribe / experience / detail messages, wrong types, deep
// nesting, random text and bytes, binary and oversized frames. The relay never crashes or
// stalls, never answers with a stack trace, and keeps serving a well-behaved client throughout.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { launchRelay, relayUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom, rssMiB } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { TAGS, appendSteps } from '../appender';
import { rng, tmpDir } from '../helpers';

/** One fuzzed frame: text (usually JSON-ish) or binary. */
function frame(rand: () => number, source: string): string | Buffer {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const weird = (): unknown => pick([null, -1, 1e308, -0, 2 ** 53 + 1, 'NaN', '', 'x'.repeat(Math.floor(rand() * 5000)), [], {}, [1, 'a'], { __proto__: { a: 1 } }, true, '\u0000\uffff', 1.5]);
  const base = [
    { type: 'subscribe', protocol: 1, cursors: [] },
    { type: 'subscribe', protocol: 1, cursors: [{ source, offset: 0, fid: 'x' }], runs: ['r'], experiences: false, binary: ['points'] },
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

describe('adversarial: client frames', () => {
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
    const relay = await launchRelay(relayUnderTest(), ['--logdir', dir, '--poll-interval', '100', '--max-clients', '8']);
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
