// `agentrl rollout` from the single-file CLI bundle (dist/agentrl.js): the native backbone
// headless against the real model server, then a replay of that run with no model; and a
// workflow that forks leaves nothing behind when the run ends.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import { isAlive } from '../../../src/debug/runtime/process-tree';
import { repoRoot } from '../../harness/paths';
import { modelAndWorkspace, skipWithoutModel, toolcallWorkspace } from './helpers';
import type { RolloutSummary } from '../../../src/debug/trajectory/trajectory';
import { parseJson } from '../../harness/json';

/** What `--json` prints: the run's summary and its folder. */
type RunJson = RolloutSummary & { dir: string };

const cli = path.join(repoRoot, 'dist', 'agentrl.js');
const skip = skipWithoutModel || (!fs.existsSync(cli) && 'dist/agentrl.js not built');

const run = (args: string[]) => spawnSync(process.execPath, [cli, 'rollout', ...args], { encoding: 'utf8', timeout: 120000 });

describe('agentrl rollout', { skip }, () => {
  const env = modelAndWorkspace();

  test('runs the tasks headless, prints rewards and a JSON summary, then replays the run with no model', () => {
    const r = run(['--config', path.join(env.ws, 'toolcall.yaml'), '--cwd', env.ws, '--tasks', 'paris,sum', '--model-base-url', env.model.url, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /Tparis#R0: reward 1\n/);
    assert.match(r.stderr, /Tsum#R0: reward 1\n/);
    const summary = parseJson<RunJson>(r.stdout);
    assert.deepEqual(summary.rewardByTask, { paris: 1, sum: 1 });
    assert.equal(summary.llmCalls, 4);
    const replay = run([
      '--config',
      path.join(env.ws, 'toolcall.yaml'),
      '--cwd',
      env.ws,
      '--tasks',
      'paris,sum',
      '--replay',
      summary.dir,
      '--json',
      '--timings',
    ]);
    assert.equal(replay.status, 0, replay.stderr);
    // --timings: the end of the run step by step, from the last episode to main() returning.
    assert.match(
      replay.stderr,
      /\ntimings: last episode ended \+0\.0 ms · run ended \+[\d.]+ ms · summary written \+[\d.]+ ms · gateway closed \+[\d.]+ ms · runner exited \+[\d.]+ ms · returned \+[\d.]+ ms \(total [\d.]+ ms\)\n/,
    );
    const again = parseJson<RunJson>(replay.stdout);
    assert.ok(fs.readFileSync(path.join(summary.dir, 'trajectories.jsonl')).equals(fs.readFileSync(path.join(again.dir, 'trajectories.jsonl'))));
  });

  test('a replay that diverges fails with a diff, and usage errors exit 2', () => {
    const first = run(['--config', path.join(env.ws, 'toolcall.yaml'), '--cwd', env.ws, '--tasks', 'paris', '--model-base-url', env.model.url, '--json']);
    const dir = parseJson<RunJson>(first.stdout).dir;
    const tasks = path.join(env.ws, 'data', 'train.jsonl');
    fs.writeFileSync(tasks, fs.readFileSync(tasks, 'utf8').replace('What is the weather in Paris?', 'Weather in Paris, please.'));
    const r = run(['--config', path.join(env.ws, 'toolcall.yaml'), '--cwd', env.ws, '--tasks', 'paris', '--replay', dir]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /Replay diverged: Tparis#R0 call #1 differs from the recorded request/);
    assert.match(r.stderr, /- {7}"content": "What is the weather in Paris\?",\n\+ {7}"content": "Weather in Paris, please\.",/);
    assert.equal(run(['--tasks', '2']).status, 2);
    assert.equal(run(['--config', 'x.yaml', '--repeat', 'many']).status, 2);
  });
});

// The forked copy of the runner starts a child of its own in a new session (as a daemon
// would), and both sleep on: neither is the runner's child once the runner exits.
const FORKING = `
import os, subprocess, time


def workflow(task, client):
    pids = os.path.join(os.getcwd(), "pids.txt")
    if os.fork() == 0:
        child = subprocess.Popen(["sleep", "300"], start_new_session=True)
        with open(pids + ".tmp", "w") as f:
            f.write("%d %d" % (os.getpid(), child.pid))
        os.rename(pids + ".tmp", pids)
        time.sleep(300)
        os._exit(0)
    while not os.path.exists(pids):
        time.sleep(0.02)
    return 1.0
`;

describe(
  'agentrl rollout with a workflow that forks',
  { skip: (!fs.existsSync(cli) && 'dist/agentrl.js not built') || (process.platform !== 'linux' && 'reads /proc') },
  () => {
    test('the run ends its whole process tree, the forked copy and its daemon child too, and the CLI exits', async () => {
      const ws = toolcallWorkspace();
      fs.writeFileSync(path.join(ws, 'forking.py'), FORKING);
      const cfg = fs
        .readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8')
        .replace('workflow.ToolCallWorkflow', 'forking.workflow')
        .replace(/^ *default_reward_fn_type: .*\n/m, '');
      fs.writeFileSync(path.join(ws, 'forking.yaml'), cfg);
      const child = spawn(
        process.execPath,
        [
          cli,
          'rollout',
          '--config',
          path.join(ws, 'forking.yaml'),
          '--cwd',
          ws,
          '--tasks',
          'paris',
          '--model-base-url',
          'http://127.0.0.1:9/v1',
          '--model',
          'm',
          '--no-record',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (out += b.toString()));
      // A hang guard, not a timing check: on failure the CLI never exits by itself.
      const exit = await new Promise<number | string | null>((resolve) => {
        const guard = setTimeout(() => resolve('still running after 90 s'), 90_000);
        child.once('exit', (code) => {
          clearTimeout(guard);
          resolve(code);
        });
      });
      const pids = fs.existsSync(path.join(ws, 'pids.txt')) ? fs.readFileSync(path.join(ws, 'pids.txt'), 'utf8').split(' ').map(Number) : [];
      const alive = pids.filter(isAlive);
      // Whatever the outcome, leave nothing behind.
      for (const p of [...alive, ...(child.exitCode === null ? [child.pid!] : [])]) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      fs.rmSync(ws, { recursive: true, force: true });
      assert.match(out, /Rollout completed: 1 episode\(s\)/);
      assert.equal(pids.length, 2, `the workflow's processes were not seen: ${out}`);
      assert.deepEqual(alive, [], 'processes the workflow started outlived the run');
      assert.equal(exit, 0, out);
    });
  },
);

// MOCK model endpoint (a real server cannot be made to send an endless or huge reply on cue).
describe('agentrl rollout against a model that sends an endless or oversized reply', { skip: !fs.existsSync(cli) && 'dist/agentrl.js not built' }, () => {
  test('each call ends with the reply-size error, the run folder gets its summary, and the CLI exits by itself', async () => {
    const ws = toolcallWorkspace();
    const big = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'z'.repeat(3 * 1024 * 1024) }, finish_reason: 'stop' }] });
    let calls = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      if (req.url?.endsWith('/models')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"m"}]}');
      calls++;
      if (calls % 2) return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) }).end(big);
      // An endless chunked body for as long as the client reads.
      res.writeHead(200, { 'content-type': 'application/json' });
      const pump = () => {
        while (!res.destroyed && res.write('x'.repeat(64 * 1024)));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    try {
      const child = spawn(
        process.execPath,
        [
          cli,
          'rollout',
          '--config',
          path.join(ws, 'toolcall.yaml'),
          '--cwd',
          ws,
          '--tasks',
          'paris,sum',
          '--python',
          'python3',
          '--model-base-url',
          url,
          '--model',
          'm',
          '--max-reply-mb',
          '1',
          '--json',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let err = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      // A hang guard, not a timing check: on failure the CLI never exits by itself.
      const exit = await new Promise<number | string | null>((resolve) => {
        const guard = setTimeout(() => resolve('still running after 90 s'), 90_000);
        child.once('exit', (code, signal) => {
          clearTimeout(guard);
          resolve(code ?? signal);
        });
      });
      if (child.exitCode === null) child.kill('SIGKILL');
      assert.ok(typeof exit === 'number', `${exit}\n${err}`);
      assert.doesNotMatch(err, /RangeError|Invalid string length|\n\s+at /);
      assert.match(err, /sent a reply over 1 MB \(model\.maxReplyMB\): the call was cut off there/);
      assert.ok(calls >= 2, `both hostile replies were sent (${calls} calls)`);
      const summary = parseJson<RunJson>(out);
      assert.ok(fs.existsSync(path.join(summary.dir, 'summary.json')), 'the run folder has its summary');
      assert.equal(summary.episodes, 2);
    } finally {
      server.closeAllConnections();
      server.close();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
