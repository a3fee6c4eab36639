// Ending a process and everything it started. The runner is spawned as the leader of its own
// session (and process group); what it started is found three ways, because a process can
// leave each: its descendants in the process table (lost once their parent exits), the
// members of its session (left by setsid(), as a daemon does), and the processes carrying
// the run's marker in their environment (kept across both, unless a process clears it).
import { execFileSync } from 'child_process';
import * as fs from 'fs';

interface ProcEntry {
  pid: number;
  ppid: number;
  sid: number;
}

/** pid, parent and session of each process (Linux /proc, else `ps`). */
function processTable(): ProcEntry[] {
  const out: ProcEntry[] = [];
  try {
    if (process.platform === 'linux') {
      for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
          const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
          // pid (comm) state ppid pgrp session ... — comm may contain spaces and parentheses
          const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          out.push({ pid: Number(name), ppid: Number(f[1]), sid: Number(f[3]) });
        } catch {
          /* exited meanwhile */
        }
      }
    } else if (process.platform !== 'win32') {
      const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,sess='], { encoding: 'utf8' });
      for (const line of text.split('\n')) {
        const [pid, ppid, sid] = line.trim().split(/\s+/).map(Number);
        if (pid && ppid) out.push({ pid, ppid, sid: sid || 0 });
      }
    }
  } catch {
    /* best effort */
  }
  return out;
}

/** Descendant pids of `root` (Linux /proc, else `ps`), deepest last. */
export function descendants(root: number, table = processTable()): number[] {
  const children = new Map<number, number[]>();
  for (const p of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Linux: processes whose environment holds `marker` (`NAME=value`); only the user's own
 *  processes can be read, which are the only ones a run can start. */
function carrying(marker: string): number[] {
  if (process.platform !== 'linux') return [];
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(marker)) out.push(Number(name));
    } catch {
      /* gone, or another user's */
    }
  }
  return out;
}

/** `root`, its descendants, the members of the session it leads and, with a `marker`, every
 *  process carrying it. */
function treeOf(root: number, marker?: string): number[] {
  const table = processTable();
  const all = new Set([root, ...descendants(root, table), ...table.filter((p) => p.sid === root).map((p) => p.pid)]);
  if (marker) for (const p of carrying(marker)) all.add(p);
  all.delete(process.pid);
  return [...all];
}

/** Running (a zombie is not: it has exited and only waits to be reaped, which may never
 *  happen where PID 1 does not reap orphans, as in many containers; waiting for it to go
 *  away kept `agentrl rollout` idle for the whole kill grace after the run had ended). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') return false;
    } catch {
      return false; // gone between the two looks
    }
  }
  return true;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface KillOptions {
  /** How long TERM has before KILL (default 1.5 s). */
  graceMs?: number;
  /** `NAME=value` in the environment of every process of the run (see treeOf). */
  marker?: string;
}

/** TERM the group and every process of the tree (treeOf), then KILL whatever is left after
 *  the grace. Works when `pid` itself has exited already: its session and marker remain. */
export async function killTree(pid: number, opts: KillOptions = {}): Promise<void> {
  if (process.platform === 'win32') {
    try {
      execFileSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
    return;
  }
  const all = treeOf(pid, opts.marker);
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* not a group leader, or gone */
    }
    for (const p of all) {
      try {
        process.kill(p, sig);
      } catch {
        /* gone */
      }
    }
  };
  signal('SIGCONT'); // a stopped (SIGSTOP) process cannot act on TERM
  signal('SIGTERM');
  const grace = opts.graceMs ?? 1500;
  for (let waited = 0; waited < grace && all.some(isAlive); waited += 50) await sleep(50);
  if (all.some(isAlive)) signal('SIGKILL');
  for (let waited = 0; waited < 2000 && all.some(isAlive); waited += 50) await sleep(50);
}
