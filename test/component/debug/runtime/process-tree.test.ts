// Ending the runner's process tree promptly: a child that has exited but was never reaped
// (a zombie; orphans stay zombies for good where PID 1 does not reap, as in containers)
// must not count as running, or killTree() waits out its whole grace period for it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'child_process';
import * as fs from 'fs';
import { descendants, isAlive, killTree } from '../../../../src/debug/runtime/process-tree';
import { sleep } from '../../../harness/wait';

test(
  'an exited, unreaped child is not alive, and killTree() ends its parent without waiting for it',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    // A real Python that starts a short child and never waits for it: the child turns zombie.
    const parent = spawn('python3', ['-c', 'import subprocess,sys,time\np=subprocess.Popen(["true"])\nprint(p.pid,flush=True)\ntime.sleep(60)'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    const childPid = Number(await new Promise<string>((r) => parent.stdout.once('data', (b: Buffer) => r(b.toString()))));
    let state = '';
    for (let i = 0; i < 100 && state !== 'Z'; i++) {
      const stat = fs.readFileSync(`/proc/${childPid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z') await sleep(20);
    }
    assert.equal(state, 'Z', 'the child should be a zombie of the sleeping parent');
    assert.ok(descendants(parent.pid!).includes(childPid));
    assert.equal(isAlive(childPid), false, 'a zombie has exited');
    assert.equal(isAlive(parent.pid!), true);
    const exited = new Promise((r) => parent.once('exit', r));
    // With a grace long enough that waiting for the zombie would show: the call returns as
    // soon as the parent is gone (TERM ends a sleeping Python at once).
    let returned = false;
    const killed = killTree(parent.pid!, { graceMs: 60_000 }).then(() => (returned = true));
    await exited;
    await Promise.race([killed, new Promise((r) => setTimeout(r, 5000).unref())]);
    assert.ok(returned, 'killTree() kept waiting for an exited child');
  },
);
