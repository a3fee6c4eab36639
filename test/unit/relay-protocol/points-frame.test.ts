// The binary points frame (src/relay-protocol/points-frame.ts, layout in messages.ts): a batch
// grouped by tag survives the frame exactly, NaN/±Inf and empty tags
// included, however the frame's bytes are aligned; a malformed frame is a ProtocolError.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodePointsFrame, encodePointsFrame, pointCount } from '../../../src/relay-protocol/points-frame';
import { ProtocolError, type PointsBatch } from '../../../src/relay-protocol/messages';

const f = (xs: number[]) => Float64Array.from(xs);
const batch: PointsBatch = {
  type: 'points',
  source: 'tfevents:run/events.out',
  run: 'run ü',
  role: 'trainer',
  series: [
    { tag: 'actor/pg_loss', step: f([1, 2, 3]), wallTime: f([1.7e9, 1.7e9 + 0.25, 1.7e9 + 0.5]), value: f([0.5, NaN, Infinity]) },
    { tag: 'empty', step: f([]), wallTime: f([]), value: f([]) },
    { tag: 'critic/vf_loss', step: f([2 ** 53 - 1]), wallTime: f([0]), value: f([-Infinity]) },
  ],
  cursor: { source: 'tfevents:run/events.out', fid: '1:2', offset: 4096 },
};

/** A batch as plain arrays (Object.is equality: NaN equals NaN, -0 is not 0). */
const plain = (b: PointsBatch) => ({
  head: [b.type, b.source, b.run, b.role, b.cursor],
  series: b.series.map((s) => [s.tag, [...s.step], [...s.wallTime], [...s.value]]),
});

test('points frame: encode → decode gives the batch back, NaN/±Inf and an empty tag included', () => {
  const frame = encodePointsFrame(batch);
  assert.equal(Buffer.from(frame.subarray(0, 4)).toString('latin1'), 'ARP1');
  const back = decodePointsFrame(frame);
  assert.deepEqual(plain(back), plain(batch));
  assert.ok(Object.is(back.series[0].value[1], NaN) && back.series[0].value[2] === Infinity && back.series[2].value[0] === -Infinity);
  assert.equal(pointCount(back), 4);
  // The columns are views of the frame (no copy) when aligned, as a received Buffer is here.
  assert.equal(back.series[0].step.buffer, frame.buffer);
});

test('points frame: a frame at an odd offset of a larger buffer (a socket chunk) decodes by copy', () => {
  const frame = encodePointsFrame(batch);
  const big = Buffer.alloc(frame.length + 3);
  big.set(frame, 3);
  assert.deepEqual(plain(decodePointsFrame(big.subarray(3))), plain(batch));
});

test('points frame: a batch without tags round-trips too', () => {
  const none: PointsBatch = { ...batch, series: [] };
  assert.deepEqual(plain(decodePointsFrame(encodePointsFrame(none))), plain(none));
});

test('points frame: malformed frames are rejected with a ProtocolError', () => {
  const good = encodePointsFrame(batch);
  const headerLen = new DataView(good.buffer).getUint32(4, true);
  const withHeader = (h: unknown) => {
    const text = Buffer.from(JSON.stringify(h));
    const out = Buffer.alloc(8 + text.length + 8 - ((8 + text.length) % 8 || 8));
    out.write('ARP1', 0, 'latin1');
    out.writeUInt32LE(text.length, 4);
    text.copy(out, 8);
    return out;
  };
  const header = { type: 'points', source: 's', run: 'r', role: '', tags: ['a'], counts: [0], cursor: { source: 's', offset: 1 } };
  const bad: [string, Uint8Array][] = [
    ['short', good.subarray(0, 5)],
    ['magic', Buffer.concat([Buffer.from('XXXX'), good.subarray(4)])],
    ['truncated columns', good.subarray(0, good.length - 8)],
    ['extra bytes', Buffer.concat([good, Buffer.alloc(8)])],
    ['header past the end', good.subarray(0, 8 + headerLen - 1)],
    ['not JSON', withHeader('{').fill(0x7b, 8, 9)],
    ['counts ≠ tags', withHeader({ ...header, counts: [0, 0] })],
    ['negative count', withHeader({ ...header, counts: [-1] })],
    ['count past the end', withHeader({ ...header, counts: [1] })],
    ['bad cursor', withHeader({ ...header, cursor: { source: 's', offset: -1 } })],
  ];
  assert.doesNotThrow(() => decodePointsFrame(withHeader(header)));
  for (const [what, b] of bad) assert.throws(() => decodePointsFrame(b), ProtocolError, what);
});
