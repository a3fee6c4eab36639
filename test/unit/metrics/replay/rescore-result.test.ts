// The re-score's JSON as the CLI prints it, checked; counts kept as printed, computed when
// absent; the step range the user types.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { bufferRescoreJson } from '../../../../src/eval/stats/advantages';
import { changed, flipped, parseRescore, parseStepRange } from '../../../../src/metrics/replay/rescore-result';

const row = (id: number, recorded: number, now: number, ar: number, an: number) => ({
  id,
  step: 4,
  task_index: 1,
  recorded,
  now,
  advantage_recorded: ar,
  advantage_now: an,
  error: null,
});

test('a re-score result: rows, changed and flips as printed (a log line before the JSON is skipped)', () => {
  const out = { steps: [4, 5], rows: [row(1, 1, 0, 0.8, -0.5), row(2, 0, 0, -0.8, 1.2), row(3, 1, 1, 0.5, 0.5)], changed: 1, flips: 2 };
  const r = parseRescore(`loading…\n${JSON.stringify(out)}\n`);
  assert.ok(!('reason' in r));
  assert.deepEqual(r.steps, [4, 5]);
  assert.equal(r.changed, 1);
  assert.equal(r.flips, 2);
  assert.deepEqual(r.rows.map(changed), [true, false, false]);
  assert.deepEqual(r.rows.map(flipped), [true, true, false]);
  assert.equal(flipped({ ...row(9, 0, 0, 0, 1e-9) }), false, 'within 1e-6 of zero is zero');
  const pretty = parseRescore(`note: 2 rows\n${JSON.stringify(out, null, 2)}\n`);
  assert.ok(!('reason' in pretty) && pretty.rows.length === 3, 'pretty-printed after a line');
  // Counts absent: computed from the rows.
  const counted = parseRescore(JSON.stringify({ steps: [4, 4], rows: out.rows }));
  assert.ok(!('reason' in counted) && counted.changed === 1 && counted.flips === 2);
});

test('malformed output says why', () => {
  assert.deepEqual(parseRescore(''), { reason: 'the re-score printed no JSON result' });
  assert.deepEqual(parseRescore('{"rows": []}'), { reason: 'the re-score result has no steps or rows' });
  const bad = parseRescore(JSON.stringify({ steps: [1, 1], rows: [{ id: 'x' }] }));
  assert.ok('reason' in bad && /malformed/.test(bad.reason));
  const failed = parseRescore(JSON.stringify({ steps: [1, 1], rows: [{ id: '4', recorded: 1, now: null, error: 'no messages' }] }));
  assert.ok(!('reason' in failed) && failed.rows[0].error === 'no messages' && failed.rows[0].advantage_now === null);
  assert.equal(failed.rows[0].id, 4, 'an id written as digits');
  assert.ok('reason' in parseRescore(JSON.stringify({ steps: [1, 1], rows: [{ id: '4x' }] })));
});

test('step ranges: A-B, one step, nonsense', () => {
  assert.deepEqual(parseStepRange('140'), [140, 140]);
  assert.deepEqual(parseStepRange(' 3 - 7 '), [3, 7]);
  assert.deepEqual(parseStepRange('3–7'), [3, 7]);
  assert.equal(parseStepRange('7-3'), undefined);
  assert.equal(parseStepRange('a-b'), undefined);
});

test("what the CLI prints (src/eval's bufferRescoreJson) is read back whole: the same rows, counts and rows not re-scored", () => {
  const printed = bufferRescoreJson(
    [
      { id: '7', step: 3, modelVersion: 3, taskIndex: 0, task: '0', recorded: 1, now: 0, error: null },
      { id: '8', step: 3, modelVersion: 3, taskIndex: 0, task: '0', recorded: 0, now: 0, error: null },
      { id: '9', step: 3, modelVersion: 3, taskIndex: 1, task: '1', recorded: 1, now: null, error: 'no messages' },
    ],
    [3, 3],
  );
  const read = parseRescore(JSON.stringify(printed));
  assert.ok(!('reason' in read));
  assert.deepEqual(read, { ...printed, rows: printed.rows.map((r) => ({ ...r, id: Number(r.id) })) });
  assert.equal(read.errors, 1);
});
