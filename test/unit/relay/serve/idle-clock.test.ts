// The relay's idle rule (serve/idle-clock.ts) on a fake clock: no client and no new data for
// the whole limit ends it; a client, or new data, starts the period over.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { IdleClock, idleCheckPeriodMs } from '../../../../src/relay/serve/idle-clock';

test('IdleClock: expires after the limit with no client and no data', () => {
  let t = 1000;
  const c = new IdleClock(2000, () => t);
  assert.equal(c.expired(0), false);
  t += 1999;
  assert.equal(c.expired(0), false);
  assert.equal(c.idleMs(0), 1999);
  t += 1;
  assert.equal(c.expired(0), true);
});

test('IdleClock: new data starts the period over', () => {
  let t = 0;
  const c = new IdleClock(2000, () => t);
  t = 1500;
  c.touch();
  t = 3000;
  assert.equal(c.expired(0), false, 'only 1.5 s since the data');
  t = 3500;
  assert.equal(c.expired(0), true);
});

test('IdleClock: a connected client keeps it alive; the period starts when it leaves', () => {
  let t = 0;
  const c = new IdleClock(2000, () => t);
  t = 10_000;
  assert.equal(c.expired(1), false, 'a client is connected');
  assert.equal(c.idleMs(1), 0);
  t = 11_000;
  assert.equal(c.expired(0), false, 'the client left 1 s ago at most');
  t = 12_000;
  assert.equal(c.expired(0), true);
});

test('idleCheckPeriodMs: a quarter of the limit, at most 30 s', () => {
  assert.equal(idleCheckPeriodMs(2000), 500);
  assert.equal(idleCheckPeriodMs(1800_000), 30_000);
  assert.equal(idleCheckPeriodMs(10), 50);
});
