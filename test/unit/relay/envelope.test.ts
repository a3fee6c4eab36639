// Envelope-first opening, relay side: the envelope of a tag equals a brute-force
// min/max over all its points (random data with NaN/±Inf, tags of different lengths, several
// files, steps that go back), the width is the finest that fits, a detail read returns exactly
// the points of its range (or the range's envelope past maxPoints) and never what follows the
// envelope's cursor, and the sparse index stays within its bound.
import { envelopeColumns } from '../../../src/relay-protocol/envelope-frame';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { EnvelopeBuilder } from '../../../src/relay/envelope/builder';
import { EnvelopeCache } from '../../../src/relay/envelope/cache';
import { readDetail, readDetailColumns, releaseColumns } from '../../../src/relay/envelope/detail';
import { FileIndex } from '../../../src/relay/envelope/file-index';
import { EnvelopePass } from '../../../src/relay/envelope/pass';
import { fromWireNumber } from '../../../src/relay-protocol/messages';
import { rng, tmpDir } from './helpers';
import { P, allPoints, bruteEnvelope, sameEnvelope, writeEvents } from './envelope/brute';

test('EnvelopeBuilder: equals the brute-force envelope, at the finest width that fits, for points in any order', () => {
  const rand = rng(7);
  for (let trial = 0; trial < 40; trial++) {
    const cap = 2 + Math.floor(rand() * 64);
    const n = Math.floor(rand() * 3000);
    const points: P[] = [];
    const base = Math.floor(rand() * 1e6) - 5e5;
    for (let i = 0; i < n; i++) {
      const r = rand();
      const step = trial % 3 === 0 ? base + i : base + Math.floor(rand() * (trial % 2 ? 100 : 1e5));
      const value = r < 0.05 ? NaN : r < 0.08 ? Infinity : r < 0.1 ? -Infinity : (rand() - 0.5) * 10 ** Math.floor(rand() * 6);
      points.push({ tag: 't', step, wall: i, value });
    }
    const b = new EnvelopeBuilder(cap);
    for (const p of points) b.add(p.step, p.wall, p.value);
    const got = b.columns();
    assert.equal(b.points, n);
    assert.ok(got.bucket.length <= cap, `at most cap buckets (trial ${trial})`);
    assert.equal(sameEnvelope(got, bruteEnvelope(points, got.width)), undefined, `trial ${trial}`);
    if (got.width > 1 && n > 0) {
      const steps = points.map((p) => p.step);
      const half = got.width / 2;
      const span = Math.floor(Math.max(...steps) / half) - Math.floor(Math.min(...steps) / half) + 1;
      assert.ok(span > cap, `width ${got.width} is the finest that fits (trial ${trial})`);
    }
  }
});

test('EnvelopeBuilder: builders of one bucket count fed in turn (they share the relayout scratch) each equal their brute force', () => {
  const rand = rng(11);
  const tags = Array.from({ length: 12 }, (_, t) => ({ b: new EnvelopeBuilder(32), points: [] as P[], stride: 1 + t }));
  for (let i = 0; i < 4000; i++) {
    const t = tags[i % tags.length];
    const p = { tag: 't', step: Math.floor(i / tags.length) * t.stride + Math.floor(rand() * 3), wall: i, value: rand() < 0.05 ? NaN : rand() * 100 - 50 };
    t.points.push(p);
    t.b.add(p.step, p.wall, p.value);
  }
  for (const [k, t] of tags.entries()) {
    const got = t.b.columns();
    assert.ok(got.width > 1, `tag ${k} was laid out again`);
    assert.equal(sameEnvelope(got, bruteEnvelope(t.points, got.width)), undefined, `tag ${k}`);
  }
});

test('EnvelopePass: every tag of several files equals the brute force over all its points', async () => {
  const dir = tmpDir('envelope-');
  for (let f = 0; f < 3; f++) {
    const file = path.join(dir, `events.out.tfevents.${f}`);
    writeEvents(file, 100 + f, 2 + f * 3, 400 + f * 700);
    const pass = new EnvelopePass(file, 64, { sliceBytes: 4096 });
    await pass.advance();
    const all = allPoints(file);
    const tags = [...new Set(all.map((p) => p.tag))].sort();
    const msgs = [...pass.messages({ id: `s${f}`, kind: 'tfevents', run: 'r', role: '', path: file })];
    assert.deepEqual(msgs.map((m) => m.tag).sort(), tags, 'one message per tag');
    const lengths = new Set<number>();
    for (const m of msgs) {
      const mine = all.filter((p) => p.tag === m.tag);
      const c = envelopeColumns(m.env);
      lengths.add(mine.length);
      assert.equal(m.points, mine.length);
      assert.equal(m.cursor.offset, pass.offset);
      assert.ok(c.bucket.length <= 64);
      assert.equal(sameEnvelope(c, bruteEnvelope(mine, c.width)), undefined, `${file} ${m.tag}`);
      assert.ok(c.nan.some((x) => x > 0) || c.posInf.some((x) => x > 0) || c.negInf.some((x) => x > 0) || mine.length < 50, 'non-finite values are counted');
    }
    assert.ok(lengths.size > 1 || tags.length === 1, 'tags of different lengths');
  }
});

test('EnvelopePass: a grown file is read on from where the pass stopped, and the envelope covers both parts', async () => {
  const file = path.join(tmpDir('envelope-'), 'events.out.tfevents.1');
  writeEvents(file, 5, 4, 300);
  const cache = new EnvelopeCache();
  const p1 = await cache.envelope('s', file, 32);
  const first = p1.offset;
  writeEvents(file, 6, 4, 300);
  const p2 = await cache.envelope('s', file, 32);
  assert.equal(p1, p2, 'one pass shared');
  assert.equal(cache.stats.shared, 1);
  assert.ok(p2.offset > first);
  const all = allPoints(file);
  for (const m of p2.messages({ id: 's', kind: 'tfevents', run: 'r', role: '', path: file })) {
    assert.equal(
      sameEnvelope(
        envelopeColumns(m.env),
        bruteEnvelope(
          all.filter((p) => p.tag === m.tag),
          m.env.width,
        ),
      ),
      undefined,
      m.tag,
    );
  }
});

test('readDetail: exactly the points of the range, in file order, and none past the envelope cursor', async () => {
  const file = path.join(tmpDir('envelope-'), 'events.out.tfevents.1');
  writeEvents(file, 11, 5, 3000);
  // A small index: its stretches get merged across the envelope's end when the pass reads on.
  const pass = new EnvelopePass(file, 128, { sliceBytes: 2048, indexCap: 5 });
  await pass.advance();
  const before = pass.offset;
  writeEvents(file, 12, 5, 500); // arrived live after the envelope: not the detail's business
  await pass.advance(); // another viewer's envelope read on: the index now covers the new part too
  assert.ok(pass.offset > before);
  const all = allPoints(file, before);
  const rand = rng(3);
  for (let i = 0; i < 25; i++) {
    const tag = `tag/${Math.floor(rand() * 5)}`;
    const a = Math.floor(rand() * 7000);
    const [from, to] = [a, a + Math.floor(rand() * 800)];
    const got = await readDetail(file, pass.index.regions(from, to, before), { tag, from, to, maxPoints: 100_000 });
    const want = all.filter((p) => p.tag === tag && p.step >= from && p.step <= to);
    assert.ok(got.points && !got.envelope);
    assert.deepEqual(
      got.points.step,
      want.map((p) => p.step),
      `${tag} [${from}, ${to}]`,
    );
    assert.deepEqual(
      got.points.wallTime,
      want.map((p) => p.wall),
    );
    assert.deepEqual(
      got.points.value.map((v) => String(fromWireNumber(v))),
      want.map((p) => String(p.value)),
    );
  }
});

test('readDetail: past maxPoints, the envelope of the range (≤ maxPoints buckets) equals the brute force', async () => {
  const file = path.join(tmpDir('envelope-'), 'events.out.tfevents.1');
  writeEvents(file, 21, 3, 4000);
  const pass = new EnvelopePass(file, 64, { sliceBytes: 8192 });
  await pass.advance();
  const all = allPoints(file);
  const [from, to, tag] = [500, 6500, 'tag/2'];
  const got = await readDetail(file, pass.index.regions(from, to, pass.offset), { tag, from, to, maxPoints: 300 });
  assert.ok(got.envelope && !got.points);
  assert.ok(got.envelope.bucket.length <= 300);
  const want = all.filter((p) => p.tag === tag && p.step >= from && p.step <= to);
  assert.ok(want.length > 300);
  assert.equal(sameEnvelope(got.envelope, bruteEnvelope(want, got.envelope.width)), undefined);
});

test('FileIndex: bounded whatever the file size; its regions still cover every step of a range', async () => {
  const idx = new FileIndex(16);
  for (let i = 0; i < 1000; i++) idx.add(i * 10, i * 10 + 10, i, i + 2);
  assert.ok(idx.size <= 16, `${idx.size} entries`);
  assert.equal(idx.covered, 10_000);
  const r = idx.regions(500, 510);
  assert.ok(r.length >= 1 && r[0].start <= 4980 && r[r.length - 1].end >= 5110, JSON.stringify(r));
  assert.deepEqual(idx.regions(5000, 6000), [], 'no region past the last step');
  // A real pass: a tiny slice and a tiny cap, the index halves and detail stays exact.
  const file = path.join(tmpDir('envelope-'), 'events.out.tfevents.1');
  writeEvents(file, 31, 3, 3000);
  const pass = new EnvelopePass(file, 16, { sliceBytes: 512, indexCap: 8 });
  await pass.advance();
  assert.ok(pass.index.size <= 8, `index of ${pass.index.size} entries`);
  const got = await readDetail(file, pass.index.regions(1000, 1200, pass.offset), { tag: 'tag/0', from: 1000, to: 1200, maxPoints: 10_000 });
  assert.deepEqual(
    got.points?.step,
    allPoints(file)
      .filter((p) => p.tag === 'tag/0' && p.step >= 1000 && p.step <= 1200)
      .map((p) => p.step),
  );
});

test('readDetailColumns: columns given back are reused by the next answer (a flood of details allocates no new columns)', async () => {
  const file = path.join(tmpDir('envelope-'), 'events.out.tfevents.1');
  writeEvents(file, 41, 2, 6000);
  const pass = new EnvelopePass(file, 16);
  await pass.advance();
  const q = { tag: 'tag/0', from: 0, to: 6000, maxPoints: 100_000 };
  const first = await readDetailColumns(file, pass.index.regions(0, 6000, pass.offset), q);
  const buffers = new Set([first.points!.step.buffer, first.points!.wallTime.buffer, first.points!.value.buffer]);
  const want = Array.from(first.points!.step);
  releaseColumns(first.points!);
  const second = await readDetailColumns(file, pass.index.regions(0, 6000, pass.offset), q);
  assert.deepEqual(Array.from(second.points!.step), want);
  for (const c of [second.points!.step, second.points!.wallTime, second.points!.value]) assert.ok(buffers.has(c.buffer), 'a column of the first answer');
  releaseColumns(second.points!);
});
