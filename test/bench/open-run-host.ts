// The extension host's side of the open-run bench, in a process of its own so that its RSS is
// the host's alone (not Playwright's driver nor the bench's bookkeeping): the real RelayClient,
// a persisting MetricsStore (the extension's default memory bound, flushed every 2 s) and the
// ViewController. It talks to the bench over Node's IPC channel — JSON-serialized, as the
// extension host's postMessage to a webview is — and the bench hands its posts to the page.
import * as fs from 'node:fs';
import { fork, type ChildProcess } from 'node:child_process';
import { ENVELOPE_BUCKETS, ENVELOPE_MIN_BYTES } from '../../src/metrics/connect/connections';
import { MetricsStore } from '../../src/metrics/store/store';
import { ViewController } from '../../src/metrics/view/view-controller';
import { silentLogger } from '../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../src/metrics/protocol/ui-strings';
import type { RenderedMessage } from '../../src/metrics/protocol/view-protocol';
import { RelayClient } from '../../src/relay-protocol/client';

/** bench → host */
type ToHost =
  | { type: 'page'; m: unknown }
  | { type: 'connect'; url: string; fullStream: boolean; want: number }
  | { type: 'probe'; id: number; timeoutMs: number }
  | { type: 'stats'; id: number }
  | { type: 'trace' };

/** host → bench */
export type FromHost = { type: 'post'; m: unknown } | { type: 'note'; what: string } | { type: 'received' } | { type: 'reply'; id: number; value: unknown };

export interface HostStats {
  updates: number;
  frames: number;
  points: number;
}

/** The bench's handle on the host process. */
export class BenchHost {
  private readonly proc: ChildProcess;
  private next = 0;
  private readonly waiting = new Map<number, (v: unknown) => void>();
  receivedAt = 0;

  constructor(storeDir: string, onPost: (m: unknown) => void, onNote: (what: string) => void) {
    // OPENRUN_PROFILE=<dir>: the host's CPU profile (node --cpu-prof) lands there when it exits.
    const prof = process.env.OPENRUN_PROFILE;
    const execArgv = prof ? [...process.execArgv, '--cpu-prof', '--cpu-prof-dir', prof, '--cpu-prof-interval', '200'] : process.execArgv;
    this.proc = fork(__filename, ['--host', storeDir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json', execArgv });
    this.proc.on('message', (raw) => {
      const msg = raw as FromHost;
      if (msg.type === 'post') onPost(msg.m);
      else if (msg.type === 'note') onNote(msg.what);
      else if (msg.type === 'received') this.receivedAt ||= Date.now();
      else if (msg.type === 'reply') {
        this.waiting.get(msg.id)?.(msg.value);
        this.waiting.delete(msg.id);
      }
    });
  }

  get pid(): number {
    return this.proc.pid!;
  }

  fromPage(m: unknown): void {
    this.send({ type: 'page', m });
  }

  connect(url: string, fullStream: boolean, want: number): void {
    this.send({ type: 'connect', url, fullStream, want });
  }

  trace(): void {
    this.send({ type: 'trace' });
  }

  probe(timeoutMs: number): Promise<RenderedMessage | undefined> {
    return this.ask({ type: 'probe', timeoutMs }) as Promise<RenderedMessage | undefined>;
  }

  stats(): Promise<HostStats> {
    return this.ask({ type: 'stats' }) as Promise<HostStats>;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null || !this.proc.connected) return resolve();
      this.proc.once('exit', () => resolve());
      this.proc.disconnect();
      setTimeout(() => this.proc.kill('SIGKILL'), 5000).unref();
    });
  }

  private ask(q: { type: 'probe'; timeoutMs: number } | { type: 'stats' }): Promise<unknown> {
    const id = ++this.next;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ ...q, id });
    });
  }

  private send(m: ToHost): void {
    if (this.proc.connected) this.proc.send(m);
  }
}

/** The host process: everything the extension host runs for the metrics view. */
function runHost(storeDir: string): void {
  const send = (m: FromHost) => process.connected && process.send!(m);
  const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
  const store = new MetricsStore({ dir: storeDir, memoryLimitBytes: 256 * 1024 * 1024, log: silentLogger });
  const flush = setInterval(() => store.flush(), 2000);
  let client: RelayClient | undefined;
  // A zoom reads exact points from the relay (not measured here: nothing zooms).
  const readDetail = (_ep: string, q: Parameters<RelayClient['requestDetail']>[0]) => client!.requestDetail(q);
  const ctl = new ViewController(store, { post: (m) => send({ type: 'post', m }), readDetail }, silentLogger, strings);
  let t0 = 0;
  const note = (what: string) => t0 && send({ type: 'note', what: `${Date.now() - t0} ${what}` });
  process.on('message', (raw) => {
    const msg = raw as ToHost;
    switch (msg.type) {
      case 'page':
        return ctl.receive(msg.m);
      case 'trace':
        ctl.tap((m) => note(`post ${m.type}${m.type === 'update' ? ` ${m.frames.length} frames` : ''} (${(JSON.stringify(m).length / 1024).toFixed(0)} KB)`));
        return;
      case 'probe':
        void ctl.probe(msg.timeoutMs).then((value) => send({ type: 'reply', id: msg.id, value }));
        return;
      case 'stats':
        send({
          type: 'reply',
          id: msg.id,
          value: { updates: ctl.sent.updates, frames: ctl.sent.frames, points: client?.stats.points ?? 0 } satisfies HostStats,
        });
        return;
      case 'connect': {
        t0 = Date.now();
        const c = (client = new RelayClient({
          url: msg.url,
          envelope: msg.fullStream ? undefined : { buckets: ENVELOPE_BUCKETS, minBytes: ENVELOPE_MIN_BYTES },
        }));
        let summarized = 0; // points the envelopes stand for
        let told = false;
        const check = () => {
          if (!told && c.stats.points + summarized >= msg.want) {
            told = true;
            send({ type: 'received' });
          }
        };
        c.on('points', (b) => {
          ctl.ingest('bench', b);
          check();
        });
        c.on('envelope', (m) => {
          ctl.ingestEnvelope('bench', m);
          summarized += m.points;
          check();
        });
        c.start();
        return;
      }
    }
  });
  process.on('disconnect', () => {
    clearInterval(flush);
    ctl.dispose();
    void (client?.close() ?? Promise.resolve()).finally(() => {
      store.flush();
      fs.rmSync(storeDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

if (process.argv[2] === '--host') runHost(process.argv[3]);
