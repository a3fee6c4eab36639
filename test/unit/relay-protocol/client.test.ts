// What RelayClient takes from the socket: points and envelopes as binary frames, every other
// message as checked JSON; anything else is a ProtocolError, on which
// the client drops the connection. (The client against a real relay: test/component/relay.)
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFrame } from '../../../src/relay-protocol/client';
import { encodePointsFrame } from '../../../src/relay-protocol/points-frame';
import { ProtocolError, type PointsBatch } from '../../../src/relay-protocol/messages';

const batch: PointsBatch = {
  type: 'points',
  source: 'tfevents:a',
  run: 'r',
  role: 'trainer',
  series: [{ tag: 'loss', step: Float64Array.from([1, 2]), wallTime: Float64Array.from([10, 20]), value: Float64Array.from([0.5, NaN]) }],
  cursor: { source: 'tfevents:a', fid: '1:2', offset: 64 },
};

test('readFrame: points as a binary frame, other messages as JSON; points or envelopes as JSON are a protocol error', () => {
  const b = readFrame(Buffer.from(encodePointsFrame(batch)), true);
  assert.equal(b.type, 'points');
  assert.deepEqual(b.type === 'points' && [...b.series[0].value], [0.5, NaN]);
  assert.deepEqual(readFrame(Buffer.from(JSON.stringify({ type: 'heartbeat', time: 5, caughtUp: true })), false), {
    type: 'heartbeat',
    time: 5,
    caughtUp: true,
  });
  assert.throws(
    () => readFrame(Buffer.from(JSON.stringify({ ...batch, series: [] })), false),
    (e: unknown) => e instanceof ProtocolError && /unknown message type 'points'/.test(e.message),
  );
  assert.throws(() => readFrame(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), true), ProtocolError);
  assert.throws(() => readFrame(Buffer.from('{"type":"points"'), false), ProtocolError);
});
