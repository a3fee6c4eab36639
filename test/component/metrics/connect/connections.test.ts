// Connections (the editor's side of every relay endpoint) against real relays and real sockets:
// how it tells a relay that is gone, when an endpoint is "live", and wss:// with its own CA.
//
// A saved connection whose relay is gone (a Ray relay job that ended itself once idle) is
// brought back by the feature that made it: Connections tells `gone` once the endpoint
// has failed GONE_AFTER_FAILURES connects in a row without ever connecting — never for an
// endpoint without `revive`, and never for one that did connect (a relay that dies under a
// viewer was reaped with its run, or restarts on its own). Real RelayClients against a port
// nothing listens on, and a real relay that is stopped.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import type { Revive } from '../../../../src/feature-api/commands';
import { Connections, EndpointSpec, GONE_AFTER_FAILURES } from '../../../../src/metrics/connect/connections';
import type { EndpointState } from '../../../../src/metrics/protocol/view-protocol';
import { RelayClient } from '../../../../src/relay-protocol/client';
import { pointCount } from '../../../../src/relay-protocol/points-frame';
import { sleep, until } from '../../../harness/wait';
import { appendSteps } from '../../relay/appender';
import { startRelay, tmpDir } from '../../relay/helpers';
import { relayLauncher } from '../../../../src/metrics/connect/local-relay';
import { cliBundle } from '../../../harness/relay';
import { repoRoot } from '../../../harness/paths';

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
  const conns: Connections = new Connections(
    () => Promise.reject(new Error('no local relays here')),
    () => [],
    quiet,
    {
      client: (o) => {
        const c = new RelayClient({ ...o, backoff: { initialMs: 50, maxMs: 100, jitter: 0 } });
        c.on('state', (s) => s.state === 'connecting' && attempts.set(o.url, (attempts.get(o.url) ?? 0) + 1));
        return c;
      },
    },
  );
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
    assert.deepEqual(
      gone.map((s) => s.id),
      ['url:a'],
      'told once, only for the endpoint with revive',
    );
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

// "live" vs "catching up" is decided by the relay's backlog, not by silence (a
// connection streaming live data showed "catching up" for the whole run, because it needed
// 750 ms without a batch). A real relay over a logdir that a writer appends to every 100 ms.
test('a relay streaming without pause reads "live" once its backlog is sent', { timeout: 60_000 }, async () => {
  const dir = tmpDir('live-state-');
  const file = path.join(dir, 'events.out.tfevents.1.demo');
  appendSteps(file, 0, 2000); // a backlog first
  const relay = await startRelay(['--logdir', dir]);
  let step = 2000;
  const writer = setInterval(() => appendSteps(file, step, (step += 5)), 100); // never quiet for 750 ms
  const states: EndpointState[] = [];
  let points = 0;
  const conns = new Connections(
    () => Promise.reject(new Error('no local relays here')),
    () => [],
    { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  );
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

// The editor's connection to a wss:// relay with a self-signed certificate: the endpoint's
// CA (the `caFile` of agentrl.metrics.endpoints) is what the client trusts; without it the
// endpoint reports the certificate problem instead of streaming.
test('Connections: a wss:// endpoint with a self-signed certificate streams with its CA, and says why without it', { timeout: 60_000 }, async (t) => {
  const dir = tmpDir('conn-tls-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return t.skip(`openssl unavailable: ${r.stderr}`);
  const logdir = path.join(dir, 'logs');
  fs.mkdirSync(logdir);
  appendSteps(path.join(logdir, 'events.out.tfevents.1.node'), 0, 50);
  const relay = await startRelay(['--logdir', logdir, '--tls-cert', cert, '--tls-key', key]);
  const got = new Map<string, number>();
  const conns = new Connections(
    () => Promise.reject(new Error('no local relays here')),
    () => [],
    silentLogger,
    {
      timing: { restartInitialMs: 50, restartMaxMs: 100, backoff: { initialMs: 50, maxMs: 200 } },
    },
  );
  conns.on('points', (ep, b) => got.set(ep, (got.get(ep) ?? 0) + pointCount(b)));
  const specs: EndpointSpec[] = [
    { id: 'trusted', name: 'trusted', url: relay.url, ca: fs.readFileSync(cert, 'utf8') },
    { id: 'untrusted', name: 'untrusted', url: relay.url },
  ];
  try {
    await conns.set(specs);
    const status = () => new Map(conns.statuses().map((s) => [s.id, s]));
    await until(
      'the trusted endpoint live and the untrusted one naming its certificate',
      () => status().get('trusted')?.state === 'live' && /certificate/i.test(status().get('untrusted')?.detail ?? ''),
      20_000,
      50,
    ).catch((e: Error) => assert.fail(`${e.message}: ${JSON.stringify(conns.statuses())}`));
    assert.equal(got.get('trusted'), 100);
    assert.equal(got.get('untrusted') ?? 0, 0);
    assert.notEqual(status().get('untrusted')?.state, 'live');
  } finally {
    await conns.set([]);
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A run that ended says so: the demo trainer runs its steps to the end and logs Trinity's
// "> Explorer (…) finished." / "> Trainer finished." lines; connected to its job dir (the
// extension's own local relay), the endpoint reads "finished" with the time, not "live". The same
// job dir without those lines (a run still going) reads "live".
test('a local job dir whose run has finished reads "finished" (and when), one still running "live"', { timeout: 90_000 }, async () => {
  const root = tmpDir('finished-');
  const done = path.join(root, 'done');
  const r = spawnSync(
    'python3',
    [path.join(repoRoot, 'demo', 'demo_trainer.py'), '--job-dir', done, '--steps', '5', '--step-seconds', '0', '--model-url', ''],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const running = path.join(root, 'running');
  fs.cpSync(done, running, { recursive: true });
  for (const role of ['explorer', 'trainer']) {
    const log = path.join(running, 'log', `${role}.log`);
    fs.writeFileSync(
      log,
      fs
        .readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => !/finished|^-+$/.test(l) && !l.endsWith('--------------------'))
        .join('\n'),
    );
  }
  const conns = new Connections(relayLauncher({ cli: cliBundle, log: silentLogger }), () => [], silentLogger);
  try {
    await conns.set([
      { id: 'done', name: 'done', local: { dir: done, mode: 'job' } },
      { id: 'running', name: 'running', local: { dir: running, mode: 'job' } },
    ]);
    const state = (id: string) => conns.statuses().find((s) => s.id === id);
    const fin = await until('the finished run to read "finished"', () => state('done')?.state === 'finished' && state('done'), 60_000);
    assert.match(fin.detail ?? '', /^\d\d:\d\d:\d\d$/, 'when it finished');
    await until('the running run to read "live"', () => state('running')?.state === 'live', 60_000);
  } finally {
    await conns.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
