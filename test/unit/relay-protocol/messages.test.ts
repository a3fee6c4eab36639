import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ProtocolError,
  fromWireNumber,
  parseClientMessage,
  parseServerMessage,
  toWireNumber,
  type PointsMessage,
  type SubscribeMessage,
} from '../../../src/relay-protocol/messages';

const points: PointsMessage = {
  type: 'points',
  source: 'tfevents:a',
  run: 'r',
  role: 'explorer',
  tags: ['x', 'y'],
  tag: [0, 1, 0],
  step: [1, 1, 2],
  wallTime: [1.5, 1.5, 2.5],
  value: [0.5, 'NaN', '-Infinity'],
  cursor: { source: 'tfevents:a', fid: '1:2', offset: 99 },
};

test('points round-trip through JSON, non-finite values included', () => {
  const m = parseServerMessage(JSON.stringify(points)) as PointsMessage;
  assert.deepEqual(m, points);
  assert.deepEqual(m.value.map(fromWireNumber), [0.5, NaN, -Infinity]);
  for (const v of [0, -1.5, NaN, Infinity, -Infinity]) assert.ok(Object.is(fromWireNumber(toWireNumber(v)), v));
});

test('malformed relay frames are rejected with a ProtocolError', () => {
  const bad: unknown[] = [
    'not json',
    '[]',
    { type: 'nope' },
    { ...points, tag: [0, 5, 0] },
    { ...points, step: [1, 2] },
    { ...points, value: [0.5, 'nan', 1] },
    { ...points, cursor: { source: 's', offset: -1 } },
    { type: 'hello', protocol: 1, relayVersion: 'x', instance: 'i', runs: [], roles: [], sources: [{ id: 1 }], heartbeatSeconds: 10 },
    { type: 'experiences', source: 's', run: 'r', cursor: { source: 's', offset: 1 }, rows: [{ id: 'x' }] },
  ];
  for (const b of bad) assert.throws(() => parseServerMessage(typeof b === 'string' ? b : JSON.stringify(b)), ProtocolError, JSON.stringify(b));
});

test('client messages: only a well-formed subscribe or experience request passes', () => {
  assert.deepEqual((parseClientMessage('{"type":"subscribe","protocol":1,"cursors":[{"source":"a","offset":3,"fid":"x"}]}') as SubscribeMessage).cursors, [{ source: 'a', offset: 3, fid: 'x' }]);
  assert.deepEqual((parseClientMessage('{"type":"subscribe","protocol":1,"cursors":[],"binary":["points","later"]}') as SubscribeMessage).binary, ['points', 'later']);
  assert.deepEqual(parseClientMessage('{"type":"experience","request":2,"source":"sql:b.db#t","id":7}'), { type: 'experience', request: 2, source: 'sql:b.db#t', id: 7 });
  for (const b of [
    '{"type":"subscribe","cursors":[]}',
    '{"type":"subscribe","protocol":1}',
    '{"type":"subscribe","protocol":1,"cursors":[{"source":"a","offset":1.5}]}',
    '{"type":"subscribe","protocol":1,"cursors":[],"runs":"r"}',
    '{"type":"subscribe","protocol":1,"cursors":[],"binary":"points"}',
    '{"type":"read","path":"/etc/passwd"}',
    '{"type":"experience","request":1,"source":"s"}',
    '{"type":"experience","request":1,"source":"s","id":"1 OR 1=1"}',
  ]) assert.throws(() => parseClientMessage(b), ProtocolError, b);
});

test('experience rows: the fields added within protocol 1 (consumed, metrics, advantage, updated) are optional and checked', () => {
  const row = { id: 3, table: 't', task_id: null, run_id: 0, model_version: 1, reward: null, timestamp: null };
  const frame = (rows: unknown[]) => JSON.stringify({ type: 'experiences', source: 's', run: 'r', cursor: { source: 's', fid: 't@3', offset: 1_764_000_000_000 }, rows });
  const ok = [row, { ...row, msg_id: 'm', consumed: 1, metrics: { accuracy: 1, format_score: 'NaN' }, advantage: -0.5, updated: true }, { ...row, consumed: null, advantage: null }];
  assert.equal((parseServerMessage(frame(ok)) as { rows: unknown[] }).rows.length, 3);
  for (const bad of [{ consumed: 1.5 }, { metrics: { a: 'x' } }, { metrics: [1] }, { advantage: 'big' }, { updated: 1 }]) {
    assert.throws(() => parseServerMessage(frame([{ ...row, ...bad }])), ProtocolError, JSON.stringify(bad));
  }
});
