// The editor's side of a DAP session with a paused Ray worker's debugpy, over our own
// DebugpyConnection (src/ray/paused/debugpy-connection.ts): requests answered, events awaited,
// and the attach sequence VS Code runs with the configuration the Ray view builds.
import { attachConfiguration, OWN_TYPE } from '../../src/ray/paused/attach-config';
import { connectDebugpy, DebugpyConnection, type DapMessage } from '../../src/ray/paused/debugpy-connection';
import type { PausedTask } from '../../src/ray/paused/paused';

export class DapSession {
  private seq = 1;
  private readonly seen: DapMessage[] = [];
  private readonly waiters: Array<{ match: (m: DapMessage) => boolean; resolve: (m: DapMessage) => void }> = [];

  constructor(readonly conn: DebugpyConnection) {
    conn.onDidSendMessage((m) => {
      this.seen.push(m);
      for (const w of [...this.waiters])
        if (w.match(m)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(m);
        }
    });
  }

  /** The first message (already seen or to come) that matches. */
  next(match: (m: DapMessage) => boolean, what: string, timeoutMs = 60_000): Promise<DapMessage> {
    const had = this.seen.find(match);
    if (had) return Promise.resolve(had);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} in ${timeoutMs} ms; seen: ${this.seen.map((m) => m.command ?? m.event).join(', ')}`)),
        timeoutMs,
      );
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  event(name: string): Promise<DapMessage> {
    return this.next((m) => m.type === 'event' && m.event === name, `${name} event`);
  }

  /** Sends a request; resolves with its response's body (rejects on success: false). */
  send(command: string, args: unknown = {}): Promise<Record<string, unknown>> {
    const seq = this.seq++;
    const answer = this.next((m) => m.type === 'response' && m.request_seq === seq, `${command} response`);
    this.conn.handleMessage({ seq, type: 'request', command, arguments: args });
    return answer.then((m) => (m.success ? ((m.body ?? {}) as Record<string, unknown>) : Promise.reject(new Error(`${command}: ${m.message}`))));
  }
}

export interface DapFrame {
  id: number;
  name: string;
  line: number;
  source?: { path?: string };
}

/** initialize → attach (the Ray view's configuration) → configurationDone, as VS Code does; resolves at the stop. */
export async function attachDebugpy(
  t: PausedTask,
  target: { host: string; port: number },
  localRoot: string,
): Promise<{ s: DapSession; stopped: DapMessage; top: DapFrame }> {
  const s = new DapSession(new DebugpyConnection(await connectDebugpy(target.host, target.port)));
  await s.send('initialize', { adapterID: OWN_TYPE, clientID: 'vscode', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  const config = attachConfiguration(t, target, { type: OWN_TYPE, name: t.name, localRoot });
  // debugpy answers attach only once the configuration is done
  const attached = s.send('attach', config);
  await s.event('initialized');
  // what VS Code sends from debugpy's filter defaults: without "uncaught", a post-mortem does
  // not stop (pydevd's stop_on_unhandled_exception returns when no exception breakpoint is set)
  await s.send('setExceptionBreakpoints', { filters: ['uncaught'] });
  await s.send('configurationDone');
  await attached;
  const stopped = await s.event('stopped');
  const { stackFrames } = (await s.send('stackTrace', { threadId: (stopped.body as { threadId: number }).threadId })) as { stackFrames: DapFrame[] };
  return { s, stopped, top: stackFrames[0] };
}
