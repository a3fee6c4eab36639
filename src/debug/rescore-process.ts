// The process around a re-score (`python -m agentrl_runner --rescore`, the runner's rescore.py):
// the reward function is the workspace's own code, so it may hang, flood stderr, start children
// or exit. Each episode gets a time limit and the whole run another; the runner starts in its
// own process group, which is killed when an episode overruns, when the run does, and after the
// runner exits (no child of the reward outlives the re-score); stderr is kept to its last bytes;
// a result line is bounded. An episode that overruns or ends the process is that episode's
// error, and the re-score goes on with the next one in a fresh process. Pure: no vscode.
import { spawn, type ChildProcess } from 'child_process';

interface RescoreLimits {
  /** Seconds one episode's reward may take (the module's loading counts against the run's limit: a reward model may take minutes to load). */
  itemSeconds: number;
  /** Seconds the whole re-score of one run may take. */
  runSeconds: number;
}

export const DEFAULT_RESCORE_LIMITS: RescoreLimits = { itemSeconds: 60, runSeconds: 1800 };

/** The last bytes of stderr kept for a message. */
const STDERR_TAIL_BYTES = 16 * 1024;
/** The largest result line (one episode's reward, its parts and value) read. */
const MAX_LINE_BYTES = 1024 * 1024;
const MAX_ERROR_CHARS = 2000;

interface RescoreScore {
  reward: number | null;
  parts: Record<string, number>;
  error?: string;
}

export type RescoreProcessResult = { ok: true; scores: RescoreScore[] } | { ok: false; message: string };

interface RescoreProcessOptions {
  python: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The request rescore.py reads; `items` is split across processes when one is stopped. */
  request: { items: readonly unknown[] } & Record<string, unknown>;
  limits?: Partial<RescoreLimits>;
}

/** Keeps the last `cap` bytes written, and how many there were in all. */
class Tail {
  private chunks: Buffer[] = [];
  private held = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  push(b: Buffer): void {
    this.total += b.length;
    this.chunks.push(b);
    this.held += b.length;
    while (this.held - this.chunks[0].length >= this.cap) this.held -= this.chunks.shift()!.length;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    const kept = all
      .subarray(Math.max(0, all.length - this.cap))
      .toString('utf8')
      .trim();
    return this.total > this.cap ? `… (${this.total} bytes of stderr, the last ${this.cap} kept)\n${kept}` : kept;
  }
}

/** SIGKILL to the runner's whole process group (its own pid: it was started detached). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill('SIGKILL');
    else process.kill(-child.pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** While a runner lives, this process ending (exit, SIGINT, SIGTERM) takes its group along:
 *  a detached group is not reached by the terminal's Ctrl-C. */
function killWithParent(child: ChildProcess): () => void {
  const onExit = (): void => killGroup(child);
  const onSignal = (signal: NodeJS.Signals): void => {
    killGroup(child);
    release();
    if (!process.listenerCount(signal)) process.kill(process.pid, signal); // then as if unhandled
  };
  process.on('exit', onExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const release = (): void => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return release;
}

const seconds = (s: number): string => `${s} s`;

function clip(s: string): string {
  return s.length > MAX_ERROR_CHARS ? `${s.slice(0, MAX_ERROR_CHARS)}…` : s;
}

/** One result line as the comparison reads it: a finite reward or null, finite parts. */
function scoreOf(line: string): RescoreScore {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { reward: null, parts: {}, error: `the re-score printed a result that is not JSON: ${clip(line.slice(0, 200))}` };
  }
  const o = (v && typeof v === 'object' ? v : {}) as { reward?: unknown; parts?: unknown; error?: unknown };
  const parts = Object.fromEntries(
    Object.entries(o.parts && typeof o.parts === 'object' ? o.parts : {}).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
    ),
  );
  const reward = typeof o.reward === 'number' && Number.isFinite(o.reward) ? o.reward : null;
  return { reward, parts, ...(typeof o.error === 'string' ? { error: clip(o.error) } : {}) };
}

type Attempt =
  | { kind: 'done' }
  /** The reward module did not load: the whole re-score fails with this message. */
  | { kind: 'unloaded'; message: string }
  /** The episode being scored was stopped (or ended the process): its error; go on after it. */
  | { kind: 'item'; error: string }
  | { kind: 'run-timeout' };

/** Re-scores `request.items`, one result per item, within the limits. */
export async function runRescoreProcess(o: RescoreProcessOptions): Promise<RescoreProcessResult> {
  const limits: RescoreLimits = {
    itemSeconds: o.limits?.itemSeconds ?? DEFAULT_RESCORE_LIMITS.itemSeconds,
    runSeconds: o.limits?.runSeconds ?? DEFAULT_RESCORE_LIMITS.runSeconds,
  };
  const items = o.request.items;
  const scores: RescoreScore[] = [];
  const runDeadline = Date.now() + limits.runSeconds * 1000;
  while (scores.length < items.length) {
    let attempt: Attempt;
    try {
      attempt = await runOnce(o, limits, runDeadline, scores);
    } catch (e) {
      return { ok: false, message: `Could not start ${o.python}: ${(e as Error).message}` };
    }
    if (attempt.kind === 'unloaded') return { ok: false, message: attempt.message };
    if (attempt.kind === 'run-timeout')
      return {
        ok: false,
        message: `the re-score stopped at its time limit of ${seconds(limits.runSeconds)} for the run, with ${scores.length} of ${items.length} episodes scored (the limit is --rescore-timeout)`,
      };
    if (attempt.kind === 'item') scores.push({ reward: null, parts: {}, error: attempt.error });
  }
  return { ok: true, scores };
}

/** One runner process over the items not scored yet; pushes each result onto `scores`. */
function runOnce(o: RescoreProcessOptions, limits: RescoreLimits, runDeadline: number, scores: RescoreScore[]): Promise<Attempt> {
  const request = { ...o.request, items: o.request.items.slice(scores.length) };
  return new Promise((resolve, reject) => {
    const child = spawn(o.python, ['-m', 'agentrl_runner', '--rescore'], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const release = killWithParent(child);
    const stderr = new Tail(STDERR_TAIL_BYTES);
    let ready = false;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let outcome: Attempt | undefined;
    let itemTimer: NodeJS.Timeout | undefined;
    const runTimer = setTimeout(
      () =>
        stop(
          ready
            ? { kind: 'run-timeout' }
            : {
                kind: 'unloaded',
                message: `the reward function did not load within the run's time limit of ${seconds(limits.runSeconds)} (the limit is --rescore-timeout)`,
              },
        ),
      Math.max(0, runDeadline - Date.now()),
    );
    const current = (): number => scores.length;
    const armItem = (): void => {
      clearTimeout(itemTimer);
      itemTimer = setTimeout(
        () =>
          stop({
            kind: 'item',
            error: `RewardTimeout: the reward took longer than ${seconds(limits.itemSeconds)} on this episode (the limit is --reward-timeout); it was stopped with its child processes`,
          }),
        limits.itemSeconds * 1000,
      );
    };
    /** Ends this attempt: the group is killed, the first outcome wins. */
    function stop(a: Attempt): void {
      outcome ??= a;
      killGroup(child);
    }
    const onLine = (line: string): void => {
      if (outcome) return;
      if (!ready) {
        ready = line.trim() === '{"ready": true}';
        if (ready) return armItem();
      }
      if (current() >= o.request.items.length) return;
      scores.push(scoreOf(line));
      if (current() === o.request.items.length) clearTimeout(itemTimer);
      else armItem();
    };
    child.stdout.on('data', (d: Buffer) => {
      let start = 0;
      for (let nl = d.indexOf(10); nl >= 0; nl = d.indexOf(10, start)) {
        pending.push(d.subarray(start, nl));
        onLine(Buffer.concat(pending).toString('utf8'));
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      if (start < d.length) {
        pending.push(d.subarray(start));
        pendingBytes += d.length - start;
        if (pendingBytes > MAX_LINE_BYTES) {
          pending = [];
          stop({ kind: 'item', error: `the reward's result for this episode is larger than ${MAX_LINE_BYTES} bytes` });
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    // The first episode's clock starts once the reward module has loaded (its "ready" line).
    child.on('error', (e) => {
      clearTimeout(itemTimer);
      clearTimeout(runTimer);
      release();
      reject(e);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(itemTimer);
      clearTimeout(runTimer);
      killGroup(child); // what the reward started and left behind
      release();
      // The results already in the pipe are read before deciding.
      const settle = (): void => {
        const tail = stderr.text();
        if (outcome) return resolve(outcome);
        if (current() >= o.request.items.length) return resolve({ kind: 'done' });
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        if (!ready) return resolve({ kind: 'unloaded', message: tail || `the re-score ${how} before its reward function loaded` });
        resolve({ kind: 'item', error: clip(`the re-score process ${how} while scoring this episode${tail ? `: ${tail}` : ''}`) });
      };
      if (child.stdout.readableEnded) settle();
      else {
        child.stdout.once('end', settle);
        // A process that escaped the group (setsid) and holds stdout: what was read is all.
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          settle();
        }, 2000).unref();
      }
    });
    child.stdin.on('error', () => undefined); // a child that exits early: its exit code tells
    child.stdin.end(JSON.stringify(request));
  });
}
