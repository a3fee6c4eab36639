// The runner process as a run starts and ends it: the gateway token never on its command line
// (any local user can read /proc/<pid>/cmdline, and the token lets a request through the
// gateway to the user's model with the user's API key), and a run whose runner sends a very
// large last message and exits at once still completes (its exit is not taken for a crash
// while the message is still being read).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { descendants, isAlive } from '../../../../src/debug/runtime/process-tree';
import { RunnerProcess } from '../../../../src/debug/runtime/runner-process';
import type { RolloutSummary } from '../../../../src/debug/trajectory/trajectory';
import { until } from '../../../harness/wait';
import { runnerDir } from '../helpers';
import { runtime, tempDir } from './doubles';

const linux = process.platform === 'linux' ? false : 'reads /proc';

/** A plain workflow (task, client) -> reward in `dir`/wf.py. */
function workflow(dir: string, body: string): void {
  fs.writeFileSync(path.join(dir, 'wf.py'), `import os, time\n\n\ndef workflow(task, client):\n${body}\n`);
}

function plainRun(dir: string, rows: unknown[]) {
  const rt = runtime(dir, {
    plan: {
      kind: 'trinity',
      cwd: dir,
      tasks: { source: { type: 'inline', rows }, count: 0 },
      repeat: 1,
      workflow: 'wf.workflow',
      workflowArgs: {},
      rewardArgs: {},
      format: {},
      rolloutArgs: {},
      config: {},
    },
    modelName: 'm',
    runnerDir,
    fork: false,
  });
  const ended = new Promise<RolloutSummary | undefined>((r) => rt.once('ended', r));
  return { rt, ended };
}

test('the gateway token is not on the runner command line; the runner still gets it', { skip: linux }, async () => {
  const dir = tempDir();
  const pidFile = path.join(dir, 'pid');
  const go = path.join(dir, 'go');
  workflow(
    dir,
    [
      `    with open(${JSON.stringify(pidFile)}, "w") as f:`,
      '        f.write(str(os.getpid()))',
      `    while not os.path.exists(${JSON.stringify(go)}):`,
      '        time.sleep(0.02)',
      '    return 1.0',
    ].join('\n'),
  );
  const { rt, ended } = plainRun(dir, [{ id: 'a' }]);
  const { apiKey } = await rt.openGateway();
  await rt.start();
  try {
    const pid = Number(await until('the workflow to run', () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8')));
    const processes = [pid, ...descendants(pid)];
    for (const p of processes) {
      const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      assert.ok(!argv.some((a) => a.includes(apiKey)), `the token is on the command line of ${p}: ${argv.join(' ')}`);
    }
  } finally {
    fs.writeFileSync(go, '');
  }
  const summary = await ended;
  assert.equal(summary?.status, 'completed', summary?.message);
  assert.equal(summary?.rewardMean, 1);
});

// The workflow widens the send buffer of the runner's socket (found among the runner's
// objects), so the runner finishes writing and exits while megabytes are still unread: the
// interleaving that made 1 run in 19 fail, every time.
const BIG_REPLY = [
  '    import gc, socket',
  '    for s in [o for o in gc.get_objects() if isinstance(o, socket.socket)]:',
  '        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 * 1024 * 1024)',
  '    return {"reward": 1.0, "response": "x" * (30 * 1024 * 1024)}',
].join('\n');

test('a 30 MB last message followed by an immediate exit completes the run, every time', async () => {
  // The runner writes the episode's end (30 MB of metadata), `done`, and exits: the exit
  // reaches the extension while most of the message is still unread.
  const runs = 3;
  for (let i = 0; i < runs; i++) {
    const dir = tempDir();
    workflow(dir, BIG_REPLY);
    const { rt, ended } = plainRun(dir, [{ id: `big${i}` }]);
    await rt.start();
    const summary = await ended;
    assert.equal(summary?.status, 'completed', `run ${i + 1} of ${runs}: ${summary?.message}`);
    assert.equal(rt.episodes[0]?.status, 'done', `run ${i + 1} of ${runs}: the episode did not end`);
    assert.equal((rt.episodes[0]?.metadata.response as string).length, 30 * 1024 * 1024);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the runner's exit is reported after everything it wrote, however late that is read", async () => {
  // A deterministic interleaving: once the runner is resumed past the reward, this process
  // stops reading until the runner has written its 6 MB end of episode, `done`, and exited.
  const dir = tempDir();
  workflow(dir, BIG_REPLY.replace('30 * 1024 * 1024', '6 * 1024 * 1024'));
  const runner = new RunnerProcess({ python: 'python3', runnerDir, cwd: dir, env: { ...process.env }, token: 'secret-token', debugpy: false });
  const seen: string[] = [];
  const exited = new Promise<void>((r) =>
    runner.once('exit', () => {
      seen.push('exit');
      r();
    }),
  );
  runner.on('message', (m) => {
    seen.push(m.type);
    if (m.type !== 'reward') return;
    runner.send({ type: 'resume', id: m.id });
    const pid = runner.pid!;
    const blocked = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 1000 && isAlive(pid); i++) Atomics.wait(blocked, 0, 0, 20);
  });
  await runner.start();
  runner.send({
    type: 'start',
    plan: {
      kind: 'trinity',
      cwd: dir,
      tasks: { source: { type: 'inline', rows: [{ id: 'a' }] }, count: 0 },
      repeat: 1,
      workflow: 'wf.workflow',
      workflowArgs: {},
      rewardArgs: {},
      format: {},
      rolloutArgs: {},
      model: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'secret-token', name: 'm' },
      config: {},
      clientTimeout: 5,
    },
  });
  await exited;
  await runner.end();
  assert.deepEqual(seen.slice(-3), ['episodeEnd', 'done', 'exit']);
  fs.rmSync(dir, { recursive: true, force: true });
});
