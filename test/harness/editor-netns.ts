// The editor on another machine, for Ray tests: a child process in a network namespace of its
// own (only `lo`, `unshare -n`) that reaches the cluster's namespace only through an SSH-tunnel
// STAND-IN — chosen ports of its loopback are carried over Unix sockets (the file system is
// shared between namespaces) to the same ports of the cluster namespace's loopback, as
// `ssh -L 8265:127.0.0.1:8265 head-node` does. Everything else of the cluster (the workers'
// debugpy ports, the raylets) is out of its reach, as from a laptop.
//
// Run as a script (in the child), it reaches a paused worker the way the Attach action does
// (src/ray/paused/forward.ts), optionally sends DAP `initialize` — or attaches as VS Code does,
// reads where the task stopped and continues it — through what it got, lets the forwarder go
// and prints one JSON line per step for the test to read.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { RayClient } from '../../src/ray/api/client';
import { reachWorker, type ReachTarget } from '../../src/ray/paused/forward';
import type { PausedTask } from '../../src/ray/paused/paused';
import { attachDebugpy } from './dap-session';

const sock = (dir: string, port: number) => path.join(dir, `p${port}.sock`);

function pipeBoth(a: net.Socket, b: net.Socket): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
}

/** The cluster's side of the tunnel: each port's Unix socket leads to 127.0.0.1:port here. */
export async function tunnelEnds(dir: string, ports: number[]): Promise<{ close(): void }> {
  const servers = await Promise.all(
    ports.map(
      (port) =>
        new Promise<net.Server>((resolve) => {
          const s = net.createServer((c) => pipeBoth(c, net.connect({ host: '127.0.0.1', port })));
          s.listen(sock(dir, port), () => resolve(s));
        }),
    ),
  );
  return { close: () => servers.forEach((s) => s.close()) };
}

/** The editor's side: 127.0.0.1:port here leads to the port's Unix socket. */
export async function tunnelStarts(dir: string, ports: number[]): Promise<{ close(): void }> {
  const servers = await Promise.all(
    ports.map(
      (port) =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer((c) => pipeBoth(c, net.connect(sock(dir, port))));
          s.once('error', reject);
          s.listen(port, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  return { close: () => servers.forEach((s) => s.close()) };
}

export interface EditorCase {
  dir: string;
  /** Ports the tunnel carries (the dashboard's, and the forwarder's fixed one if any). */
  ports: number[];
  dashboard: string;
  /** The paused task (all of it for `dap: 'attach'`: the attach configuration is built from it). */
  worker: ReachTarget | PausedTask;
  forwardPort?: number;
  /** Through what reachWorker gave: send DAP `initialize` and wait for the answer, or attach,
   *  read the top frame, continue and disconnect (the task goes on). */
  dap?: 'initialize' | 'attach';
  /** The workspace folder the attach configuration maps the job's working_dir to. */
  localRoot?: string;
}

export type EditorLine = Record<string, unknown> & { step: string };

/** Runs `c` in a fresh network namespace; the JSON lines it printed, and its exit code. */
export function runEditorSide(c: EditorCase, timeoutMs = 180_000): Promise<{ lines: EditorLine[]; code: number | null; stderr: string }> {
  const child = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$0" "$1" "$2"', process.execPath, __filename, JSON.stringify(c)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as EditorLine);
      resolve({ lines, code, stderr: err });
    }),
  );
}

/** DAP `initialize` over host:port: the response (events before it skipped), or why not. */
function dapInitialize(host: string, port: number, timeoutMs = 60_000): Promise<{ success?: boolean; command?: string; error?: string }> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const done = (r: { success?: boolean; command?: string; error?: string }) => {
      clearTimeout(timer);
      s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ error: 'no answer' }), timeoutMs);
    s.once('connect', () => {
      const body = JSON.stringify({
        seq: 1,
        type: 'request',
        command: 'initialize',
        arguments: { adapterID: 'debugpy', clientID: 'agentrl-test', pathFormat: 'path' },
      });
      s.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    s.on('data', (b: Buffer) => {
      buf = Buffer.concat([buf, b]);
      for (;;) {
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
        if (buf.length < head + 4 + len) return;
        const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString()) as { type: string; command?: string; success?: boolean };
        buf = buf.subarray(head + 4 + len);
        if (msg.type === 'response') return done({ success: msg.success, command: msg.command });
      }
    });
    s.once('error', (e) => done({ error: e.message }));
    s.once('close', () => done({ error: 'closed' }));
  });
}

async function main(c: EditorCase): Promise<void> {
  const say = (l: EditorLine) => process.stdout.write(`${JSON.stringify(l)}\n`);
  await tunnelStarts(c.dir, c.ports);
  // The worker's own port from here: refused in this namespace (nothing listens on it here), so
  // this never reaches the worker's debugpy.
  say({
    step: 'direct',
    reachable: await new Promise<boolean>((r) =>
      net
        .connect({ host: '127.0.0.1', port: c.worker.port })
        .once('connect', () => r(true))
        .once('error', () => r(false)),
    ),
  });
  const client = new RayClient({ url: c.dashboard, timeoutMs: 30_000 });
  const r = await reachWorker(client, c.worker, { forwardPort: c.forwardPort, startTimeoutMs: 120_000 });
  say({ step: 'reach', via: r.via, host: r.host, port: r.port, ssh: r.ssh, job: r.forwarderJob, notes: r.notes });
  if (c.dap === 'initialize' && r.via === 'forwarder') say({ step: 'initialize', ...(await dapInitialize(r.host, r.port)) });
  if (c.dap === 'attach' && r.via === 'forwarder') {
    const a = await attachDebugpy(c.worker as PausedTask, { host: r.host, port: r.port }, c.localRoot ?? '');
    const threadId = (a.stopped.body as { threadId: number }).threadId;
    say({ step: 'attached', reason: (a.stopped.body as { reason: string }).reason, path: a.top.source?.path, line: a.top.line, name: a.top.name });
    await a.s.send('continue', { threadId });
    await a.s.send('disconnect', { terminateDebuggee: false }).catch(() => undefined);
    a.s.conn.dispose();
    say({ step: 'continued' });
  }
  if (r.forwarderJob) {
    const job = r.forwarderJob;
    // the session's end ends the forwarder by itself; then dispose() forgets its record
    let status = '';
    for (let i = 0; i < 120 && !['FAILED', 'STOPPED', 'SUCCEEDED'].includes(status); i++) {
      status = (await client.job(job)).status;
      if (!['FAILED', 'STOPPED', 'SUCCEEDED'].includes(status)) await new Promise((res) => setTimeout(res, 500));
    }
    say({ step: 'ended', status, log: await client.logs(job) });
    await r.dispose();
    say({ step: 'disposed', left: (await client.jobs()).some((j) => j.submission_id === job) });
  }
}

if (require.main === module) {
  const c = JSON.parse(process.argv[2]) as EditorCase;
  fs.mkdirSync(c.dir, { recursive: true });
  main(c).then(
    () => process.exit(0),
    (e: Error) => {
      process.stderr.write(`${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}
