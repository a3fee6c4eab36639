// The forwarder's Python itself (python3 on this machine, as on a node), between a TCP client and
// a target on loopback: a probe is answered and never reaches the target (debugpy takes the first
// connection as its one client); one session passes bytes both ways and its end ends the
// forwarder; a refusing target, a worker process that exits and nobody attaching end it too.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { test } from 'node:test';
import { FORWARDER_PY, probeForwarder } from '../../../../src/ray/paused/forwarder';
import { until } from '../../../harness/wait';

const skip = spawnSync('python3', ['-c', 'import sys; sys.exit(sys.version_info < (3, 6))']).status === 0 ? undefined : 'python3 >= 3.6 is not on PATH';

interface Run {
  child: ChildProcess;
  out: () => string;
  exit: Promise<number | null>;
  port: () => Promise<number>;
}

function forward(args: Record<string, string | number>): Run {
  const argv = Object.entries(args).flatMap(([k, v]) => [`--${k}`, String(v)]);
  const child = spawn('python3', ['-c', FORWARDER_PY, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const port = async () => {
    await until('the forwarder to be ready', () => /ready for/.test(out), 20_000);
    return Number(/listening on 127\.0\.0\.1:(\d+)/.exec(out)![1]);
  };
  return { child, out: () => out, exit, port };
}

/** A target that counts its connections and answers each chunk with `echo:` + it. */
async function target(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.on('data', (b) => s.write(`echo:${b.toString()}`));
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n, close: () => server.close() };
}

function session(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

function read(s: net.Socket, want: string): Promise<string> {
  let got = '';
  return new Promise((resolve) =>
    s.on('data', (b: Buffer) => {
      got += b.toString();
      if (got.includes(want)) resolve(got);
    }),
  );
}

test(
  'a probe is answered with its tag and never reaches the target; one session passes through and its end ends the forwarder',
  { skip, timeout: 60_000 },
  async () => {
    const t = await target();
    const f = forward({ 'target-host': '127.0.0.1', 'target-port': t.port, bind: '127.0.0.1', port: 0, tag: 'TAG9' });
    try {
      const port = await f.port();
      assert.equal(await probeForwarder('127.0.0.1', port, 'TAG9'), true);
      assert.equal(await probeForwarder('127.0.0.1', port, 'other'), false, 'another tag: not our forwarder');
      assert.equal(t.connections(), 0, 'probes stay with the forwarder');
      const s = await session(port);
      const answer = read(s, 'echo:Content-Length');
      s.write('Content-Length: 2\r\n\r\n{}');
      assert.match(await answer, /^echo:Content-Length: 2/);
      assert.equal(t.connections(), 1);
      s.end();
      assert.equal(await f.exit, 0);
      assert.match(f.out(), /session started\n.*session ended/s);
    } finally {
      f.child.kill();
      t.close();
    }
  },
);

test('a target that refuses: the session is closed at once, the forwarder ends saying so (exit 3)', { skip, timeout: 60_000 }, async () => {
  const t = await target();
  t.close(); // its port now refuses
  const f = forward({ 'target-host': '127.0.0.1', 'target-port': t.port, bind: '127.0.0.1', port: 0, tag: 'T' });
  try {
    const s = await session(await f.port());
    const closed = new Promise<void>((r) => s.once('close', () => r()));
    s.on('error', () => undefined);
    s.write('Content-Length: 2\r\n\r\n{}');
    await closed;
    assert.equal(await f.exit, 3);
    assert.match(f.out(), new RegExp(`target refused: 127\\.0\\.0\\.1:${t.port}`));
  } finally {
    f.child.kill();
  }
});

test('the worker process exits, or nobody attaches in time: the forwarder ends by itself', { skip, timeout: 60_000 }, async () => {
  const worker = spawn('sleep', ['600']);
  const f = forward({ 'target-host': '127.0.0.1', 'target-port': 9, bind: '127.0.0.1', port: 0, tag: 'T', pid: worker.pid! });
  const idle = forward({ 'target-host': '127.0.0.1', 'target-port': 9, bind: '127.0.0.1', port: 0, tag: 'T', 'attach-within': 1 });
  try {
    await f.port();
    worker.kill('SIGKILL');
    assert.equal(await f.exit, 0);
    assert.match(f.out(), new RegExp(`worker gone: pid ${worker.pid}`));
    assert.equal(await idle.exit, 0);
    assert.match(idle.out(), /nobody attached within 1 s/);
  } finally {
    worker.kill('SIGKILL');
    f.child.kill();
    idle.child.kill();
  }
});

test('an address it cannot take is skipped; none at all: it says so and exits 2', { skip, timeout: 60_000 }, async () => {
  const f = forward({ 'target-host': '127.0.0.1', 'target-port': 9, bind: '192.0.2.1', port: 0, tag: 'T' });
  assert.equal(await f.exit, 2);
  assert.match(f.out(), /cannot listen on 192\.0\.2\.1:0: .*\n.*failed: no address to listen on/s);
});
