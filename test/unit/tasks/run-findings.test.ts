// Mode collapse and train/eval divergence: found on runs built to show each, with numbers and
// example rows; nothing on a run built to show none (varied answers, evals rising with the
// reward); a response fingerprint the relays share; the eval tasksets' headline series picked.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { responseHash } from '../../../src/relay/formats/trxp';
import { type EvalSeries, evalSeriesOf } from '../../../src/tasks/run-findings';
import { findEvidence } from '../../../src/tasks/task-findings';
import { TaskTable } from '../../../src/tasks/task-table';

let nextId = 1;
/** 20 tasks × 4 members per version; `at` gives the reward and the response text. */
function run(versions: number, at: (v: number, task: number, m: number) => { reward: number; text: string }): TaskTable {
  const t = new TaskTable();
  const rows: ExperienceRow[] = [];
  for (let v = 1; v <= versions; v++)
    for (let task = 0; task < 20; task++)
      for (let m = 0; m < 4; m++) {
        const p = at(v, task, m);
        rows.push({
          id: nextId++,
          table: 'experience_buffer',
          task_id: String(task),
          run_id: m,
          model_version: v,
          reward: p.reward,
          timestamp: null,
          task_index: task,
          response_tokens: 50,
          response_hash: responseHash(p.text),
        });
      }
  t.add(rows);
  return t;
}

/** An eval series by step. */
const evalSeries = (tag: string, f: (step: number) => number, steps = 12): EvalSeries => ({
  tag,
  points: Array.from({ length: steps }, (_, i) => ({ step: i + 1, value: f(i + 1) })),
});

const rising = (v: number, task: number, m: number) => ((task + m) % 12 < v ? 1 : 0);

test('a healthy run: varied answers and an eval taskset that rises with the reward show nothing', () => {
  const t = run(12, (v, task, m) => ({ reward: rising(v, task, m), text: `step by step for task ${task}: answer ${(task * 7 + m) % 13}` }));
  const { findings, notChecked } = findEvidence(t, [evalSeries('eval/gsm8k/accuracy/mean@4', (s) => 0.2 + s * 0.05)]);
  assert.deepEqual(findings, []);
  assert.deepEqual(
    notChecked.map((n) => n.kind),
    ['reward_part_alone'],
    'the rows have no reward parts',
  );
});

test('the same answer from most tasks late in the run is mode collapse, with its share and rows of different tasks', () => {
  // From version 7 on, 3 of 4 members of every task answer the same, up to case and spacing.
  const t = run(12, (v, task, m) => ({
    reward: rising(v, task, m),
    text: v >= 7 && m < 3 ? (task % 2 ? 'The answer is  \\boxed{1}' : 'the answer is \\boxed{1}\n') : `work for task ${task} member ${m}`,
  }));
  const { findings } = findEvidence(t);
  assert.deepEqual(
    findings.map((f) => f.kind),
    ['mode_collapse'],
  );
  const f = findings[0];
  assert.match(
    f.detail,
    /^the same response \(up to case and spacing\) answered 20 of 20 tasks a version at versions 10–12 \(100 %\), against 0 % at versions 1–3$/,
  );
  assert.equal(f.numbers.share_late, 1);
  const lateFirstId = nextId - 3 * 80;
  assert.ok(f.examples.length >= 3 && f.examples.every((id) => id >= lateFirstId), `example rows of the late versions: ${f.examples.join(', ')}`);
});

test('the training reward rising while every eval taskset stays flat is train/eval divergence; none without eval series', () => {
  const t = run(12, (v, task, m) => ({ reward: rising(v, task, m), text: `task ${task} member ${m} version ${v}` }));
  const flat = [evalSeries('eval/gsm8k/accuracy/mean@4', (s) => 0.4 + (s % 2) * 0.01), evalSeries('eval/math/accuracy/mean@4', () => 0.3)];
  const { findings } = findEvidence(t, flat);
  assert.deepEqual(
    findings.map((f) => f.kind),
    ['train_eval_divergence'],
  );
  assert.match(
    findings[0].detail,
    /^the mean training reward rose 0\.\d\d → 0\.\d\d \(versions 1–3 → 10–12\) while eval\/gsm8k\/accuracy\/mean@4 0\.4\d → 0\.4\d, eval\/math\/accuracy\/mean@4 0\.30 → 0\.30$/,
  );
  assert.ok(findings[0].numbers.reward_late > findings[0].numbers.reward_early);
  assert.ok(findings[0].examples.length > 0);
  const none = findEvidence(t, []);
  assert.deepEqual(none.findings, []);
  assert.deepEqual(none.notChecked.find((n) => n.kind === 'train_eval_divergence')?.why, 'the run has no eval taskset series (eval/…)');
});

test("response fingerprints fold ASCII case and spacing only; each eval taskset's headline series", () => {
  assert.equal(responseHash('  The Answer\n\tis 4 '), responseHash('the answer is 4'));
  assert.notEqual(responseHash('the answer is 4'), responseHash('the answer is 5'));
  assert.match(responseHash('x'), /^[0-9a-f]{16}$/);
  assert.deepEqual(
    evalSeriesOf(['eval/gsm8k/reward/mean', 'eval/gsm8k/accuracy/mean@4', 'eval/math/reward/mean', 'rollout/reward/mean', 'eval/gsm8k/finished_task_count']),
    ['eval/gsm8k/accuracy/mean@4', 'eval/math/reward/mean'],
  );
});
