// A saved connection whose relay is gone (a Ray relay job that ended itself once idle) is
// brought back by the feature that made it: Connections tells `gone` once the endpoint
// has failed GONE_AFTER_FAILURES connects in a row without ever connecting — never for an
// endpoint without `revive`, and never for one that did connect (a relay that dies under a
// viewer was reaped with its run, or restarts on its own). Real RelayClients against a port
// nothing listens on, and a real relay that is stopped.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { Connections, EndpointSpec, GONE_AFTER_FAILURES } from '../../../src/metrics/connect/connections';
import { RelayClient } from '../../../src/relay-protocol/client';
import { appendSteps } from '../relay/appender';
import { startRelay, tmpDir } from '../relay/helpers';
import { sleep } from '../../harness/wait';
import type { Revive } from '../../../src/feature-api/commands';

const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const REVIVE: Revive = { command: 'agentrl.ray.watchMetrics', args: { cluster: 'http://127.0.0.1:8265', id: 'raysubmit_1', relay: 'cluster' } };

/** A loopback port nobody listens on (taken, then released). */
async function deadPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function connections(gone: EndpointSpec[], attempts: Map<string, number>) {
  const conns: Connections = new Connections(() => Promise.reject(new Error('no local relays here')), () => [], quiet, {
    client: (o) => {
      const c = new RelayClient({ ...o, backoff: { initialMs: 50, maxMs: 100, jitter: 0 } });
      c.on('state', (s) => s.state === 'connecting' && attempts.set(o.url, (attempts.get(o.url) ?? 0) + 1));
      return c;
    },
  });
  conns.on('gone', (spec) => gone.push(spec));
  return conns;
}

test('a relay that is gone: told once after a few refused connects, only for an endpoint that can be revived', { timeout: 30_000 }, async () => {
  const gone: EndpointSpec[] = [];
  const attempts = new Map<string, number>();
  const conns = connections(gone, attempts);
  const a = `ws://127.0.0.1:${await deadPort()}/`;
  const b = `ws://127.0.0.1:${await deadPort()}/`;
  try {
    await conns.set([
      { id: 'url:a', name: 'ray:run', url: a, revive: REVIVE },
      { id: 'url:b', name: 'plain', url: b },
    ]);
    const deadline = Date.now() + 15_000;
    while (((attempts.get(a) ?? 0) < GONE_AFTER_FAILURES + 4 || (attempts.get(b) ?? 0) < GONE_AFTER_FAILURES + 4) && Date.now() < deadline) await sleep(20);
    assert.ok((attempts.get(a) ?? 0) >= GONE_AFTER_FAILURES + 4, `kept retrying: ${attempts.get(a)} attempts`);
    assert.deepEqual(gone.map((s) => s.id), ['url:a'], 'told once, only for the endpoint with revive');
    assert.deepEqual(gone[0].revive, REVIVE);
    assert.equal(conns.statuses().find((s) => s.id === 'url:a')?.state, 'stale', 'the endpoint itself keeps retrying meanwhile');
  } finally {
    await conns.dispose();
  }
});

test('a relay that dies under a viewer that had connected is not revived (it was reaped with its run)', { timeout: 60_000 }, async () => {
  const dir = tmpDir('relay-gone-');
  appendSteps(path.join(dir, 'events.out.tfevents.1.demo'), 0, 50);
  const relay = await startRelay(['--logdir', dir]);
  const gone: EndpointSpec[] = [];
  const attempts = new Map<string, number>();
  const conns = connections(gone, attempts);
  try {
    await conns.set([{ id: 'url:r', name: 'ray:run', url: relay.url, revive: REVIVE }]);
    const up = Date.now() + 20_000;
    while (conns.statuses()[0]?.state !== 'live' && Date.now() < up) await sleep(20);
    assert.equal(conns.statuses()[0]?.state, 'live');
    await relay.stop();
    const before = attempts.get(relay.url) ?? 0;
    const deadline = Date.now() + 15_000;
    while ((attempts.get(relay.url) ?? 0) < before + GONE_AFTER_FAILURES + 3 && Date.now() < deadline) await sleep(20);
    assert.ok((attempts.get(relay.url) ?? 0) >= before + GONE_AFTER_FAILURES + 3, 'it retried');
    assert.deepEqual(gone, [], 'not revived');
  } finally {
    await conns.dispose();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
