// The re-score's process and limits, with the real runner package (rescore.py) and reward
// functions written to misbehave: one that loops, one that leaves a child behind, one that
// floods stderr, one that prints, one that returns NaN or an infinity, one that exits.
// Runs alone (scripts/test.mjs): its limits are 1 s of real time (a reward function that must
// load within it), which a second file on a 2-core machine can take.
import { afterEach, beforeEach, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runRescoreProcess, type RescoreProcessResult } from '../../../src/debug/rescore-process';
import { until } from '../../harness/wait';
import { runnerDir } from './helpers';

const REWARD = `import os, subprocess, sys, time

def score(response, **kwargs):
    if response == "loop":
        while True:
            pass
    if response == "fork":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open(os.path.join(os.environ["PIDS"], str(child.pid)), "w").close()
        return 0.5
    if response == "fork-and-loop":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open(os.path.join(os.environ["PIDS"], str(child.pid)), "w").close()
        time.sleep(600)
    if response == "flood":
        chunk = "x" * 65536
        for _ in range(400):
            sys.stderr.write(chunk)
        return 0.25
    if response == "print":
        print("a reward that prints [1, 2")
        return 0.75
    if response == "nan":
        return float("nan")
    if response == "inf":
        return {"accuracy": float("inf"), "format": 1.0}
    if response == "exit":
        os._exit(3)
    return 1.0
`;

/** A process that runs (a zombie waiting for a reaper counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('runRescoreProcess', { timeout: 120_000 }, () => {
  let ws: string;
  let pids: string;
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-rescore-limits-'));
    pids = path.join(ws, 'pids');
    fs.mkdirSync(pids);
    fs.writeFileSync(path.join(ws, 'rw.py'), REWARD);
  });
  afterEach(() => {
    for (const p of fs.readdirSync(pids)) if (alive(Number(p))) process.kill(Number(p), 'SIGKILL');
    fs.rmSync(ws, { recursive: true, force: true });
  });

  function rescore(responses: string[], limits?: { itemSeconds?: number; runSeconds?: number }, reward = 'rw.score'): Promise<RescoreProcessResult> {
    return runRescoreProcess({
      python: 'python3',
      cwd: ws,
      env: { ...process.env, PYTHONPATH: runnerDir, PIDS: pids },
      request: { cwd: ws, reward, rewardArgs: {}, format: {}, items: responses.map((response) => ({ task: {}, response })) },
      limits,
    });
  }

  const childPids = (): number[] => fs.readdirSync(pids).map(Number);

  test('a looping reward fails its own episode at the time limit; the next ones are scored', async () => {
    const r = await rescore(['ok', 'loop', 'ok'], { itemSeconds: 1 });
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.scores.map((s) => s.reward),
      [1, null, 1],
    );
    assert.match(r.scores[1].error ?? '', /RewardTimeout: the reward took longer than 1 s on this episode \(the limit is --reward-timeout\)/);
  });

  test('a child the reward leaves behind is killed with the group, once the runner is done', async () => {
    const r = await rescore(['fork', 'ok']);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.scores.map((s) => s.reward),
      [0.5, 1],
    );
    const [pid] = childPids();
    assert.ok(pid, 'the reward recorded its child');
    await until('the child to be gone with the re-score', () => !alive(pid));
  });

  test('a reward stopped at its time limit takes its child along', async () => {
    const r = await rescore(['fork-and-loop', 'ok'], { itemSeconds: 2 });
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.scores[0].reward, null);
    assert.match(r.scores[0].error ?? '', /RewardTimeout/);
    assert.equal(r.scores[1].reward, 1);
    const [pid] = childPids();
    assert.ok(pid);
    await until('the child of the stopped reward to be gone', () => !alive(pid));
  });

  test('the run has its own time limit: a clear failure, not a partial comparison', async () => {
    const r = await rescore(['ok', 'loop', 'loop', 'loop'], { itemSeconds: 60, runSeconds: 5 });
    assert.equal(r.ok, false);
    assert.match(
      !r.ok ? r.message : '',
      /the re-score stopped at its time limit of 5 s for the run, with 1 of 4 episodes scored \(the limit is --rescore-timeout\)/,
    );
  });

  test("a reward module that loads slower than an episode's limit is not refused: its loading counts against the run's limit", async () => {
    fs.writeFileSync(path.join(ws, 'slow_load.py'), 'import time\ntime.sleep(2)\nfrom rw import score  # noqa: E402,F401\n');
    const r = await rescore(['ok'], { itemSeconds: 1, runSeconds: 60 }, 'slow_load.score');
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.scores.map((s) => s.reward),
      [1],
    );
  });

  test("a reward module that never loads stops at the run's limit, said as such", async () => {
    fs.writeFileSync(path.join(ws, 'hang_load.py'), 'import time\nwhile True:\n    time.sleep(1)\n');
    const r = await rescore(['ok'], { itemSeconds: 60, runSeconds: 3 }, 'hang_load.score');
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /the reward function did not load within the run's time limit of 3 s \(the limit is --rescore-timeout\)/);
  });

  test('26 MB of stderr, printing to stdout: the results are intact', async () => {
    const r = await rescore(['flood', 'print', 'ok']);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.scores.map((s) => [s.reward, s.error]),
      [
        [0.25, undefined],
        [0.75, undefined],
        [1, undefined],
      ],
    );
  });

  test('NaN and infinite rewards are named in that episode, the others are scored', async () => {
    const r = await rescore(['nan', 'inf', 'ok']);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.equal(r.scores[0].reward, null);
    assert.match(r.scores[0].error ?? '', /the reward is NaN/);
    assert.equal(r.scores[1].reward, null);
    assert.match(r.scores[1].error ?? '', /the reward is Infinity \(accuracy is Infinity\)/);
    assert.deepEqual(r.scores[1].parts, { format: 1 });
    assert.equal(r.scores[2].reward, 1);
  });

  test('a reward that ends the process fails its episode, saying so; the rest goes on', async () => {
    const r = await rescore(['ok', 'exit', 'ok']);
    assert.ok(r.ok, !r.ok ? r.message : '');
    assert.deepEqual(
      r.scores.map((s) => s.reward),
      [1, null, 1],
    );
    assert.match(r.scores[1].error ?? '', /the re-score process exited with code 3 while scoring this episode/);
  });

  test('a flooding reward that cannot load: the message is the end of its stderr, bounded', async () => {
    fs.writeFileSync(path.join(ws, 'rw.py'), 'import sys\nsys.stderr.write("y" * 5_000_000)\nraise ImportError("no such thing")\n');
    const r = await rescore(['ok']);
    assert.equal(r.ok, false);
    const message = !r.ok ? r.message : '';
    assert.match(message, /cannot load the reward function 'rw\.score'/);
    assert.ok(message.length < 20_000, `a bounded message, not ${message.length} chars`);
  });
});
