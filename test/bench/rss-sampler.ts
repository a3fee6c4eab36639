// Peak resident memory of a set of processes, sampled every 50 ms from a process of its own: the
// bench's own event loop is busy ingesting while it measures, and a sampler on it would miss
// the peaks. Also CPU time per process. Linux only (/proc). Used by the open-run bench for both
// sides of the comparison.
import * as fs from 'node:fs';
import { spawn } from 'node:child_process';

export interface RssTargets {
  /** These processes alone. */
  pids: number[];
  /** These processes and all their descendants. */
  trees: number[];
}

export interface RssPeak {
  /** Peak of the sum over all targets (MB). */
  totalMb: number;
  /** Peak of each target group (MB), by label. */
  partsMb: Record<string, number>;
  samples: number;
}

/** VmRSS of one process in MB (0 once it has exited). */
export function rssMbOf(pid: number): number {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, clock ticks of 1/100 s); 0 once gone. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // fields 14 (utime) and 15 (stime)
  } catch {
    return 0;
  }
}

/** Every process below `root` (children, grandchildren…), from /proc/<pid>/stat. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(d));
      children.set(ppid, list);
    } catch {
      /* exited */
    }
  }
  const out: number[] = [];
  const todo = [root];
  while (todo.length) {
    for (const c of children.get(todo.pop()!) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

/** Descendants of `root` whose command line contains `needle` (e.g. Chromium's `--type=renderer`). */
export function descendantsMatching(root: number, needle: string): number[] {
  return descendants(root).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}

/** Of `pids`, the one that used the most CPU while `work` ran (e.g. the renderer of a page made busy). */
export async function busiest(pids: number[], work: () => Promise<unknown>): Promise<number> {
  const before = pids.map(cpuSecondsOf);
  await work();
  let best = pids[0];
  let most = -1;
  pids.forEach((p, i) => {
    const d = cpuSecondsOf(p) - before[i];
    if (d > most) {
      most = d;
      best = p;
    }
  });
  return best;
}

// The sampler is a process of its own (not a worker thread): a thread's isolate would count in
// the bench process's RSS, which stands for the extension host's.
const SAMPLER = `
const { rssMbOf, descendants } = require(process.argv[1]);
const groups = JSON.parse(process.argv[2]);
const peak = { total: 0, parts: {}, samples: 0 };
let treeCache = {}; let treeAt = 0;
const timer = setInterval(() => {
  const now = Date.now();
  if (now - treeAt > 500) { treeAt = now; treeCache = {}; for (const g of groups) for (const r of g.trees) treeCache[r] = descendants(r); }
  let total = 0;
  for (const g of groups) {
    let sum = 0;
    for (const p of g.pids) sum += rssMbOf(p);
    for (const r of g.trees) { sum += rssMbOf(r); for (const c of treeCache[r] || []) sum += rssMbOf(c); }
    peak.parts[g.label] = Math.max(peak.parts[g.label] || 0, sum);
    total += sum;
  }
  peak.total = Math.max(peak.total, total);
  peak.samples++;
}, 50);
process.on('message', () => { clearInterval(timer); process.send(peak, () => process.exit(0)); });
process.on('disconnect', () => process.exit(0));
`;

/** Starts sampling; `stop()` resolves with the peaks. */
export function sampleRss(groups: (RssTargets & { label: string })[]): { stop(): Promise<RssPeak> } {
  const p = spawn(process.execPath, ['-e', SAMPLER, __filename, JSON.stringify(groups)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let result: Promise<RssPeak> | undefined;
  return {
    // Idempotent: a second call gets the same peaks.
    stop: () =>
      (result ??= new Promise((resolve, reject) => {
        p.once('message', (m) => {
          const r = m as { total: number; parts: Record<string, number>; samples: number };
          resolve({ totalMb: r.total, partsMb: r.parts, samples: r.samples });
        });
        p.once('error', reject);
        p.once('exit', (code) => reject(new Error(`the RSS sampler exited (${code}) before it reported`)));
        p.send('stop');
      })),
  };
}
