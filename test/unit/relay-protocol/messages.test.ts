import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ProtocolError,
  fromWireNumber,
  parseClientMessage,
  parseServerMessage,
  toWireNumber,
  type SubscribeMessage,
} from '../../../src/relay-protocol/messages';

test('wire numbers: non-finite values travel as strings and come back as themselves', () => {
  assert.deepEqual(
    ['NaN', '-Infinity', 0.5].map((v) => fromWireNumber(v as 'NaN' | '-Infinity' | number)),
    [NaN, -Infinity, 0.5],
  );
  for (const v of [0, -1.5, NaN, Infinity, -Infinity]) assert.ok(Object.is(fromWireNumber(toWireNumber(v)), v));
});

test('heartbeats say whether the backlog has drained', () => {
  assert.deepEqual(parseServerMessage('{"type":"heartbeat","time":5,"caughtUp":false}'), { type: 'heartbeat', time: 5, caughtUp: false });
});

test('malformed relay frames are rejected with a ProtocolError', () => {
  const bad: unknown[] = [
    'not json',
    '[]',
    { type: 'nope' },
    // Points and envelopes travel as binary frames only.
    { type: 'points', source: 's', run: 'r', role: '', tags: ['x'], tag: [0], step: [1], wallTime: [1.5], value: [0.5], cursor: { source: 's', offset: 1 } },
    { type: 'envelope', source: 's', run: 'r', role: '', tag: 'x', points: 0, cursor: { source: 's', offset: 1 }, width: 1, bucket: [] },
    { type: 'heartbeat', time: 5 },
    { type: 'heartbeat', time: 5, caughtUp: 1 },
    { type: 'experiences', source: 's', run: 'r', cursor: { source: 's', offset: -1 }, rows: [] },
    { type: 'hello', protocol: 1, relayVersion: 'x', instance: 'i', runs: [], roles: [], sources: [{ id: 1 }], heartbeatSeconds: 10 },
    { type: 'experiences', source: 's', run: 'r', cursor: { source: 's', offset: 1 }, rows: [{ id: 'x' }] },
  ];
  for (const b of bad) assert.throws(() => parseServerMessage(typeof b === 'string' ? b : JSON.stringify(b)), ProtocolError, JSON.stringify(b));
});

test('client messages: only a well-formed subscribe or experience request passes', () => {
  assert.deepEqual((parseClientMessage('{"type":"subscribe","protocol":1,"cursors":[{"source":"a","offset":3,"fid":"x"}]}') as SubscribeMessage).cursors, [
    { source: 'a', offset: 3, fid: 'x' },
  ]);
  assert.deepEqual(parseClientMessage('{"type":"experience","request":2,"source":"sql:b.db#t","id":7}'), {
    type: 'experience',
    request: 2,
    source: 'sql:b.db#t',
    id: 7,
  });
  for (const b of [
    '{"type":"subscribe","cursors":[]}',
    '{"type":"subscribe","protocol":1}',
    '{"type":"subscribe","protocol":1,"cursors":[{"source":"a","offset":1.5}]}',
    '{"type":"subscribe","protocol":1,"cursors":[],"runs":"r"}',
    '{"type":"read","path":"/etc/passwd"}',
    '{"type":"experience","request":1,"source":"s"}',
    '{"type":"experience","request":1,"source":"s","id":"1 OR 1=1"}',
  ])
    assert.throws(() => parseClientMessage(b), ProtocolError, b);
});

test('experience rows: the fields added within protocol 1 (consumed, metrics, advantage, updated) are optional and checked', () => {
  const row = { id: 3, table: 't', task_id: null, run_id: 0, model_version: 1, reward: null, timestamp: null };
  const frame = (rows: unknown[]) =>
    JSON.stringify({ type: 'experiences', source: 's', run: 'r', cursor: { source: 's', fid: 't@3', offset: 1_764_000_000_000 }, rows });
  const ok = [
    row,
    { ...row, msg_id: 'm', consumed: 1, metrics: { accuracy: 1, format_score: 'NaN' }, advantage: -0.5, updated: true },
    { ...row, consumed: null, advantage: null },
  ];
  assert.equal((parseServerMessage(frame(ok)) as { rows: unknown[] }).rows.length, 3);
  for (const bad of [{ consumed: 1.5 }, { metrics: { a: 'x' } }, { metrics: [1] }, { advantage: 'big' }, { updated: 1 }]) {
    assert.throws(() => parseServerMessage(frame([{ ...row, ...bad }])), ProtocolError, JSON.stringify(bad));
  }
});
