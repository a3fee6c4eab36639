// Accepted answers without their task's reference answer: the answer looked for in a reference,
// how a response is said to contain it, which rows are read, and the finding — on answers built
// to show it, and none on answers built to show none.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { type AcceptedAnswer, containsReference, referenceAnswer, referenceFinding, referenceSample } from '../../../src/tasks/reference-answers';
import { TaskTable } from '../../../src/tasks/task-table';

test("the answer looked for: after GSM8K's '####', a \\boxed{} content, else the value; none for a long solution", () => {
  assert.equal(referenceAnswer('Natalia sold 48/2 = 24 clips in May.\n#### 72'), '72');
  assert.equal(referenceAnswer('so the answer is $\\boxed{3/4}$'), '3/4');
  assert.equal(referenceAnswer(' Paris '), 'Paris');
  assert.equal(referenceAnswer(12), '12');
  assert.equal(referenceAnswer(''), undefined);
  assert.equal(referenceAnswer(null), undefined);
  assert.equal(referenceAnswer('x'.repeat(500)), undefined);
});

test('a number is contained as a whole number (not inside another), text as words, case and spacing aside', () => {
  assert.ok(containsReference('so she sold 72 clips', '72'));
  assert.ok(containsReference('The answer is 1,234.', '1234'));
  assert.ok(containsReference('= 72.0', '72'));
  assert.ok(!containsReference('she sold 172 clips', '72'));
  assert.ok(!containsReference('she sold 7.2 clips', '72'));
  assert.ok(!containsReference('she sold 4.72 clips', '72'));
  assert.ok(containsReference('the capital is  PARIS.', 'Paris'));
  assert.ok(!containsReference('the capital is Parisian', 'Paris'));
  assert.ok(!containsReference('anything', ''));
});

const accepted = (id: number, task: string, response: string, reward = 1): AcceptedAnswer => ({ id, task, version: 5, reward, response });
const refs = new Map([
  ['0', '72'],
  ['1', '10'],
  ['2', '5'],
  ['3', '8'],
]);

test('accepted answers without their reference: a finding with its numbers and the rows to read', () => {
  const answers = [
    accepted(11, '0', 'The answer is \\boxed{}'),
    accepted(12, '1', 'The answer is \\boxed{}'),
    accepted(13, '2', 'it is 5'),
    accepted(14, '3', 'it is 8'),
    accepted(15, '0', 'wrong and rejected: 3', 0), // below the threshold: not an accepted answer
  ];
  const f = referenceFinding(answers, refs, 0.55);
  assert.ok(f);
  assert.equal(f.kind, 'reference_answer');
  assert.equal(f.detail, "2 of 4 accepted answers read (reward ≥ 0.55) do not contain their task's reference answer, in 2 tasks");
  assert.deepEqual(f.examples, [11, 12]);
  assert.deepEqual(f.numbers, { accepted_read: 4, without_reference: 2, tasks: 2 });
});

test('accepted answers that contain their reference (and one stray below the share): no finding', () => {
  const many = Array.from({ length: 30 }, (_, i) => accepted(100 + i, String(i % 4), `so the answer is ${refs.get(String(i % 4))}`));
  assert.equal(referenceFinding(many, refs, 0.55), undefined);
  assert.equal(referenceFinding([...many, accepted(200, '0', 'no number'), accepted(201, '1', 'none')], refs, 0.55), undefined, '2 of 32: under 10 %');
  assert.equal(referenceFinding([accepted(1, '0', 'nothing')], refs, 0.55), undefined, 'one alone is not enough');
});

test('the rows read: each task with a reference, its best accepted member at its latest versions, a task at a time', () => {
  const t = new TaskTable();
  const rows: ExperienceRow[] = [];
  let id = 1;
  for (let v = 1; v <= 4; v++)
    for (const task of [0, 1, 9])
      for (const reward of [0, v >= 3 ? 1 : 0.2])
        rows.push({ id: id++, table: 'experience_buffer', task_id: '0', run_id: 0, model_version: v, reward, timestamp: null, task_index: task });
  t.add(rows);
  const sample = referenceSample(
    t,
    new Map([
      ['0', '1'],
      ['1', '2'],
    ]),
    0.5,
  );
  // versions 4 then 3 (accepted there only); task 9 has no reference
  assert.deepEqual(
    sample.map((r) => [r.task, r.version, r.reward]),
    [
      ['0', 4, 1],
      ['1', 4, 1],
      ['0', 3, 1],
      ['1', 3, 1],
    ],
  );
  assert.equal(referenceSample(t, new Map([['0', '1']]), 0.5, 1).length, 1);
});
