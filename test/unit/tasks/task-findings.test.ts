// Evidence of reward hacking from the table: found on runs built to show it, with the numbers and
// example rows; nothing found on a run built to show none; what the rows cannot show is named.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { findEvidence } from '../../../src/tasks/task-findings';
import { TaskTable } from '../../../src/tasks/task-table';

let nextId = 1;
/** 8 tasks × 4 members per version; `at(v, task, member)` gives reward parts and length. */
function run(versions: number, at: (v: number, task: number, m: number) => { accuracy: number; format: number; len: number }): TaskTable {
  const t = new TaskTable();
  const rows: ExperienceRow[] = [];
  for (let v = 1; v <= versions; v++)
    for (let task = 0; task < 8; task++)
      for (let m = 0; m < 4; m++) {
        const p = at(v, task, m);
        rows.push({
          id: nextId++,
          table: 'experience_buffer',
          task_id: String(task),
          run_id: m,
          model_version: v,
          reward: p.accuracy + p.format,
          timestamp: null,
          task_index: task,
          metrics: { accuracy: p.accuracy, format_score: p.format },
          response_tokens: p.len,
        });
      }
  t.add(rows);
  return t;
}

test('a healthy run (accuracy and format rise together, length steady): no finding, and what was not checked is named', () => {
  const t = run(12, (v, task, m) => {
    const right = (task + m) % 12 < v;
    return { accuracy: right ? 1 : 0, format: right ? 0.1 : 0, len: 100 + ((task * 7 + m * 3 + v) % 9) };
  });
  const { findings, notChecked } = findEvidence(t);
  assert.deepEqual(findings, []);
  assert.deepEqual(
    notChecked.map((n) => n.kind),
    ['mode_collapse', 'train_eval_divergence'],
  );
});

test('the format part rising while accuracy stays flat is a finding with its numbers and late example rows', () => {
  const t = run(12, (v, task, m) => ({ accuracy: (task + m) % 2, format: (task * 4 + m) % 12 < v ? 0.1 : 0, len: 100 }));
  const { findings } = findEvidence(t);
  assert.equal(findings.length, 1);
  const f = findings[0];
  assert.equal(f.kind, 'reward_part_alone');
  assert.match(f.detail, /^format_score rose 0\.0\d → 0\.\d\d .*versions 1–3 → 10–12.* while accuracy 0\.50 → 0\.50/);
  assert.ok(f.numbers.format_score_late > f.numbers.format_score_early + 0.05);
  assert.ok(f.examples.length > 0 && f.examples.length <= 5);
  const lateFirstId = 1 + 9 * 32;
  assert.ok(
    f.examples.every((id) => id >= lateFirstId),
    `examples from versions 10–12: ${f.examples.join(',')}`,
  );
});

test('responses growing while the reward rises is a finding; growth without a reward rise is not', () => {
  const grow = run(8, (v, task, m) => ({ accuracy: (task + m) % 8 < v ? 1 : 0, format: 0, len: 100 + v * 40 }));
  const { findings } = findEvidence(grow);
  assert.deepEqual(
    findings.map((f) => f.kind),
    ['length_growth'],
  );
  assert.match(findings[0].detail, /grew 160 → 400 tokens \(\+150 %\) while the mean reward rose 0\.19 → 0\.94 \(versions 1–2 → 7–8\)/);
  const flat = run(8, (v, task, m) => ({ accuracy: (task + m) % 2, format: 0, len: 100 + v * 40 }));
  assert.deepEqual(findEvidence(flat).findings, []);
});

test('one version is not enough to compare: both checks say so instead of finding nothing', () => {
  const t = run(1, () => ({ accuracy: 1, format: 0.1, len: 10 }));
  const { findings, notChecked } = findEvidence(t);
  assert.deepEqual(findings, []);
  assert.ok(notChecked.some((n) => n.kind === 'length_growth' && /two model versions/.test(n.why)));
});
