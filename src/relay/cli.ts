// `agentrl relay`: parse options, check the security rules, start the server, print its URL.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { stderrLogger } from '../base/log';
import { isLoopbackHost, tokenProblem } from './serve/auth';
import { boundHeap } from './serve/heap-bounds';
import { RELAY_DEFAULTS, Relay } from './serve/relay';

export const RELAY_USAGE = `Usage: agentrl relay (--job-dir DIR | --logdir DIR) [options]

Streams training metrics and experiences from this node over a WebSocket.

Sources:
  --job-dir DIR        a Trinity job dir: monitor/tensorboard/<role>/ event files,
                       'Step N: {...}' lines of log/<role>.log (roles without event files),
                       the SQL experience buffer (buffer/*.db), serve mode's /metrics
  --logdir DIR         any TensorBoard logdir (recursive; run = sub-directory)
  --run NAME           run name in job-dir mode (default: the job dir's name)

Network and security:
  --host HOST          address to bind (default 127.0.0.1)
  --port PORT          port (default 8765; 0 = any free port)
  --token-file FILE    bearer token clients must send (or env AGENTRL_RELAY_TOKEN);
                       required unless --host is a loopback address
  --tls-cert FILE      certificate (PEM) for wss://, with --tls-key FILE
  --allow-origin URL   a browser origin allowed to connect (repeatable; default none)
  --max-clients N      connection limit (default ${RELAY_DEFAULTS.maxClients})

Tuning:
  --poll-interval MS   polling for filesystems without change events (default ${RELAY_DEFAULTS.pollMs})
  --heartbeat S        seconds between heartbeats (default ${RELAY_DEFAULTS.heartbeatMs / 1000})
  --stall-timeout S    disconnect a client that stops reading for S seconds (default ${RELAY_DEFAULTS.stallMs / 1000})
  --decode-cache-mb MB memory for decoded batches shared by all clients (default ${RELAY_DEFAULTS.decodeCacheBytes / 1048576}; 0 = off)
  --exit-when-idle S   exit (code 0) after S seconds with no client and no new data (default: never)
  --verbose            debug logging
`;

function fail(msg: string): number {
  process.stderr.write(`agentrl relay: ${msg}\n`);
  return 2;
}

/** The most of a token file read: a token is one short word. */
const TOKEN_FILE_BYTES = 4096;

/** Reads a token file: exactly one token (surrounding blank space, line breaks and a UTF-8 BOM
 *  allowed). Only a regular file, only its first TOKEN_FILE_BYTES: `/dev/zero` or a FIFO must
 *  not hang the start (the FIFO is opened without waiting for a writer). */
export function readToken(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  let text: string;
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`token file ${file} is not a regular file`);
    const buf = Buffer.alloc(TOKEN_FILE_BYTES + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    if (n > TOKEN_FILE_BYTES) throw new Error(`token file ${file} must hold exactly one token: it is longer than ${TOKEN_FILE_BYTES} bytes`);
    text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  const token = text.replace(/^\uFEFF/, '').trim();
  const problem = tokenProblem(token);
  if (problem) throw new Error(`token file ${file} must hold exactly one token: ${problem}`);
  return token;
}

/** AGENTRL_RELAY_TOKEN, held to the same rule as a token file; undefined when unset or blank. */
export function envToken(): string | undefined {
  const token = process.env.AGENTRL_RELAY_TOKEN?.trim();
  if (!token) return undefined;
  const problem = tokenProblem(token);
  if (problem) throw new Error(`AGENTRL_RELAY_TOKEN must hold exactly one token: ${problem}`);
  return token;
}

function positiveNumber(v: string | undefined, name: string, dflt: number, min = 0): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got '${v}'`);
  return n;
}

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'job-dir': { type: 'string' },
        logdir: { type: 'string' },
        run: { type: 'string' },
        host: { type: 'string', default: RELAY_DEFAULTS.host },
        port: { type: 'string' },
        'token-file': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'max-clients': { type: 'string' },
        'poll-interval': { type: 'string' },
        heartbeat: { type: 'string' },
        'stall-timeout': { type: 'string' },
        'decode-cache-mb': { type: 'string' },
        'exit-when-idle': { type: 'string' },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n\n${RELAY_USAGE}`);
  }
  if (values.help) {
    process.stdout.write(RELAY_USAGE);
    return 0;
  }
  const jobDir = values['job-dir'];
  const logdir = values.logdir;
  if ((jobDir === undefined) === (logdir === undefined)) return fail(`give exactly one of --job-dir or --logdir\n\n${RELAY_USAGE}`);
  const dir = path.resolve((jobDir ?? logdir) as string);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return fail(`${dir} is not a directory`);
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) return fail('--tls-cert and --tls-key go together');

  let token: string | undefined;
  let port: number, maxClients: number, pollMs: number, heartbeatMs: number, stallMs: number, decodeCacheBytes: number;
  let tls: { cert: Buffer; key: Buffer } | undefined;
  let exitWhenIdleMs: number | undefined;
  try {
    token = values['token-file'] !== undefined ? readToken(values['token-file']) : envToken();
    port = positiveNumber(values.port, '--port', RELAY_DEFAULTS.port);
    if (!Number.isInteger(port) || port > 65535) throw new Error(`--port must be 0..65535, got '${values.port}'`);
    maxClients = positiveNumber(values['max-clients'], '--max-clients', RELAY_DEFAULTS.maxClients, 1);
    pollMs = positiveNumber(values['poll-interval'], '--poll-interval', RELAY_DEFAULTS.pollMs, 10);
    heartbeatMs = positiveNumber(values.heartbeat, '--heartbeat', RELAY_DEFAULTS.heartbeatMs / 1000, 0.05) * 1000;
    stallMs = positiveNumber(values['stall-timeout'], '--stall-timeout', RELAY_DEFAULTS.stallMs / 1000, 0.05) * 1000;
    decodeCacheBytes = Math.floor(positiveNumber(values['decode-cache-mb'], '--decode-cache-mb', RELAY_DEFAULTS.decodeCacheBytes / 1048576) * 1048576);
    if (values['exit-when-idle'] !== undefined) exitWhenIdleMs = positiveNumber(values['exit-when-idle'], '--exit-when-idle', 0, 0.05) * 1000;
    if (values['tls-cert'] && values['tls-key']) tls = { cert: fs.readFileSync(values['tls-cert']), key: fs.readFileSync(values['tls-key']) };
  } catch (e) {
    return fail((e as Error).message);
  }
  const host = values.host;
  if (!isLoopbackHost(host) && token === undefined) {
    return fail(`refusing to listen on ${host} without a token: pass --token-file FILE or set AGENTRL_RELAY_TOKEN (or bind 127.0.0.1 and use an SSH tunnel)`);
  }

  const log = stderrLogger(values.verbose);
  boundHeap();
  const relay = new Relay({
    root: jobDir !== undefined ? { mode: 'job', dir, run: values.run } : { mode: 'logdir', dir },
    host,
    port,
    token,
    tls,
    allowOrigins: values['allow-origin'] ?? [],
    maxClients,
    heartbeatMs,
    pollMs,
    stallMs,
    highWater: RELAY_DEFAULTS.highWater,
    batchBytes: RELAY_DEFAULTS.batchBytes,
    maxClientBytes: RELAY_DEFAULTS.maxClientBytes,
    decodeCacheBytes,
    exitWhenIdleMs,
    onIdle: () => stop(),
    log,
  });
  // A signal, or --exit-when-idle (the relay calls onIdle), ends it with code 0.
  let exit: (code: number) => void = () => undefined;
  function stop(): void {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    void relay.close().then(() => exit(0));
  }
  let url: string;
  try {
    url = await relay.start();
  } catch (e) {
    await relay.close();
    process.stderr.write(`agentrl relay: cannot listen on ${host}:${port}: ${(e as Error).message}\n`);
    return 1;
  }
  const n = relay.sourceList().length;
  process.stdout.write(`agentrl relay: listening on ${url} (${n} source${n === 1 ? '' : 's'} under ${dir}${token ? ', token required' : ''})\n`);
  if (!token) log.warn('relay: no token set: any local user can connect (fine behind an SSH tunnel on a single-user node)');
  return new Promise<number>((resolve) => {
    exit = resolve;
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
