// A long JSON answer as WebSocket fragments: joined, they are JSON.stringify's text byte for
// byte (non-ASCII text, nested and root arrays, strings that look like the markers); no fragment
// is much over the chunk size, so no text of the whole answer is built.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { NumberColumn, jsonFragments, jsonFragmentsInTurns } from '../../../../src/relay/serve/json-fragments';

const detail = (n: number) => ({
  type: 'detail',
  request: 7,
  source: 'tfevents:run/événements',
  tag: 'train/损失',
  from: 0,
  to: n,
  points: {
    step: Array.from({ length: n }, (_, i) => i),
    wallTime: Array.from({ length: n }, (_, i) => 1.7e9 + i * 0.123456789),
    value: Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 'NaN' : Math.sin(i) * 1e-7)),
  },
});

test('a 50 k-point detail answer: ~64 KiB fragments that join to JSON.stringify of it', () => {
  const msg = detail(50_000);
  const parts = jsonFragments(msg, 64 * 1024);
  const whole = Buffer.from(JSON.stringify(msg));
  assert.ok(parts.length > 10, `${parts.length} fragments`);
  for (const p of parts) assert.ok(p.length <= 64 * 1024 + 2048 * 24, `a fragment of ${p.length} bytes`);
  assert.ok(Buffer.concat(parts).equals(whole));
});

test('small messages are one fragment; arrays anywhere (root, nested, of objects, holes, undefined) are written as JSON writes them', () => {
  assert.equal(jsonFragments({ type: 'heartbeat', time: 1, caughtUp: true }).length, 1);
  const odd: unknown[] = [
    Array.from({ length: 3000 }, (_, i) => ({ i, s: `\u0000${i}:"` })),
    { nested: { deep: [Array.from({ length: 1500 }, (_, i) => [i, `x${i}`]), undefined, () => 1] } },
    Array.from({ length: 1024 }, () => undefined),
    Object.assign(new Array(2000), { 5: 5 }),
    '\u0000abcdef012345:0',
    { toJSON: () => Array.from({ length: 1100 }, (_, i) => -i) },
    [Infinity, NaN, -0],
  ];
  for (const msg of [odd, { a: odd }, Array.from({ length: 5000 }, (_, i) => i)]) {
    const parts = jsonFragments(msg, 1000);
    assert.equal(Buffer.concat(parts).toString(), JSON.stringify(msg));
    assert.ok(parts.length > 1);
  }
});

test('number columns (typed arrays, as a detail answer holds its points) are written as the arrays they stand for', () => {
  const values = Float64Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? NaN : i % 11 === 0 ? -Infinity : i / 3));
  const wire = (v: number) => (Number.isFinite(v) ? v : String(v));
  for (const n of [0, 3, 1023, 1024, 5000]) {
    const msg = {
      type: 'detail',
      points: { step: new NumberColumn(values.map((_, i) => i).subarray(0, n)), value: new NumberColumn(values.subarray(0, n), wire) },
    };
    const plain = { type: 'detail', points: { step: Array.from({ length: n }, (_, i) => i), value: Array.from(values.subarray(0, n), wire) } };
    assert.equal(Buffer.concat(jsonFragments(msg, 4096)).toString(), JSON.stringify(plain), `${n} points`);
  }
});

test('written in turns: the same fragments, and other work runs between them', async () => {
  const msg = detail(200_000);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const parts = await jsonFragmentsInTurns(msg);
  clearInterval(timer);
  assert.ok(Buffer.concat(parts).equals(Buffer.concat(jsonFragments(msg))));
  assert.ok(ticks > 0, 'the event loop ran while the answer was written');
});
