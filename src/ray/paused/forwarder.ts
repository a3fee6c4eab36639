// The debugger's forwarder: a Ray job pinned to a paused worker's node (the relay job's way:
// a sliver of `node:<ip>`), running a stdlib-only Python TCP forwarder that listens on that
// node's loopback and address and passes one debug session through to the worker's debugpy.
// It ends itself when that session ends (the debug session stopped, or the editor closed and
// its connection dropped), when the worker's process is gone, when nobody attaches in time, and
// when the worker's port refuses; the editor stops it on top of that (forward-lifecycle.ts).
//
// debugpy's listener takes the first connection as its one client: a bare TCP probe of the
// worker's port (connect, close) leaves it waiting on that dead client and every later attach
// hangs (seen with debugpy 1.8.22). So nothing here ever probes the worker's port: the forwarder
// connects to it once, when the editor's first bytes arrive, and the editor probes the forwarder
// with a line of its own (`AGENTRL-PROBE <nonce>`) that the forwarder answers and keeps to itself.
import * as net from 'node:net';
import type { SubmitJobRequest } from '../api/api-types';
import { FORWARDER_ROLE, META } from '../api/api-types';
import { shellQuote } from '../submit/entrypoint';

/** The forwarder, run with `python3 -c` (Python ≥ 3.6, standard library only). */
export const FORWARDER_PY = String.raw`
import os, socket, sys, threading, time

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
TAG = args.get("--tag", "")
TARGET = (args["--target-host"], int(args["--target-port"]))
PID = int(args.get("--pid", "0"))
WITHIN = float(args.get("--attach-within", "120"))
done = threading.Event()
state = {"code": 0, "session": False}
lock = threading.Lock()


def say(msg):
    print("agentrl forward: " + msg, flush=True)


def stop(code, msg):
    with lock:
        if done.is_set():
            return
        state["code"] = code
        say(msg)
        done.set()


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pipe(src, dst):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(conn):
    conn.settimeout(10)
    try:
        first = conn.recv(65536)
    except OSError:
        first = b""
    if first.startswith(b"AGENTRL-PROBE "):
        nonce = first[len(b"AGENTRL-PROBE "):].split(b"\n")[0].decode("ascii", "replace")
        try:
            conn.sendall(("AGENTRL-FORWARD %s %s\n" % (nonce, TAG)).encode())
        except OSError:
            pass
        conn.close()
        return
    if not first:
        conn.close()
        return
    with lock:
        busy = state["session"]
        state["session"] = True
    if busy:
        conn.close()
        return
    say("session started")
    try:
        up = socket.create_connection(TARGET, timeout=5)
    except OSError as e:
        conn.close()
        stop(3, "target refused: %s:%d: %s" % (TARGET[0], TARGET[1], e))
        return
    up.settimeout(None)
    conn.settimeout(None)
    up.sendall(first)
    t = threading.Thread(target=pipe, args=(up, conn), daemon=True)
    t.start()
    pipe(conn, up)
    t.join()
    stop(0, "session ended")


def accept(ls):
    while not done.is_set():
        try:
            c, _ = ls.accept()
        except OSError:
            return
        threading.Thread(target=serve, args=(c,), daemon=True).start()


def watch():
    deadline = time.time() + WITHIN
    while not done.wait(1):
        if PID and not alive(PID):
            stop(0, "worker gone: pid %d" % PID)
        elif not state["session"] and time.time() > deadline:
            stop(0, "nobody attached within %d s" % WITHIN)


port = int(args.get("--port", "0"))
listeners = []
for host in [h for h in args.get("--bind", "127.0.0.1").split(",") if h]:
    try:
        s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        s.listen(8)
    except OSError as e:
        say("cannot listen on %s:%d: %s" % (host, port, e))
        continue
    port = s.getsockname()[1]
    listeners.append(s)
    say("listening on %s:%d" % (host, port))
if not listeners:
    say("failed: no address to listen on")
    sys.exit(2)
for ls in listeners:
    threading.Thread(target=accept, args=(ls,), daemon=True).start()
threading.Thread(target=watch, daemon=True).start()
say("ready for %s:%d" % TARGET)
try:
    done.wait()
except KeyboardInterrupt:
    pass
os._exit(state["code"])
`;

export interface ForwarderOptions {
  /** The worker's debugpy address (Ray's node IP and `debugger_port`). */
  targetHost: string;
  targetPort: number;
  /** The resource pinning the job: `node:<ip>` of the worker's node. */
  resource: string;
  /** Addresses to listen on, on that node (those that are not the node's are skipped). */
  bind: string[];
  /** The port to listen on (0: any free one); a fixed one is what an SSH tunnel can be opened to once. */
  port?: number;
  /** The worker's pid, when the forwarder runs on its node: it ends itself once that process is gone. */
  pid?: number;
  /** Seconds the forwarder waits for the editor's session before it ends itself. */
  attachWithinS?: number;
  /** What the forwarder answers a probe with: tells it from anything else on that port. */
  tag: string;
  /** The submission id of the paused task's job (metadata). */
  forJob?: string;
}

/** The `agentrl.role` of a forwarder job's metadata. */
export function forwarderRequest(o: ForwarderOptions): SubmitJobRequest {
  const args = [
    '--target-host',
    o.targetHost,
    '--target-port',
    String(o.targetPort),
    '--bind',
    [...new Set(o.bind)].join(','),
    '--port',
    String(o.port ?? 0),
    '--tag',
    o.tag,
    '--attach-within',
    String(o.attachWithinS ?? 120),
    ...(o.pid ? ['--pid', String(o.pid)] : []),
  ].map(shellQuote);
  const script = shellQuote(FORWARDER_PY);
  return {
    entrypoint: [
      `for py in python3 python; do if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 6))' 2>/dev/null; then exec "$py" -c ${script} ${args.join(' ')}; fi; done`,
      `echo 'agentrl forward: failed: this node has no python >= 3.6' >&2; exit 127`,
    ].join('; '),
    metadata: { [META.tool]: '1', [META.role]: FORWARDER_ROLE, ...(o.forJob ? { [META.forRun]: o.forJob } : {}) },
    entrypoint_num_cpus: 0,
    // A sliver of the resource: enough to pin the forwarder to the node without competing with the run.
    entrypoint_resources: { [o.resource]: 0.001 },
  };
}

export interface ForwarderStarted {
  /** Where it listens, on its node. */
  listening: Array<{ host: string; port: number }>;
}

/** What the forwarder's log says once it is ready, or undefined before that. A forwarder that could
 *  not listen anywhere throws (its job ends right after). */
export function forwarderReady(log: string): ForwarderStarted | undefined {
  if (!/^agentrl forward: ready for /m.test(log)) {
    const failed = /^agentrl forward: failed: (.*)$/m.exec(log);
    if (failed) throw new Error(`the forwarder could not start: ${failed[1]}`);
    return undefined;
  }
  const listening = [...log.matchAll(/^agentrl forward: listening on (.+):(\d+)$/gm)].map((m) => ({ host: m[1], port: Number(m[2]) }));
  return { listening };
}

export type ForwarderEnd =
  | { kind: 'session-ended' }
  | { kind: 'refused'; detail: string }
  | { kind: 'worker-gone'; detail: string }
  | { kind: 'nobody-attached'; detail: string }
  | { kind: 'failed'; detail: string };

/** Why the forwarder ended, from its log (undefined while it runs). */
export function forwarderEnd(log: string): ForwarderEnd | undefined {
  const lines = log.split(/\r?\n/).filter((l) => l.startsWith('agentrl forward: '));
  for (const l of lines.reverse()) {
    const m = l.slice('agentrl forward: '.length);
    if (m === 'session ended') return { kind: 'session-ended' };
    if (m.startsWith('target refused: ')) return { kind: 'refused', detail: m.slice('target refused: '.length) };
    if (m.startsWith('worker gone: ')) return { kind: 'worker-gone', detail: m.slice('worker gone: '.length) };
    if (m.startsWith('nobody attached ')) return { kind: 'nobody-attached', detail: m };
    if (m.startsWith('failed: ')) return { kind: 'failed', detail: m.slice('failed: '.length) };
  }
  return undefined;
}

/** Whether a session went through the forwarder (it only ever takes one). */
export const forwarderAttached = (log: string): boolean => /^agentrl forward: session started$/m.test(log);

/** Whether `host:port` is this very forwarder: it answers the probe line with our nonce and its tag.
 *  Anything else there (nothing, another program, a tunnel to elsewhere) is false. */
export function probeForwarder(host: string, port: number, tag: string, timeoutMs = 3000): Promise<boolean> {
  const nonce = Math.random().toString(36).slice(2);
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    let got = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => s.write(`AGENTRL-PROBE ${nonce}\n`));
    s.on('data', (b: Buffer) => {
      got += b.toString('utf8');
      if (got.includes('\n')) done(got.split('\n')[0].trim() === `AGENTRL-FORWARD ${nonce} ${tag}`);
    });
    s.once('error', () => done(false));
    s.once('close', () => done(false));
  });
}

/** The SSH tunnel that reaches a worker's debugpy from here without any job: through the worker's
 *  node (or any node that reaches it, such as the head node the dashboard's tunnel goes to). */
export function sshCommand(ip: string, port: number): string {
  // The IP comes from Ray's API: quoted for the shell it is pasted into, after `--` so it is never an ssh option.
  return `ssh -N -L ${port}:${ip}:${port} -- ${shellQuote(ip)}`;
}
