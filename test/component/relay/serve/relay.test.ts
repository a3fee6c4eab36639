// Security of the relay: token only in the Authorization header, compared in constant time,
// never logged; Origin, frame-size and connection limits; a client that never reads is cut
// off — and through all of it the relay keeps serving the well-behaved client. The upgrade
// policy itself (checkUpgrade) is tested in process in test/unit/relay/serve/auth.test.ts.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { RELAY_SUBPROTOCOL } from '../../../../src/relay-protocol/messages';
import { RelayClient, RelayClientError } from '../../../../src/relay-protocol/client';
import { appendSteps } from '../appender';
import { cli, cliAsync, collect, startRelay, tmpDir } from '../helpers';
import { sleep, until } from '../../../harness/wait';

const TOKEN = 's3cret-token-value-42';

test('the relay refuses to bind a non-loopback address without a token', () => {
  const dir = tmpDir();
  const r = cli(['relay', '--logdir', dir, '--host', '0.0.0.0', '--port', '0']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0 without a token/);
  const u = cli(['relay', '--logdir', dir, '--job-dir', dir]);
  assert.equal(u.code, 2);
  assert.match(u.stderr, /exactly one of --job-dir or --logdir/);
  const t = cli(['tail', 'ws://127.0.0.1:1/?token=abc']);
  assert.equal(t.code, 2);
  assert.match(t.stderr, /do not put the token in the URL/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('agentrl tail refused by the relay: a clear "unauthorized" and exit code 3, no recursion', { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const relay = await startRelay(['--logdir', dir, '--token-file', tokenFile]);
  try {
    const wrongFile = path.join(dir, 'wrong');
    fs.writeFileSync(wrongFile, 'not-the-token\n', { mode: 0o600 });
    for (const args of [[], ['--token-file', wrongFile]]) {
      // Async: the relay is a child of this process and must keep answering meanwhile.
      const r = await cliAsync(['tail', relay.url, '--until-idle', '20', ...args]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /unauthorized/);
      assert.doesNotMatch(r.stderr, /Maximum call stack|RangeError/);
      assert.ok(!r.stderr.includes(TOKEN));
    }
  } finally {
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Connects with the given token/URL and resolves with the first auth error (or 'ok'). */
function attempt(url: string, token?: string): Promise<RelayClientError | 'ok'> {
  const c = new RelayClient({ url, token, backoff: { initialMs: 10, maxMs: 50 } });
  return new Promise((resolve) => {
    c.on('error', (e) => {
      if (e.kind === 'auth') void c.close().then(() => resolve(e));
    });
    c.on('hello', () => void c.close().then(() => resolve('ok')));
    c.start();
  });
}

test('auth and abuse: no token, wrong token, token in URL, oversized frame, a client that never reads', { timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'events.out.tfevents.1.node');
  // ~1 M points (≈ 35 MB of JSON): more than the relay's high-water mark plus the kernel's socket buffers.
  const block = path.join(dir, 'block.bin');
  appendSteps(block, 0, 1000);
  const blockBytes = fs.readFileSync(block);
  fs.rmSync(block);
  fs.writeFileSync(file, Buffer.concat(Array.from({ length: 500 }, () => blockBytes)));
  const total = 500 * 2000;
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const relay = await startRelay(['--logdir', dir, '--token-file', tokenFile, '--stall-timeout', '1', '--heartbeat', '30', '--max-clients', '4']);
  const good = collect({ url: relay.url, token: TOKEN });
  try {
    const none = await attempt(relay.url);
    assert.ok(none !== 'ok' && none.status === 401, JSON.stringify(none));
    const wrong = await attempt(relay.url, 'not-the-token');
    assert.ok(wrong !== 'ok' && wrong.status === 401);
    const inUrl = await attempt(`${relay.url}?token=${TOKEN}`, TOKEN);
    assert.ok(inUrl !== 'ok' && inUrl.status === 400);
    const origin = await new Promise<number>((resolve) => {
      const ws = new WebSocket(relay.url, RELAY_SUBPROTOCOL, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' } });
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    assert.equal(origin, 403);

    // An oversized frame closes that connection (1009 "message too big"). The relay refuses it at
    // the frame's header, with the rest of it unread: its close can reach the client as a TCP reset
    // first (1006, seen on a loaded machine). Either way the connection ends, and within the wait.
    const big = await new Promise<number>((resolve) => {
      const ws = new WebSocket(relay.url, RELAY_SUBPROTOCOL, { headers: { authorization: `Bearer ${TOKEN}` } });
      const timer = setTimeout(() => resolve(-1), 30_000);
      ws.on('open', () => ws.send('x'.repeat(200 * 1024)));
      ws.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      ws.on('error', () => undefined);
    });
    assert.ok(big === 1009 || big === 1006, `the oversized frame's connection: close code ${big} (-1: still open after 30 s)`);

    // A client that subscribes and then never reads its socket is cut off after --stall-timeout
    // (it cannot notice: its socket is paused, so the relay's log is where this shows).
    const stalled = new WebSocket(relay.url, RELAY_SUBPROTOCOL, { headers: { authorization: `Bearer ${TOKEN}` } });
    stalled.on('error', () => undefined);
    stalled.once('message', () => {
      stalled.send(JSON.stringify({ type: 'subscribe', protocol: 1, cursors: [] }));
      (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
    });
    await until('the stalled client cut off', () => /client \d+ stopped reading .* disconnecting it/.test(relay.stderr())).catch((e: Error) =>
      assert.fail(`${e.message}: ${relay.stderr()}`),
    );
    stalled.terminate();

    // Meanwhile the well-behaved client received everything, exactly once.
    await good.until((p) => p.length >= total, 60_000);
    assert.equal(good.points.length, total);
    assert.equal(good.client.stats.staleBatches, 0);
    assert.equal(relay.proc.exitCode, null, 'the relay is still running');
    assert.ok(!relay.stderr().includes(TOKEN), 'the token never appears in the relay log');
  } finally {
    await good.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the connection limit answers 503 and frees up when a client leaves', { timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const relay = await startRelay(['--logdir', dir, '--max-clients', '1']);
  const first = collect({ url: relay.url });
  try {
    await new Promise<void>((r) => first.client.once('hello', () => r()));
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(relay.url, RELAY_SUBPROTOCOL);
      ws.on('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => undefined);
    });
    assert.equal(status, 503);
    await first.client.close();
    await sleep(100);
    assert.equal(await attempt(relay.url), 'ok');
  } finally {
    await first.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('TLS: --tls-cert/--tls-key serve wss://; the client trusts the certificate with ca', { timeout: 120_000 }, async (t) => {
  const dir = tmpDir();
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
  appendSteps(path.join(logdir, 'events.out.tfevents.1.node'), 0, 10);
  const relay = await startRelay(['--logdir', logdir, '--tls-cert', cert, '--tls-key', key]);
  assert.match(relay.url, /^wss:\/\//);
  const c = collect({ url: relay.url, ca: fs.readFileSync(cert) });
  try {
    await c.until((p) => p.length >= 20);
    assert.equal(c.points.length, 20);
    // Without trusting the certificate the handshake fails (and keeps failing).
    const untrusted = new RelayClient({ url: relay.url, backoff: { initialMs: 10, maxMs: 20 } });
    const err = await new Promise<RelayClientError>((resolve) => {
      untrusted.on('error', resolve);
      untrusted.start();
    });
    await untrusted.close();
    assert.equal(err.kind, 'connection');
  } finally {
    await c.client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
