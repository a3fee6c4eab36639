// Ending a process and everything it started. The runner is spawned as the leader of its
// own process group; its descendants are also collected from the process table, so a
// workflow child that left the group is ended too.
import { execFileSync } from 'child_process';
import * as fs from 'fs';

/** Descendant pids of `root` (Linux /proc, else `ps`), deepest last. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  const add = (pid: number, ppid: number) => {
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  };
  try {
    if (process.platform === 'linux') {
      for (const name of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
          const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
          // pid (comm) state ppid ... — comm may contain spaces and parentheses
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          add(Number(name), ppid);
        } catch {
          /* exited meanwhile */
        }
      }
    } else if (process.platform !== 'win32') {
      const out = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
      for (const line of out.split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (pid && ppid) add(pid, ppid);
      }
    }
  } catch {
    /* best effort */
  }
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

/** TERM the group and every descendant, then KILL whatever is left after `graceMs`. */
export async function killTree(pid: number, graceMs = 1500): Promise<void> {
  if (process.platform === 'win32') {
    try {
      execFileSync('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
    return;
  }
  const all = [pid, ...descendants(pid)];
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
  for (let waited = 0; waited < graceMs && all.some(isAlive); waited += 50) await sleep(50);
  if (all.some(isAlive)) signal('SIGKILL');
  for (let waited = 0; waited < 2000 && all.some(isAlive); waited += 50) await sleep(50);
}
