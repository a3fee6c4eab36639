// `agentrl tasks` on buffers written by Trinity-RFT 0.5.2's own SQL storage with known per-task
// reward trajectories: each task found by its taskset row (info["task_index"]) although the
// scheduler gives it another batch position (eid.task) at every step, classed right, the
// findings right, and a clear exit on what it cannot read.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { TasksJson } from '../../../../src/tasks/task-report';
import { cliBundle } from '../../../harness/relay';
import { tmpDir } from '../helpers';
import { TrinitySqlWriter, noTrinity } from '../trinity-sql-writer';

const run = (args: string[]) =>
  spawnSync(process.execPath, [cliBundle, 'tasks', ...args], { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env.PATH ?? '' } });

/** Mean reward per version of each task (4 members: k of 4 rewarded 1). */
const TRAJECTORIES: Record<number, number[]> = {
  0: [0, 0.25, 0.25, 0.75, 1, 1, 1, 1], // learned at version 4
  1: [0, 0, 0, 0, 0, 0, 0, 0], // never
  2: [1, 1, 1, 1, 1, 1, 1, 1], // always
  3: [0.25, 1, 1, 0.75, 0.25, 0, 0, 0], // forgotten after version 4
  4: [1, 0, 1, 0, 1, 0, 1, 0.25], // flaky
};

interface Item {
  index: number;
  position: number;
  version: number;
  rewards: number[];
  metrics?: Record<string, number>;
  length?: number;
}

/** Every version's batch, the tasks in another order each time (so eid.task moves). */
function batches(at: (task: number, version: number, member: number) => { reward: number; length?: number; metrics?: Record<string, number> }): Item[][] {
  const tasks = Object.keys(TRAJECTORIES).map(Number);
  return TRAJECTORIES[0].map((_, vi) => {
    const order = tasks.map((_, i) => tasks[(i + vi) % tasks.length]);
    return order.flatMap((task, position) => {
      const ms = [0, 1, 2, 3].map((m) => at(task, vi + 1, m));
      // one item per member, so lengths and parts may differ within a group
      return ms.map((m) => ({ index: task, position, version: vi + 1, rewards: [m.reward], length: m.length, metrics: m.metrics }));
    });
  });
}

async function jobWith(items: Item[][]): Promise<string> {
  const job = path.join(tmpDir('cli-tasks-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const py = new TrinitySqlWriter();
  try {
    await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
    for (const batch of items) await py.call({ op: 'tasks', items: batch });
  } finally {
    await py.close();
  }
  return job;
}

test(
  "each task by its taskset row across steps, classed from Trinity's own rows: learned at 4, never, always, forgotten, flaky; a healthy run shows no finding",
  { skip: noTrinity, timeout: 300_000 },
  async () => {
    const job = await jobWith(
      batches((task, v, m) => {
        const right = m < Math.round(TRAJECTORIES[task][v - 1] * 4);
        return { reward: right ? 1.1 : 0, length: 40 + m, metrics: { accuracy: right ? 1 : 0, format_score: right ? 0.1 : 0 } };
      }),
    );
    const r = run(['--job-dir', job, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as TasksJson;
    assert.equal(j.identity, 'task_index');
    assert.deepEqual(j.versions, [1, 8]);
    assert.equal(j.experiences, 5 * 8 * 4);
    assert.deepEqual(
      j.tasks.map((t) => [t.task, t.class, t.first_solved]),
      [
        ['0', 'learned', 4],
        ['1', 'never', null],
        ['2', 'always', 1],
        ['3', 'forgotten', 2],
        ['4', 'flaky', 1],
      ],
    );
    assert.deepEqual(j.counts, { learned: 1, never: 1, always: 1, forgotten: 1, flaky: 1 });
    assert.deepEqual(
      Object.values(j.tasks[0].rewards).map((x) => +x.toFixed(6)),
      [0, 0.275, 0.275, 0.825, 1.1, 1.1, 1.1, 1.1],
    );
    assert.deepEqual(j.findings, [], 'accuracy and format rise together, lengths steady: nothing to show');
    assert.deepEqual(j.skipped, { no_task: 0, no_version: 0, no_reward: 0 });
    const text = run(['--job-dir', job, '--sort', 'gain']);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^5 tasks over model versions 1–8 · solved at mean reward ≥ 0\.55 · 1 learned · 1 never · 1 always · 1 forgotten · 1 flaky/);
    assert.match(
      text.stdout,
      /No evidence of reward hacking found in what was checked\.\n {2}not checked: train eval divergence \(the run has no eval taskset series/,
    );
    assert.ok(text.stdout.indexOf('\n0 ') < text.stdout.indexOf('\n3 '), 'sorted by gain: the learned task first, the forgotten one last');
  },
);

test(
  'a run whose reward rises through its format part alone while responses grow: both findings, with rows to read',
  { skip: noTrinity, timeout: 300_000 },
  async () => {
    const job = await jobWith(
      batches((task, v, m) => {
        const right = (task + m) % 2 === 0;
        const formatted = m < Math.min(4, v - 1);
        return {
          reward: (right ? 1 : 0) + (formatted ? 0.1 : 0),
          length: 30 + v * 20,
          metrics: { accuracy: right ? 1 : 0, format_score: formatted ? 0.1 : 0 },
        };
      }),
    );
    const r = run(['--job-dir', job, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as TasksJson;
    assert.deepEqual(
      j.findings.map((f) => f.kind),
      ['reward_part_alone', 'length_growth'],
    );
    assert.match(j.findings[0].detail, /^format_score rose 0\.0\d → 0\.10 \(versions 1–2 → 7–8\) while accuracy 0\.50 → 0\.50/);
    const lastVersionFirstRow = 6 * 20 + 1;
    for (const f of j.findings)
      assert.ok(
        f.examples.length > 0 && f.examples.every((id) => id >= lastVersionFirstRow),
        `${f.kind}: rows of the late versions (${f.examples.join(', ')})`,
      );
  },
);

test(
  'no buffer, a missing folder, bad options: a clear message and exit 1 or 2',
  { skip: !fs.existsSync(cliBundle) && 'needs the CLI bundle (npm run build)' },
  () => {
    const empty = tmpDir('cli-tasks-empty-');
    const none = run(['--job-dir', empty]);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /no experience buffer \(SQL or JSON lines\) there/);
    assert.equal(run(['--job-dir', path.join(empty, 'nope')]).status, 1);
    const bad = run(['--job-dir', empty, '--solved', '2']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--solved must be a number in \(0, 1\], got '2'/);
    assert.equal(run(['--job-dir', empty, '--sort', 'reward']).status, 2);
    assert.equal(run(['--job-dir', empty, '--window', '0']).status, 2);
  },
);
