// Shared pieces of the relay component tests: real Python writers, the bundled CLI as a child
// process (the relay itself: test/harness/relay.ts), and a client that collects points.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RelayClient, RelayClientOptions } from '../../../src/relay-protocol/client';
import { RelayPoint, pointsOf } from '../../harness/relay-points';
import { repoRoot, venvPython } from '../../harness/paths';
import { cliBundle } from '../../harness/relay';
import { until } from '../../harness/wait';

export { startRelay, type RelayProc } from '../../harness/relay';
export { rng, tmpDir } from '../../unit/relay/helpers';

export const bundle = cliBundle;
export const writers = path.join(repoRoot, 'test', 'fixtures', 'relay', 'writers.py');

function venvHas(mods: string[]): boolean {
  if (!fs.existsSync(venvPython)) return false;
  const r = spawnSync(venvPython, ['-c', `import ${mods.join(', ')}`], { encoding: 'utf8' });
  return r.status === 0;
}
/** tensorboardX in the test venv (scripts/setup.sh python). */
export const hasTbx = venvHas(['tensorboardX']);
export const noTbx = !hasTbx && 'needs tensorboardX in .cache/venv (scripts/setup.sh python)';

/** Runs a Python script of the test venv without blocking the event loop; resolves with stdout. */
export function pythonAsync(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(venvPython, args, { env: { ...process.env, TF_CPP_MIN_LOG_LEVEL: '3' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (b) => (out += b));
    p.stderr.on('data', (b) => (err += b));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`python ${args.join(' ')} failed (${code}): ${err.slice(-2000)}`))));
  });
}

/**
 * A Python SQLite writer script run on `file` for up to `seconds`: it creates `<file>.ready`
 * once its first rows are committed and stops early when `<file>.stop` appears.
 */
export interface SqlWriter {
  /** What the script printed (resolves when it exits). */
  output: Promise<string>;
  finished(): boolean;
  /** Resolves once `<file>.ready` exists; fails if the writer exits first or takes 30 s. */
  ready(): Promise<void>;
  /** Asks the writer to stop and waits for it (never throws). */
  stop(): Promise<void>;
}

export function sqlWriter(script: string, file: string, seconds: number): SqlWriter {
  const output = pythonAsync(['-c', script, file, String(seconds)]);
  let done = false;
  void output.finally(() => (done = true)).catch(() => undefined);
  return {
    output,
    finished: () => done,
    async ready() {
      await until(
        'the writer to start',
        () => {
          if (done) throw new Error('the writer exited before it started');
          return fs.existsSync(`${file}.ready`);
        },
        30_000,
        20,
      );
    },
    async stop() {
      fs.writeFileSync(`${file}.stop`, '');
      await output.catch(() => undefined);
    },
  };
}

export function python(args: string[], opts: { timeout?: number } = {}): string {
  const r = spawnSync(venvPython, args, { encoding: 'utf8', timeout: opts.timeout ?? 120_000, env: { ...process.env, TF_CPP_MIN_LOG_LEVEL: '3' } });
  if (r.status !== 0) throw new Error(`python ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** Runs the bundled CLI to completion. */
export function cli(args: string[], env: Record<string, string> = {}, timeout = 30_000) {
  const r = spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', timeout, env: { PATH: process.env.PATH ?? '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like cli(), without blocking this process's event loop. */
export function cliAsync(args: string[], env: Record<string, string> = {}, timeout = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeout);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Collector {
  client: RelayClient;
  points: RelayPoint[];
  /** Resolves once `pred(points)` holds (rejects after timeoutMs). */
  until(pred: (pts: RelayPoint[]) => boolean, timeoutMs?: number): Promise<void>;
}

export function collect(opts: RelayClientOptions): Collector {
  const client = new RelayClient({ backoff: { initialMs: 20, maxMs: 300 }, ...opts });
  const points: RelayPoint[] = [];
  const waiters: (() => void)[] = [];
  client.on('points', (b) => {
    points.push(...pointsOf(b));
    for (const w of waiters.splice(0)) w();
  });
  client.start();
  return {
    client,
    points,
    until(pred, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`timed out with ${points.length} points`)), timeoutMs);
        const check = () => {
          if (pred(points)) {
            clearTimeout(deadline);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
  };
}

/** "tag@step" keys, for exact comparisons of what was written and what arrived. */
export const keyOf = (p: { tag: string; step: number }) => `${p.tag}@${p.step}`;
