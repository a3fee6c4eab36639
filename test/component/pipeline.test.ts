// The pipeline analysis on job dirs written by Trinity-RFT 0.5.2's own TensorboardMonitor
// (test/fixtures/pipeline/trinity_monitor.py: tensorboardX event files, and its `Step N: {...}`
// lines in Trinity's log format), from timelines built on Trinity's loops
// (test/harness/pipeline-run.ts). The same verdicts from the event files and from the log lines.
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pipelineReport } from '../../src/pipeline/report';
import { StepTable } from '../../src/pipeline/step-table';
import { readJobScalars } from '../../src/relay/pipeline/job-points';
import { repoRoot, sharedDir } from '../harness/paths';
import { type Logged, type StepPlan, repeat, simulate } from '../harness/pipeline-run';
import { tmpDir } from './relay/helpers';
import { noTrinity } from './relay/trinity-sql-writer';

const python = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const script = path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'trinity_monitor.py');

/** The job dir Trinity's monitor writes for these points. */
function trinityJob(logged: Logged[]): string {
  const job = path.join(tmpDir('pipeline-trinity-'), 'run');
  const pythonpath = execFileSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).trim();
  const input = logged.map((l) => JSON.stringify({ role: l.role, step: l.step, wall_time: l.wallTime, scalars: l.scalars })).join('\n');
  const r = spawnSync(python, [script, job], {
    input,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, PYTHONPATH: pythonpath, RAY_USAGE_STATS_ENABLED: '0' },
  });
  assert.equal(r.status, 0, r.stderr);
  return job;
}

function report(job: string) {
  const t = new StepTable();
  const read = readJobScalars(job, (role, tag, step, wall, value) => t.add(role, tag, step, wall, value));
  return { r: pipelineReport(t), kinds: read.roles.map((x) => `${x.role}:${x.kind}`).sort() };
}

const EXPLORER: StepPlan = { runs: [10, 10.5, 9.8, 10.2], train: 3, sync: 0.5 };
const STRAGGLERS: StepPlan = { runs: [2, 2.2, 1.9, 12], train: 3, sync: 0.5 };
const TRAINER: StepPlan = { runs: [2, 2.1, 1.9, 2], train: 10, sync: 0.5 };

test(
  "Trinity's own monitor: a run that moves from explorer-bound to stragglers, then one held by the trainer; from event files and from log lines",
  { skip: noTrinity, timeout: 300_000 },
  () => {
    for (const [plans, kind, since, segments] of [
      [[...repeat(30, EXPLORER), ...repeat(30, STRAGGLERS)], 'stragglers', 31, 2],
      [repeat(20, TRAINER), 'trainer', 1, 1],
    ] as const) {
      const job = trinityJob(simulate([...plans]));
      const events = report(job);
      assert.deepEqual(events.kinds, ['explorer:tfevents', 'trainer:tfevents']);
      assert.deepEqual([events.r.bottleneck, events.r.since, events.r.segments.length], [kind, since, segments]);
      assert.deepEqual(events.r.missing, []);
      assert.deepEqual(events.r.problems, []);
      // A monitor other than TensorBoard: only the Step lines Trinity's logger wrote.
      fs.rmSync(path.join(job, 'monitor'), { recursive: true });
      assert.match(
        fs.readFileSync(path.join(job, 'log', 'trainer.log'), 'utf8'),
        /^INFO \d\d-\d\d \d\d:\d\d:\d\d \[monitor\.py:\d+\] Step 1: \{'time\/read_experience': /,
      );
      const logs = report(job);
      assert.deepEqual(logs.kinds, ['explorer:log', 'trainer:log']);
      assert.deepEqual([logs.r.bottleneck, logs.r.since, logs.r.segments.length], [kind, since, segments]);
    }
  },
);
