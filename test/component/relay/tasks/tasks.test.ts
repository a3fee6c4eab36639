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
import { freePort } from '../../../harness/vscode-server';
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
  response?: string;
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

/** Task i's reference answer in the taskset (GSM8K's form: a worked solution ending "#### n"). */
const reference = (task: number) => 11 * task + 3;

/** A run of the five tasks whose member m at version v says `say(task, v, m)`, rewarded 1 when `right`; its job dir names a taskset with the reference answers. */
async function referenceRun(at: (task: number, v: number, m: number) => { right: boolean; say: string }): Promise<string> {
  const items = TRAJECTORIES[0].map((_, vi) =>
    Object.keys(TRAJECTORIES)
      .map(Number)
      .flatMap((task, position) =>
        [0, 1, 2, 3].map((m) => {
          const a = at(task, vi + 1, m);
          return { index: task, position, version: vi + 1, rewards: [a.right ? 1 : 0], response: a.say };
        }),
      ),
  );
  const job = await jobWith(items);
  const taskset = path.join(job, '..', 'gsm8k');
  fs.mkdirSync(taskset);
  fs.writeFileSync(
    path.join(taskset, 'train.jsonl'),
    Object.keys(TRAJECTORIES)
      .map((t) => JSON.stringify({ question: `question ${t}`, answer: `${t} × 11 + 3 = ${reference(Number(t))}\n#### ${reference(Number(t))}` }))
      .join('\n'),
  );
  // Trinity's copy of the run's config (StateManager: OmegaConf's YAML in config.json)
  fs.writeFileSync(
    path.join(job, 'config.json'),
    `project: p\nname: run\nbuffer:\n  explorer_input:\n    taskset:\n      name: gsm8k\n      path: ${taskset}\n      split: train\n      format:\n        prompt_key: question\n        response_key: answer\n`,
  );
  return job;
}

test(
  "answers the reward accepts without the task's reference answer (from version 5 on): the finding, with the rows to read; in Chinese with --lang zh-cn",
  { skip: noTrinity, timeout: 300_000 },
  async () => {
    const job = await referenceRun((task, v, m) => {
      const right = m < 2;
      const say = !right ? `the answer is ${reference(task) + 1}` : v >= 5 ? 'The answer is \\boxed{}' : `so it is ${reference(task)}`;
      return { right, say };
    });
    const r = run(['--job-dir', job, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as TasksJson;
    const f = j.findings.find((x) => x.kind === 'reference_answer');
    assert.ok(f, JSON.stringify(j.findings));
    // each task's best member at its last three versions (6–8): all accepted, none with the number
    assert.equal(f.detail, "15 of 15 accepted answers read (reward ≥ 0.50) do not contain their task's reference answer, in 5 tasks");
    const firstRowOfVersion5 = 4 * 20 + 1;
    assert.ok(f.examples.length === 5 && f.examples.every((id) => id >= firstRowOfVersion5), f.examples.join(', '));
    assert.ok(!j.not_checked.some((n) => n.kind === 'reference_answer'));
    const zh = run(['--job-dir', job, '--lang', 'zh-cn']);
    assert.equal(zh.status, 0, zh.stderr);
    assert.match(zh.stdout, /reference_answer: 在读取的 15 个被奖励接受的回答（奖励 ≥ 0\.50）中，有 15 个不含其任务的参考答案，涉及 5 个任务/);
  },
);

test(
  "accepted answers that hold their task's reference answer: no finding, and the reference answers were checked",
  { skip: noTrinity, timeout: 300_000 },
  async () => {
    const job = await referenceRun((task, v, m) => {
      const right = m < Math.min(4, v);
      return { right, say: right ? `${task} × 11 = ${11 * task}, plus 3: ${reference(task)}` : `maybe ${reference(task) * 10}` };
    });
    const r = run(['--job-dir', job, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as TasksJson;
    assert.deepEqual(
      j.findings.map((f) => f.kind),
      [],
    );
    assert.ok(!j.not_checked.some((n) => n.kind === 'reference_answer'), JSON.stringify(j.not_checked));
    const elsewhere = run(['--job-dir', job, '--json', '--taskset', path.join(job, 'nowhere.jsonl'), '--response-key', 'answer']);
    assert.equal(
      (JSON.parse(elsewhere.stdout) as TasksJson).not_checked.find((n) => n.kind === 'reference_answer')?.why,
      `the taskset ${path.join(job, 'nowhere.jsonl')} is not on this node`,
    );
  },
);

test(
  'no buffer, a missing folder, bad options: a clear message and exit 1 or 2',
  { skip: !fs.existsSync(cliBundle) && 'needs the CLI bundle (npm run build)' },
  async () => {
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
    assert.equal(run(['--job-dir', empty, '--lang', 'fr']).status, 2);
    assert.equal(run(['--job-dir', empty, '--response-key', 'answer']).status, 2);
    // A relay URL where nothing listens: said at once, not after the whole wait.
    const url = `ws://127.0.0.1:${await freePort()}`;
    const dead = run([url]);
    assert.equal(dead.status, 1, dead.stderr);
    assert.match(dead.stderr, new RegExp(`cannot reach the relay at ${url} \\(.*; 3 attempts\\)`));
  },
);
