// The binary envelope frame (src/relay-protocol/envelope-frame.ts): an envelope built by the relay's
// builder survives the frame and the JSON columns of a detail answer exactly — a bucket without a finite value,
// NaN/±Inf first and last values included — however the frame's bytes are aligned; the two
// binary frames are told apart by their magic; a malformed frame is a ProtocolError.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { EnvelopeBuilder } from '../../../src/relay/envelope/builder';
import {
  EnvelopeBatch,
  binaryFrameType,
  decodeEnvelopeFrame,
  encodeEnvelopeFrame,
  envelopeArrays,
  envelopeColumns,
} from '../../../src/relay-protocol/envelope-frame';
import type { EnvelopeColumns } from '../../../src/relay-protocol/envelope';
import { encodePointsFrame } from '../../../src/relay-protocol/points-frame';
import { ProtocolError } from '../../../src/relay-protocol/messages';

function batch(): EnvelopeBatch {
  const b = new EnvelopeBuilder(16);
  for (let s = 0; s < 100; s++) b.add(s, 1.7e9 + s / 4, s === 40 ? NaN : s === 41 ? Infinity : Math.sin(s));
  // Bucket of steps 96…103 at width 8 holds only non-finite values.
  for (let s = 200; s < 208; s++) b.add(s, 1.7e9 + s, s % 2 ? -Infinity : NaN);
  return {
    type: 'envelope',
    source: 'tfevents:run/events.out',
    run: 'run ü',
    role: 'trainer',
    tag: 'actor/pg_loss',
    points: b.points,
    cursor: { source: 'tfevents:run/events.out', fid: '1:2', offset: 4096 },
    env: b.arrays(),
  };
}

/** Plain arrays (deepEqual compares with Object.is: NaN equals NaN). */
const plain = (b: EnvelopeBatch) => ({ ...b, env: Object.fromEntries(Object.entries(b.env).map(([k, v]) => [k, typeof v === 'number' ? v : [...v]])) });

test('envelope frame: encode → decode gives the envelope back, empty-of-finite buckets and NaN/±Inf included', () => {
  const b = batch();
  const noFinite = [...b.env.min].findIndex((lo, i) => lo > b.env.max[i]);
  assert.ok(noFinite >= 0, 'the fixture has a bucket without a finite value');
  assert.ok([...b.env.lastValue].some((v) => v === -Infinity) && [...b.env.firstValue].some((v) => Number.isNaN(v)));
  const frame = encodeEnvelopeFrame(b);
  assert.equal(Buffer.from(frame.subarray(0, 4)).toString('latin1'), 'ARE1');
  assert.equal(binaryFrameType(frame), 'envelope');
  assert.deepEqual(plain(decodeEnvelopeFrame(frame)), plain(b));
});

test('envelope frame: a frame at an odd offset of a larger buffer (a socket chunk) decodes the same', () => {
  const frame = encodeEnvelopeFrame(batch());
  const big = Buffer.alloc(frame.length + 3);
  big.set(frame, 3);
  assert.deepEqual(plain(decodeEnvelopeFrame(big.subarray(3))), plain(batch()));
});

test('envelope: the JSON columns of a detail answer carry the same envelope, null min/max and wire numbers included', () => {
  const b = batch();
  const json = JSON.stringify(envelopeColumns(b.env));
  assert.match(json, /"min":\[[^\]]*null/);
  assert.match(json, /"NaN"/);
  assert.deepEqual(plain({ ...b, env: envelopeArrays(JSON.parse(json) as EnvelopeColumns) }), plain(b));
});

test('envelope frame: points and envelope frames are told apart; malformed frames are protocol errors', () => {
  const points = encodePointsFrame({ type: 'points', source: 's', run: 'r', role: '', series: [], cursor: { source: 's', offset: 0 } });
  assert.equal(binaryFrameType(points), 'points');
  assert.equal(binaryFrameType(new Uint8Array([1, 2, 3, 4, 5])), undefined);
  const good = encodeEnvelopeFrame(batch());
  const bad: [string, Uint8Array][] = [
    ['too short', good.subarray(0, 6)],
    ['a points frame', points],
    ['truncated columns', good.subarray(0, good.length - 8)],
    [
      'header past the end',
      (() => {
        const c = Uint8Array.from(good);
        new DataView(c.buffer).setUint32(4, 1e6, true);
        return c;
      })(),
    ],
    [
      'header not JSON',
      (() => {
        const c = Uint8Array.from(good);
        c[8] = 0x7b + 1;
        return c;
      })(),
    ],
  ];
  for (const [what, data] of bad) assert.throws(() => decodeEnvelopeFrame(data), ProtocolError, what);
  // A width that is not a power of two.
  const odd = batch();
  odd.env.width = 3;
  assert.throws(() => decodeEnvelopeFrame(encodeEnvelopeFrame(odd)), /power of two/);
});
