// Edit = fork with the real Python runner and a workflow that calls an
// auxiliary judge model (test/fixtures/judge): the run stops on the workflow's calls and
// on the judge's, an edit stays in force for the episode's later calls, and when the run
// ends the original branch (the episode without the edit) is run and saved beside it,
// with both branches' transcripts for a side-by-side diff.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { buildPlan } from '../../../../src/debug/runtime/plan';
import { editableRequest } from '../../../../src/debug/runtime/edit-copies';
import type { LlmTurn } from '../../../../src/debug/runtime/episode';
import type { StopInfo } from '../../../../src/debug/runtime/rollout-runtime';
import { listForks, readEpisodes } from '../../../../src/debug/results/run-store';
import { ReplayUpstream } from '../../../../src/debug/gateway/replay';
import { FORK_EDITED_TRANSCRIPT, FORK_ORIGINAL_TRANSCRIPT, RECORDING_FILE, type RecordedCall } from '../../../../src/debug/trajectory/trajectory';
import { repoRoot } from '../../../harness/paths';
import { runnerDir } from '../helpers';
import { EchoModelDouble, runtime, tempDir } from './doubles';

const ws = tempDir();
fs.cpSync(path.join(repoRoot, 'test', 'fixtures', 'judge'), ws, { recursive: true });
after(() => fs.rmSync(ws, { recursive: true, force: true }));

test("an edited episode forks: both branches are saved, with the judge's calls, and can be compared", async () => {
  const config = path.join(ws, 'judge.yaml');
  const planned = buildPlan({ config, cwd: ws }, 'trinity', parse(fs.readFileSync(config, 'utf8')), config);
  assert.deepEqual(planned.auxiliaryNames, ['tiny-judge']);
  assert.equal(planned.plan!.concurrency, 1, 'runner_per_model 1 x engine_num 1');
  const main = new EchoModelDouble('main');
  const judge = new EchoModelDouble('judge');
  const rt = runtime(ws, {
    plan: planned.plan!,
    upstream: main,
    auxiliary: [{ upstream: judge, name: 'tiny-judge' }],
    python: 'python3',
    runnerDir,
    env: { ...process.env },
    modelName: 'tiny',
  });
  rt.setBreakpoints([{ kind: 'llm' }]);
  const stops: string[] = [];
  rt.on('stopped', (s: StopInfo) => {
    const t = s.turn as LlmTurn;
    stops.push(`${t.role ?? 'model'}#${t.index}`);
    if (!t.role && t.index === 0) editableRequest(t).messages[1].content = 'What is 4?';
    if (!t.role && t.index === 1) assert.equal(t.sent?.messages[1].content, 'What is 4?', 'call #2 carries the edit');
    rt.resume('continue', s.episode);
  });
  const ended = new Promise((r) => rt.once('ended', r));
  await rt.start();
  await ended;
  assert.deepEqual(stops, ['model#0', 'model#1', 'auxiliary/0#0'], "stops on the workflow's calls and on the judge's");
  const [edited] = readEpisodes(rt.runDir!);
  assert.equal(edited.reward, 1, 'the judge saw the edited answer');
  const rec = fs
    .readFileSync(path.join(rt.runDir!, RECORDING_FILE), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RecordedCall);
  assert.deepEqual(
    rec.map((r) => `${r.role ?? 'model'}#${r.index}`),
    ['model#0', 'model#1', 'auxiliary/0#0'],
  );
  assert.equal(judge.seen.length, 2, 'the judge answered once per branch');
  assert.equal(judge.seen[0].body.model, 'tiny-judge');

  const forks = listForks(rt.runDir!);
  assert.equal(forks.length, 1);
  const f = forks[0];
  assert.deepEqual(
    { episode: f.info.episode, at: f.info.at, status: f.info.status, edited: f.info.rewardEdited, original: f.info.rewardOriginal },
    { episode: 'Ttwo#R0', at: { index: 0 }, status: 'completed', edited: 1, original: 0 },
  );
  const [original] = readEpisodes(f.dir);
  assert.equal(original.reward, 0);
  // The original branch asked the model the unedited question at the fork point.
  const firstOfBranch = original.turns[0];
  assert.equal(firstOfBranch.type === 'llm' && firstOfBranch.response?.choices[0].message.content, 'main: What is 2+2?');
  const left = fs.readFileSync(path.join(f.dir, FORK_ORIGINAL_TRANSCRIPT), 'utf8');
  const right = fs.readFileSync(path.join(f.dir, FORK_EDITED_TRANSCRIPT), 'utf8');
  assert.match(left, /What is 2\+2\?/);
  assert.doesNotMatch(left, /What is 4\?/);
  assert.match(right, /LLM call #1 \(edited\)[^\n]*\n\n\*\*system\*\*\n\n> Answer in one short sentence\\\.\n\n\*\*user\*\*\n\n> What is 4\?/);
  assert.match(right, /auxiliary\/0 LLM call #1/);
  assert.match(left, /### Reward: 0/);
  assert.match(right, /### Reward: 1/);
  // The branch is a run of its own: replayable.
  assert.equal(new ReplayUpstream(f.dir).size, 3);
});
