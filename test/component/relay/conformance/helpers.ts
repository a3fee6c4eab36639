// The relay conformance suite's shared pieces: a test per relay runtime (the Node relay is the
// reference, its Python twin on Python 3.8 and on the current python3 must stream the same), and
// what two streams are compared as — the output of `agentrl tail --json`, the client users run.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { RELAY_RUNTIMES, RelayRuntime, cliBundle, relaySkipReason, startRelay } from '../../../harness/relay';

export { RELAY_RUNTIMES, relaySkipReason, startRelay, type RelayRuntime };
export const PYTHON_RUNTIMES = RELAY_RUNTIMES.filter((r) => r !== 'node');

/** One test per runtime, skipped (with the reason) where that runtime is not installed. */
export function eachRuntime(name: string, opts: { timeout?: number; skip?: string | false }, fn: (runtime: RelayRuntime) => Promise<void>): void {
  for (const runtime of RELAY_RUNTIMES) {
    test(`${name} [${runtime}]`, { timeout: opts.timeout ?? 120_000, skip: opts.skip || relaySkipReason(runtime) }, () => fn(runtime));
  }
}

/** A value computed once, on first use (the reference stream of a scenario). */
export function once<T>(f: () => T | Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= new Promise<T>((resolve) => resolve(f())));
}

export interface TailRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `agentrl tail URL …` to completion (its own process, as users run it). */
export function tail(url: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<TailRun> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [cliBundle, 'tail', url, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `agentrl tail URL …` left running: what it printed so far, and a way to stop it. */
export interface LiveTail {
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

export function liveTail(url: string, args: string[]): LiveTail {
  const p = spawn(process.execPath, [cliBundle, 'tail', url, ...args], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b) => (stdout += b));
  p.stderr.on('data', (b) => (stderr += b));
  const exited = new Promise<void>((resolve) => p.on('exit', () => resolve()));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
      await exited;
    },
  };
}

export interface Stream {
  /** Points per series (`run/role/tag`), each series in the order it arrived: [step, wall_time, value]. */
  series: Record<string, [number, number, number | string][]>;
  /** Experience rows as the client holds them at the end (an `updated` row replaces its first delivery). */
  rows: Record<string, Record<string, unknown>>;
  /** Rows delivered as new (not `updated`): each row exactly once. */
  firstDeliveries: number;
}

/** What `agentrl tail --json [--experiences]` printed, in the form two relays must agree on. A
 *  batch's points come tag by tag, so the order across tags depends on batch boundaries; within
 *  a series it is the order the source wrote. */
export function streamOf(stdout: string): Stream {
  const s: Stream = { series: {}, rows: {}, firstDeliveries: 0 };
  for (const line of stdout.split('\n').filter(Boolean)) {
    const o = JSON.parse(line) as Record<string, unknown>;
    if ('experience' in o) {
      const r = { ...(o.experience as Record<string, unknown>) };
      const key = `${String(r.run)}/${String(r.table)}#${String(r.id)}`;
      if (!r.updated) s.firstDeliveries++;
      delete r.updated;
      s.rows[key] = r;
      continue;
    }
    const key = `${String(o.run)}/${String(o.role)}/${String(o.tag)}`;
    (s.series[key] ??= []).push([o.step as number, o.wall_time as number, o.value as number | string]);
  }
  return s;
}

/** Starts a relay of `runtime` on `args`, tails it until idle, stops it; the stream it gave. */
export async function streamFrom(runtime: RelayRuntime, args: string[], tailArgs: string[] = ['--experiences'], idleS = 1.5): Promise<Stream> {
  const relay = await startRelay(args, { runtime });
  try {
    const out = await tail(relay.url, ['--json', '--until-idle', String(idleS), ...tailArgs]);
    assert.equal(out.code, 0, `tail of the ${runtime} relay: ${out.stderr}`);
    return streamOf(out.stdout);
  } finally {
    await relay.stop();
  }
}

/** Asserts two streams are the same, naming the first series or row that differs. */
export function assertSameStream(got: Stream, want: Stream, who: string): void {
  assert.deepEqual(Object.keys(got.series).sort(), Object.keys(want.series).sort(), `${who}: the series`);
  for (const k of Object.keys(want.series)) assert.deepEqual(got.series[k], want.series[k], `${who}: series ${k}`);
  assert.deepEqual(Object.keys(got.rows).sort(), Object.keys(want.rows).sort(), `${who}: the experience rows`);
  for (const k of Object.keys(want.rows)) assert.deepEqual(got.rows[k], want.rows[k], `${who}: row ${k}`);
  assert.equal(got.firstDeliveries, Object.keys(got.rows).length, `${who}: every row delivered once as new`);
}

/** Points in a stream. */
export const pointCount = (s: Stream) => Object.values(s.series).reduce((n, l) => n + l.length, 0);
