// The relay end to end (the bundled CLI as a child process, RelayClient in this process):
// live streaming from a real writer, kill -9 and restart, random connection cuts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import type { RelayPoint } from '../harness/relay-points';
import { TAGS, appendOverTime, appendSteps, expectedKeys } from './relay/appender';
import { collect, noTbx, pythonAsync, rng, startRelay, tmpDir, writers } from './relay/helpers';
import { sleep } from '../harness/wait';

const keys = (pts: RelayPoint[]) => pts.map((p) => `${p.tag}@${p.step}=${p.value}`).sort();

/** Asserts, point by point, that `got` is exactly `want` (0 lost, 0 duplicated). */
function assertExactly(got: string[], want: string[], who: string): void {
  const seen = new Map<string, number>();
  for (const k of got) seen.set(k, (seen.get(k) ?? 0) + 1);
  const dup = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
  const wantSet = new Set(want);
  const lost = want.filter((k) => !seen.has(k));
  const extra = got.filter((k) => !wantSet.has(k));
  assert.deepEqual({ lost: lost.slice(0, 5), duplicated: dup.slice(0, 5), extra: extra.slice(0, 5) }, { lost: [], duplicated: [], extra: [] }, who);
  assert.equal(got.length, want.length, who);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

test('streaming: a tensorboardX writer appends while a client reads; the series equals what was written', { skip: noTbx, timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const run = path.join(dir, 'run1');
  fs.mkdirSync(run);
  const relay = await startRelay(['--logdir', dir, '--poll-interval', '200']);
  const c = collect({ url: relay.url });
  try {
    // The writer starts after the client is connected, so the file and its growth are live.
    await new Promise<void>((resolve) => c.client.once('hello', () => resolve()));
    const expected = JSON.parse(await pythonAsync([writers, 'stream', run, '3000', '250', '0.05'])) as { tag: string; step: number; value: number }[];
    await c.until((p) => p.length >= expected.length);
    await sleep(300); // nothing more may arrive
    assert.deepEqual(
      c.points.map((p) => [p.run, p.tag, p.step, p.value]),
      expected.map((e) => ['run1', e.tag, e.step, e.value]),
    );
    assert.equal(c.client.stats.staleBatches, 0);
  } finally {
    await c.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('kill -9 of the relay mid-stream, then a restart: the client resumes with 0 lost, 0 duplicated', { timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, 500);
  const port = String(await freePort());
  const args = ['--logdir', dir, '--port', port, '--poll-interval', '100'];
  let relay = await startRelay(args);
  const c = collect({ url: relay.url, backoff: { initialMs: 50, maxMs: 200 } });
  try {
    const writing = appendOverTime(file, 500, 3000, 50, 10).then(() => undefined);
    await c.until((p) => p.length > 1500);
    await relay.stop('SIGKILL');
    const before = c.points.length;
    await sleep(300); // the client is in backoff; the writer goes on
    relay = await startRelay(args);
    await writing;
    const total = 3000 * TAGS.length;
    await c.until((p) => p.length >= total);
    await sleep(300);
    assert.ok(before < total, 'the relay died mid-stream');
    assert.ok(c.client.stats.connects >= 2);
    assertExactly(keys(c.points), expectedKeys(3000), 'after kill -9 + restart');
    assert.equal(c.client.stats.staleBatches, 0);
  } finally {
    await c.client.close();
    await relay.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A TCP proxy whose connections can be cut at will. */
function cuttingProxy(target: number): Promise<{ port: number; cut(): number; close(): Promise<void> }> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(target, '127.0.0.1');
    conns.add(down);
    conns.add(up);
    const drop = () => {
      down.destroy();
      up.destroy();
      conns.delete(down);
      conns.delete(up);
    };
    down.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
    down.pipe(up);
    up.pipe(down);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        cut() {
          const n = conns.size / 2;
          for (const s of conns) s.destroy();
          conns.clear();
          return n;
        },
        close: () =>
          new Promise<void>((r) => {
            for (const s of conns) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

test('≥ 100 random connection cuts through a TCP proxy: every client ends with exactly the written points', { timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, 200);
  const relay = await startRelay(['--logdir', dir, '--poll-interval', '100']);
  const proxy = await cuttingProxy(Number(new URL(relay.url).port));
  const clients = [0, 1, 2].map(() => collect({ url: `ws://127.0.0.1:${proxy.port}/`, backoff: { initialMs: 5, maxMs: 40 } }));
  const rand = rng(7);
  let cuts = 0;
  try {
    const steps = 4000;
    const writing = appendOverTime(file, 200, steps, 20, 5);
    let done = false;
    void writing.then(() => (done = true));
    while (cuts < 110 || !done) {
      await sleep(5 + rand() * 45);
      if (proxy.cut() > 0) cuts++;
    }
    const total = steps * TAGS.length;
    for (const c of clients) await c.until((p) => p.length >= total, 30_000);
    await sleep(300);
    assert.ok(cuts >= 100, `${cuts} cuts`);
    clients.forEach((c, i) => {
      assertExactly(keys(c.points), expectedKeys(steps), `client ${i}`);
      assert.equal(c.client.stats.staleBatches, 0);
      assert.ok(c.client.stats.connects > 10, `client ${i} reconnected ${c.client.stats.connects} times`);
    });
  } finally {
    for (const c of clients) await c.client.close();
    await proxy.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('new runs and files that appear after the relay started are discovered and streamed', { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const relay = await startRelay(['--logdir', dir, '--poll-interval', '300']);
  const c = collect({ url: relay.url });
  const announced: string[] = [];
  c.client.on('sources', (s) => announced.push(...s.map((x) => x.id)));
  try {
    await new Promise<void>((r) => c.client.once('hello', () => r()));
    fs.mkdirSync(path.join(dir, 'runA'));
    appendSteps(path.join(dir, 'runA', 'events.out.tfevents.1.a'), 0, 3);
    fs.mkdirSync(path.join(dir, 'runB', 'trainer'), { recursive: true });
    appendSteps(path.join(dir, 'runB', 'trainer', 'events.out.tfevents.2.b'), 0, 4);
    await c.until((p) => p.length >= (3 + 4) * TAGS.length);
    await sleep(300);
    assert.deepEqual([...new Set(c.points.map((p) => p.run))].sort(), ['runA', 'runB/trainer']);
    assert.equal(c.points.length, 14);
    assert.deepEqual(announced.sort(), ['tfevents:runA/events.out.tfevents.1.a', 'tfevents:runB/trainer/events.out.tfevents.2.b']);
  } finally {
    await c.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('damaged event files (fixed seed) next to a good one: the relay keeps serving and reports the damage', { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const good = path.join(dir, 'good', 'events.out.tfevents.1.good');
  fs.mkdirSync(path.dirname(good));
  appendSteps(good, 0, 300);
  const bytes = fs.readFileSync(good);
  const rand = rng(99);
  fs.mkdirSync(path.join(dir, 'bad'));
  for (let i = 0; i < 30; i++) {
    let b: Buffer;
    if (i % 3 === 0) b = bytes.subarray(0, Math.floor(rand() * bytes.length));
    else if (i % 3 === 1) {
      b = Buffer.from(bytes);
      for (let k = 0; k < 5; k++) b[Math.floor(rand() * b.length)] ^= 1 << Math.floor(rand() * 8);
    } else b = Buffer.from(Array.from({ length: 2000 }, () => Math.floor(rand() * 256)));
    fs.writeFileSync(path.join(dir, 'bad', `events.out.tfevents.${i}.bad`), b);
  }
  const relay = await startRelay(['--logdir', dir]);
  const c = collect({ url: relay.url, runs: ['good'] });
  const all = collect({ url: relay.url });
  try {
    await c.until((p) => p.length >= 600);
    await all.until((p) => p.length >= 600);
    await sleep(500);
    assertExactly(keys(c.points), expectedKeys(300), 'the good run');
    const real = new Set(expectedKeys(300));
    assert.ok(
      all.points.every((p) => real.has(`${p.tag}@${p.step}=${p.value}`)),
      'damaged files yield only real points',
    );
    assert.equal(relay.proc.exitCode, null);
    assert.match(relay.stderr(), /skipped \d+ record\(s\) with a CRC mismatch/);
  } finally {
    await c.client.close();
    await all.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
