// The open-run bench's peer: TensorBoard 2.21 from .cache/venv (its Rust data server does the
// reading) on the same job dir, on loopback. Measures process start → every tag's full series
// served by its HTTP API (the tag list, then one scalars request per tag, six at a time as a
// browser would, polling until each series is complete) and the peak RSS of tensorboard + its
// data server. Every point kept and served: `--samples_per_plugin scalars=0` ("keep all")
// makes the data server keep every point, but the scalars plugin passes the hint on as its
// `downsample` and asks for 0 points per series, serving `[]` (scalars_plugin.py), so the hint
// is the step count instead, which keeps and serves all 100 000 points of each series.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '../harness/paths';
import { sleep } from '../harness/wait';
import { descendants, sampleRss } from './rss-sampler';

export const tensorboardBin = path.join(repoRoot, '.cache', 'venv', 'bin', 'tensorboard');

export interface TensorBoardResult {
  /** Process start → every tag complete. */
  allTagsMs: number;
  /** Process start → the HTTP server answered. */
  serveMs: number;
  /** Process start → the tag list held every tag. */
  tagsMs: number;
  /** Peak RSS of tensorboard + data server (sum, sampled). */
  rssMb: number;
  requests: number;
  mbServed: number;
}

/** Points in a scalars response (`[[wall, step, value], …]`) without parsing it. */
function countRows(body: string): number {
  let n = 0;
  for (let i = body.indexOf('[', 1); i !== -1; i = body.indexOf('[', i + 1)) n++;
  return n;
}

export async function runTensorBoard(logdir: string, o: { tags: number; steps: number; timeoutMs: number }): Promise<TensorBoardResult> {
  const t0 = Date.now();
  const proc = spawn(tensorboardBin, ['--logdir', logdir, '--samples_per_plugin', `scalars=${o.steps}`, '--port', '0', '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TF_CPP_MIN_LOG_LEVEL: '3' },
  });
  const rss = sampleRss([{ label: 'tensorboard', pids: [], trees: [proc.pid!] }]);
  let log = '';
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`tensorboard did not start: ${log.slice(-500)}`)), o.timeoutMs);
      const onData = (b: Buffer) => {
        log += b.toString();
        const m = /(http:\/\/[^\s]+:\d+\/)/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      proc.stdout.on('data', onData);
      proc.stderr.on('data', onData);
      proc.once('exit', (c) => reject(new Error(`tensorboard exited ${c}: ${log.slice(-500)}`)));
    });
    let serveMs = 0;
    let tagsMs = 0;
    let requests = 0;
    let bytes = 0;
    const deadline = t0 + o.timeoutMs;
    const get = async (p: string): Promise<string | undefined> => {
      requests++;
      try {
        const r = await fetch(base + p.replace(/^\//, ''));
        const body = await r.text();
        bytes += body.length;
        return r.ok ? body : undefined;
      } catch {
        return undefined;
      }
    };
    // The tag list (what the frontend asks first), until every tag is there.
    let pairs: [string, string][] = [];
    while (Date.now() < deadline) {
      const body = await get('/data/plugin/scalars/tags');
      if (body !== undefined && !serveMs) serveMs = Date.now() - t0;
      if (body) {
        const runs = JSON.parse(body) as Record<string, Record<string, unknown>>;
        pairs = Object.entries(runs).flatMap(([run, tags]) => Object.keys(tags).map((t) => [run, t] as [string, string]));
        if (pairs.length >= o.tags) break;
      }
      await sleep(50);
    }
    tagsMs = Date.now() - t0;
    // Each tag's series until it holds every step; six requests in flight, as a browser allows.
    const todo = [...pairs];
    let doneAt = 0;
    const worker = async () => {
      while (todo.length && Date.now() < deadline) {
        const [run, tag] = todo.shift()!;
        const body = await get(`/data/plugin/scalars/scalars?run=${encodeURIComponent(run)}&tag=${encodeURIComponent(tag)}`);
        if (body && countRows(body) >= o.steps) doneAt = Date.now();
        else {
          todo.push([run, tag]);
          await sleep(100);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    if (todo.length) throw new Error(`tensorboard: ${todo.length} tags incomplete after ${o.timeoutMs} ms`);
    const peak = await rss.stop();
    return { allTagsMs: doneAt - t0, serveMs, tagsMs, rssMb: peak.totalMb, requests, mbServed: bytes / 1e6 };
  } finally {
    await rss.stop().catch(() => undefined);
    // The data server is its child (it also exits when tensorboard's pipe to it closes).
    const children = descendants(proc.pid!);
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    for (const c of children) {
      try {
        process.kill(c, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}
