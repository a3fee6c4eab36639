// `agentrl rollout` from the single-file CLI bundle (dist/agentrl.js): the native backbone
// headless against the real model server, then a replay of that run with no model.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { repoRoot } from '../../harness/paths';
import { modelAndWorkspace, skipWithoutModel } from './helpers';

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
    const summary = JSON.parse(r.stdout);
    assert.deepEqual(summary.rewardByTask, { paris: 1, sum: 1 });
    assert.equal(summary.llmCalls, 4);
    const replay = run(['--config', path.join(env.ws, 'toolcall.yaml'), '--cwd', env.ws, '--tasks', 'paris,sum', '--replay', summary.dir, '--json', '--timings']);
    assert.equal(replay.status, 0, replay.stderr);
    // --timings: the end of the run step by step, from the last episode to main() returning.
    assert.match(replay.stderr, /\ntimings: last episode ended \+0\.0 ms · run ended \+[\d.]+ ms · summary written \+[\d.]+ ms · gateway closed \+[\d.]+ ms · runner exited \+[\d.]+ ms · returned \+[\d.]+ ms \(total [\d.]+ ms\)\n/);
    const again = JSON.parse(replay.stdout);
    assert.ok(fs.readFileSync(path.join(summary.dir, 'trajectories.jsonl')).equals(fs.readFileSync(path.join(again.dir, 'trajectories.jsonl'))));
  });

  test('a replay that diverges fails with a diff, and usage errors exit 2', () => {
    const first = run(['--config', path.join(env.ws, 'toolcall.yaml'), '--cwd', env.ws, '--tasks', 'paris', '--model-base-url', env.model.url, '--json']);
    const dir = JSON.parse(first.stdout).dir as string;
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
