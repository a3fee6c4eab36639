// The protocol around the streams, as clients meet it: the same refusals (a non-loopback bind
// without a token, a missing or wrong token, a token in the URL, a browser origin), the same
// answers to malformed frames, the same envelopes and `detail` answers of an event file, the
// same experience details — from the Node relay and from its Python twin.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import WebSocket from 'ws';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { EnvelopeBatch } from '../../../../src/relay-protocol/envelope-frame';
import { RELAY_SUBPROTOCOL } from '../../../../src/relay-protocol/messages';
import { EventType } from '../../../../src/tfrecord/event-proto';
import { frameRecord } from '../../../../src/tfrecord/scan';
import { repoRoot } from '../../../harness/paths';
import { relayCommand } from '../../../harness/relay';
import { until } from '../../../harness/wait';
import { wsText } from '../../../harness/ws-text';
import { hasTbx, pythonAsync, tmpDir } from '../helpers';
import { PYTHON_RUNTIMES, RelayRuntime, once, relaySkipReason, startRelay, tail } from './helpers';

const TOKEN = 'conformance-token-0123456789abcdef';

/** One test per Python runtime comparing `probe` on it with `probe` on the Node relay. */
function sameAsNode<T>(name: string, probe: (runtime: RelayRuntime) => T | Promise<T>, opts: { skip?: string | false; timeout?: number } = {}): void {
  const ref = once(() => probe('node'));
  for (const runtime of PYTHON_RUNTIMES) {
    test(`${name} [${runtime}]`, { skip: opts.skip || relaySkipReason(runtime), timeout: opts.timeout ?? 120_000 }, async () => {
      assert.deepEqual(await probe(runtime), await ref());
    });
  }
}

// ---- refusals ---------------------------------------------------------------------------------

sameAsNode('command-line refusals: no token off loopback, both roots, an unknown flag, a bad port', (runtime) => {
  const dir = tmpDir('conf-cli-');
  const run = (args: string[]) => {
    const cmd = relayCommand(args, runtime);
    const r = spawnSync(cmd.file, cmd.args, { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '' } });
    return { code: r.status, first: r.stderr.split('\n')[0] };
  };
  return [
    run(['--logdir', dir, '--host', '0.0.0.0', '--port', '0']),
    run(['--logdir', dir, '--job-dir', dir]),
    run(['--logdir', path.join(dir, 'missing')]),
    run(['--logdir', dir, '--port', '70000']),
    run(['--logdir', dir, '--stall-timeout', 'soon']),
    run(['--logdir', dir, '--tls-cert', 'x.pem']),
  ].map((r) => ({ ...r, first: r.first.replace(dir, '<dir>') }));
});

sameAsNode('token refusals: agentrl tail without a token and with a wrong one exits 3 with the same words', async (runtime) => {
  const dir = tmpDir('conf-auth-');
  fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'wrong'), 'not-the-token\n', { mode: 0o600 });
  const relay = await startRelay(['--logdir', dir, '--token-file', path.join(dir, 'token')], { runtime });
  try {
    const out = [];
    for (const args of [[], ['--token-file', path.join(dir, 'wrong')]]) {
      const r = await tail(relay.url, ['--until-idle', '20', ...args]);
      assert.ok(!r.stderr.includes(TOKEN));
      out.push({ code: r.code, stderr: r.stderr.split('\n')[0] });
    }
    const ok = await tail(relay.url, ['--json', '--until-idle', '1', '--token-file', path.join(dir, 'token')]);
    out.push({ code: ok.code, stderr: '' });
    return out;
  } finally {
    await relay.stop();
  }
});

/** The HTTP status and body a raw upgrade attempt gets (or 'open'). */
function upgrade(url: string, opts: WebSocket.ClientOptions): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, RELAY_SUBPROTOCOL, opts);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve(`${res.statusCode} ${body.trim()}`));
    });
    ws.on('open', () => {
      ws.terminate();
      resolve('open');
    });
    ws.on('error', () => undefined);
  });
}

sameAsNode('upgrade refusals: credentials in the URL, a browser origin, a missing and a wrong bearer token', async (runtime) => {
  const dir = tmpDir('conf-upgrade-');
  fs.writeFileSync(path.join(dir, 'token'), TOKEN, { mode: 0o600 });
  const relay = await startRelay(['--logdir', dir, '--token-file', path.join(dir, 'token')], { runtime });
  const auth = { authorization: `Bearer ${TOKEN}` };
  try {
    return [
      await upgrade(`${relay.url}?token=${TOKEN}`, { headers: auth }),
      await upgrade(`${relay.url}?access_token=x`, { headers: auth }),
      await upgrade(relay.url, { headers: { ...auth, origin: 'https://evil.example' } }),
      await upgrade(relay.url, {}),
      await upgrade(relay.url, { headers: { authorization: 'Bearer nope' } }),
      await upgrade(relay.url, { headers: { authorization: `Basic ${TOKEN}` } }),
      await upgrade(relay.url, { headers: auth }),
    ];
  } finally {
    await relay.stop();
  }
});

// ---- malformed frames ---------------------------------------------------------------------

const BAD_FRAMES: (string | Buffer)[] = [
  'not json',
  '{"nope": 1}',
  '[1, 2]',
  '{"type": 7}',
  '{"type": "unknown-thing-with-a-long-name-that-goes-on-and-on-and-on"}',
  '{"type": {"a": 1}}',
  '{"type": "subscribe"}',
  '{"type": "subscribe", "protocol": 1}',
  '{"type": "subscribe", "protocol": 1, "cursors": [{"source": "x", "offset": -1}]}',
  '{"type": "subscribe", "protocol": 1, "cursors": [{"source": "x", "offset": 1, "fid": null}]}',
  '{"type": "subscribe", "protocol": 1, "cursors": [], "runs": "all"}',
  '{"type": "subscribe", "protocol": 1, "cursors": [], "experiences": "yes"}',
  '{"type": "subscribe", "protocol": 1, "cursors": [], "envelope": {"buckets": 1}}',
  '{"type": "experience", "request": 1, "source": "x"}',
  '{"type": "experience", "request": 1.5, "source": "x", "id": 1}',
  '{"type": "detail", "request": 1, "source": "x", "tag": "t", "from": 5, "to": 1, "maxPoints": 10, "cursor": {"source": "x", "offset": 0}}',
  '{"type": "detail", "request": 1, "source": "x", "tag": "t", "from": 0, "to": 1, "maxPoints": 100001, "cursor": {"source": "x", "offset": 0}}',
  '{"type": "subscribe", "protocol": 1.0, "cursors": [{"source": "s", "offset": 5.0}], "extra": true}',
  Buffer.from('binary'),
  '{"type": "subscribe", "protocol": 2, "cursors": []}',
];

// Well-formed requests for a source that does not exist: answered with an error each. Sent on a
// connection of their own: their answers are read asynchronously, and the version error above
// closes its connection without waiting for answers still being read.
const UNKNOWN_SOURCE_REQUESTS = [
  '{"type": "experience", "request": 2, "source": "no such source", "id": 1}',
  '{"type": "detail", "request": 3, "source": "no such source", "tag": "t", "from": 0, "to": 1, "maxPoints": 10, "cursor": {"source": "x", "offset": 0}}',
];

sameAsNode('malformed frames: the same errors in the same order, an unsupported version closes with 4000', async (runtime) => {
  const relay = await startRelay(['--logdir', tmpDir('conf-frames-')], { runtime });
  try {
    const ws = new WebSocket(relay.url, RELAY_SUBPROTOCOL);
    const got: unknown[] = [];
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('message', (data, binary) => {
      if (binary) return;
      const m = JSON.parse(wsText(data)) as Record<string, unknown>;
      if (m.type === 'hello' || m.type === 'heartbeat') return;
      got.push(m);
    });
    await new Promise((r) => ws.once('open', r));
    for (const f of BAD_FRAMES) ws.send(f);
    const code = await closed;
    const unknown = await answers(relay.url, UNKNOWN_SOURCE_REQUESTS);
    const oversize = await closeCode(relay.url, 'x'.repeat(70 * 1024));
    const badUtf8 = await closeCode(relay.url, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), false);
    return { got, code, unknown, oversize, badUtf8 };
  } finally {
    await relay.stop();
  }
});

/** The JSON replies (hello and heartbeats aside) to `frames`, one per frame, in order. */
async function answers(url: string, frames: string[]): Promise<unknown[]> {
  const ws = new WebSocket(url, RELAY_SUBPROTOCOL);
  const got: unknown[] = [];
  ws.on('message', (data, binary) => {
    if (binary) return;
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.isBuffer(data) ? data.toString('utf8') : new TextDecoder().decode(data);
    const m = JSON.parse(text) as Record<string, unknown>;
    if (m.type !== 'hello' && m.type !== 'heartbeat') got.push(m);
  });
  await new Promise((r) => ws.once('open', r));
  for (const f of frames) ws.send(f);
  await until(`${frames.length} answers`, () => got.length >= frames.length, 30_000);
  ws.close();
  return got;
}

/** The close code a frame makes the relay send. */
function closeCode(url: string, frame: string | Buffer, binary?: boolean): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, RELAY_SUBPROTOCOL);
    ws.on('open', () => ws.send(frame, { binary: binary ?? typeof frame !== 'string' }));
    ws.on('close', (code) => resolve(code));
    ws.on('error', () => undefined);
  });
}

// ---- envelopes and detail -----------------------------------------------------------------

/** Values that exercise every column: NaN, ±Infinity, -0, spikes, steps written out of order. */
function envelopeFile(file: string): void {
  const parts: Buffer[] = [];
  const tags = ['loss', 'reward', 'odd/values'];
  for (let i = 0; i < 30000; i++) {
    const step = i % 997 === 0 && i > 0 ? i - 500 : i;
    tags.forEach((tag, t) => {
      let value = Math.sin(i * 0.01 + t) * (t + 1);
      if (t === 2) value = i % 101 === 0 ? NaN : i % 103 === 0 ? Infinity : i % 107 === 0 ? -Infinity : i % 109 === 0 ? -0 : i === 12345 ? 1e30 : value;
      const ev = EventType.fromObject({ wall_time: 1.7e9 + i / 7, step, summary: { value: [{ tag, simple_value: Math.fround(value) }] } });
      parts.push(frameRecord(EventType.encode(ev).finish()));
    });
  }
  fs.writeFileSync(file, Buffer.concat(parts));
}

const envelopeDir = once(() => {
  const dir = tmpDir('conf-env-');
  fs.mkdirSync(path.join(dir, 'run'));
  envelopeFile(path.join(dir, 'run', 'events.out.tfevents.1.env'));
  return dir;
});

const arrays = (b: EnvelopeBatch) => Object.fromEntries(Object.entries(b.env).map(([k, v]) => [k, typeof v === 'number' ? v : Array.from(v)]));

sameAsNode('envelope-first: the same envelope of every tag, then the same detail answers (points, and finer envelopes)', async (runtime) => {
  const relay = await startRelay(['--logdir', await envelopeDir()], { runtime });
  const client = new RelayClient({ url: relay.url, envelope: { buckets: 256 } });
  const envelopes: Record<string, unknown> = {};
  let source = '';
  let cursor: EnvelopeBatch['cursor'] | undefined;
  client.on('envelope', (b) => {
    envelopes[b.tag] = { points: b.points, run: b.run, ...arrays(b) };
    source = b.source;
    cursor = b.cursor;
  });
  try {
    client.start();
    await until('3 envelopes', () => Object.keys(envelopes).length === 3, 60_000);
    const details = [];
    for (const [tag, from, to, maxPoints] of [
      ['loss', 100, 180, 1000],
      ['odd/values', 0, 30000, 5000],
      ['odd/values', 12000, 12400, 100],
      ['reward', 29000, 40000, 2000],
      ['missing', 0, 10, 10],
    ] as const) {
      const d = await client.requestDetail({ source, tag, from, to, maxPoints, cursor: cursor! });
      details.push({ ...d, request: 0 });
    }
    const replaced = await client
      .requestDetail({ source, tag: 'loss', from: 0, to: 10, maxPoints: 10, cursor: { ...cursor!, fid: 'other' } })
      .catch((e: Error) => e.message);
    return { envelopes, details, replaced };
  } finally {
    await client.close();
    await relay.stop();
  }
});

// ---- experience details --------------------------------------------------------------------

const bufferJob = once(async () => {
  const job = path.join(tmpDir('conf-detail-'), 'run');
  await pythonAsync([path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), 'write', job, '0', '6']);
  return job;
});

sameAsNode(
  'experience details of TRXP rows: the same decoded experience',
  async (runtime) => {
    const relay = await startRelay(['--job-dir', await bufferJob()], { runtime });
    const client = new RelayClient({ url: relay.url });
    let sql = '';
    client.on('experiences', (m) => (sql = m.source));
    try {
      client.start();
      await until('rows', () => sql, 60_000);
      const out = [];
      for (const id of [1, 7, 24, 999]) out.push(await client.requestExperience(sql, id).catch((e: Error) => ({ error: e.message })));
      return out;
    } finally {
      await client.close();
      await relay.stop();
    }
  },
  { skip: !hasTbx && 'needs tensorboardX in .cache/venv' },
);
