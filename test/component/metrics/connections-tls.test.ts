// The editor's connection to a wss:// relay with a self-signed certificate: the endpoint's
// CA (the `caFile` of agentrl.metrics.endpoints) is what the client trusts; without it the
// endpoint reports the certificate problem instead of streaming.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Connections, EndpointSpec } from '../../../src/metrics/connect/connections';
import { silentLogger } from '../../../src/base/log';
import { appendSteps } from '../relay/appender';
import { startRelay, tmpDir } from '../relay/helpers';
import { pointCount } from '../../../src/relay-protocol/points-frame';

test('Connections: a wss:// endpoint with a self-signed certificate streams with its CA, and says why without it', { timeout: 60_000 }, async (t) => {
  const dir = tmpDir('conn-tls-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
  if (r.status !== 0) return t.skip(`openssl unavailable: ${r.stderr}`);
  const logdir = path.join(dir, 'logs');
  fs.mkdirSync(logdir);
  appendSteps(path.join(logdir, 'events.out.tfevents.1.node'), 0, 50);
  const relay = await startRelay(['--logdir', logdir, '--tls-cert', cert, '--tls-key', key]);
  const got = new Map<string, number>();
  const conns = new Connections(() => Promise.reject(new Error('no local relays here')), () => [], silentLogger, {
    timing: { restartInitialMs: 50, restartMaxMs: 100, backoff: { initialMs: 50, maxMs: 200 } },
  });
  conns.on('points', (ep, b) => got.set(ep, (got.get(ep) ?? 0) + pointCount(b)));
  const specs: EndpointSpec[] = [
    { id: 'trusted', name: 'trusted', url: relay.url, ca: fs.readFileSync(cert, 'utf8') },
    { id: 'untrusted', name: 'untrusted', url: relay.url },
  ];
  try {
    await conns.set(specs);
    const t0 = Date.now();
    const status = () => new Map(conns.statuses().map((s) => [s.id, s]));
    while (!(status().get('trusted')?.state === 'live' && /certificate/i.test(status().get('untrusted')?.detail ?? ''))) {
      assert.ok(Date.now() - t0 < 20_000, JSON.stringify(conns.statuses()));
      await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(got.get('trusted'), 100);
    assert.equal(got.get('untrusted') ?? 0, 0);
    assert.notEqual(status().get('untrusted')?.state, 'live');
  } finally {
    await conns.set([]);
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
