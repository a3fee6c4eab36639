// "live" vs "catching up" is decided by the relay's backlog, not by silence (a
// connection streaming live data showed "catching up" for the whole run, because it needed
// 750 ms without a batch). A real relay over a logdir that a writer appends to every 100 ms.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Connections } from '../../../src/metrics/connect/connections';
import type { EndpointState } from '../../../src/metrics/protocol/view-protocol';
import { appendSteps } from '../relay/appender';
import { startRelay, tmpDir } from '../relay/helpers';
import { sleep } from '../../harness/wait';
import { pointCount } from '../../../src/relay-protocol/points-frame';

test('a relay streaming without pause reads "live" once its backlog is sent', { timeout: 60_000 }, async () => {
  const dir = tmpDir('live-state-');
  const file = path.join(dir, 'events.out.tfevents.1.demo');
  appendSteps(file, 0, 2000); // a backlog first
  const relay = await startRelay(['--logdir', dir]);
  let step = 2000;
  const writer = setInterval(() => appendSteps(file, step, (step += 5)), 100); // never quiet for 750 ms
  const states: EndpointState[] = [];
  let points = 0;
  const conns = new Connections(() => Promise.reject(new Error('no local relays here')), () => [], { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined });
  conns.on('points', (_e, b) => (points += pointCount(b)));
  conns.on('changed', () => {
    const s = conns.statuses()[0]?.state;
    if (s && states[states.length - 1] !== s) states.push(s);
  });
  try {
    await conns.set([{ id: 'e', name: 'demo', url: relay.url }]);
    const deadline = Date.now() + 20_000;
    while (!states.includes('live') && Date.now() < deadline) await sleep(50);
    assert.ok(states.includes('backfilling'), `states: ${states.join(' → ')}`);
    assert.ok(states.includes('live'), `never live while the writer appends every 100 ms: ${states.join(' → ')}`);
    assert.ok(points >= 4000, `the backlog arrived before "live" (${points} points)`);
    // And it stays live while data keeps flowing.
    const before = points;
    await sleep(600);
    assert.ok(points > before, 'the stream kept flowing');
    assert.equal(conns.statuses()[0].state, 'live');
  } finally {
    clearInterval(writer);
    await conns.dispose();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
