// `agentrl ray paused` against a STAND-IN dashboard of a Ray 2.8 cluster (an HTTP server on
// loopback answering the few State API calls the way Ray 2.8 does: workers without
// num_paused_threads): it says which Ray, since which Ray it works and what to do, exit 3.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';

function standIn(rayVersion: string, worker: Record<string, unknown>): Promise<http.Server> {
  const state = (rows: unknown[]) => JSON.stringify({ result: true, msg: '', data: { result: { total: rows.length, result: rows } } });
  const server = http.createServer((req, res) => {
    const p = (req.url ?? '').split('?')[0];
    res.setHeader('content-type', 'application/json');
    if (p === '/api/version') return res.end(JSON.stringify({ version: '4', ray_version: rayVersion, ray_commit: 'x', session_name: 's' }));
    if (p === '/api/v0/workers') return res.end(state([worker]));
    if (p === '/api/v0/actors' || p === '/api/v0/tasks') return res.end(state([]));
    if (p === '/api/jobs/') return res.end('[]');
    res.statusCode = 404;
    res.end('{}');
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

/** `agentrl ray paused --dashboard URL` in a process of its own (the compiled module's main). */
async function paused(url: string): Promise<{ code: number | null; stderr: string }> {
  const cli = path.join(__dirname, '..', '..', '..', 'src', 'ray', 'cli.js');
  const child = spawn(process.execPath, [
    '-e',
    `require(${JSON.stringify(cli)}).main(process.argv.slice(1)).then((c) => process.exit(c))`,
    'paused',
    '--dashboard',
    url,
  ]);
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stderr };
}

test('a Ray whose workers lack num_paused_threads: which Ray, since which, what to do; exit 3', async () => {
  const old = await standIn('2.8.1', { worker_id: 'w1', is_alive: true, worker_type: 'WORKER', ip: '127.0.0.1', pid: 1 });
  try {
    const r = await paused(`http://127.0.0.1:${(old.address() as AddressInfo).port}`);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /Ray 2\.8\.1 on this cluster does not report paused workers .*from Ray 2\.9\.0 on\)\. Upgrade Ray on the cluster/);
  } finally {
    old.close();
  }
});

test('a Ray that has the field but nothing paused: exit 0, no complaint', async () => {
  const now = await standIn('2.58.0', {
    worker_id: 'w1',
    is_alive: true,
    worker_type: 'WORKER',
    ip: '127.0.0.1',
    pid: 1,
    num_paused_threads: null,
    debugger_port: null,
  });
  try {
    const r = await paused(`http://127.0.0.1:${(now.address() as AddressInfo).port}`);
    assert.deepEqual(r, { code: 0, stderr: '' });
  } finally {
    now.close();
  }
});
