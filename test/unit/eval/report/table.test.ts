import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { comparePair, compareModels, formatComparison } from '../../../../src/eval/report/table';
import type { EvalRecord } from '../../../../src/eval/run/eval-record';
import type { EpisodeOutcome } from '../../../../src/feature-api/rollouts';

const eps = (rewards: Record<string, (number | null)[]>): EpisodeOutcome[] =>
  Object.entries(rewards).flatMap(([task, rs]) => rs.map((reward, repeat) => ({ episode: `T${task}#R${repeat}`, taskId: task, repeat, reward, parts: {} })));

const record = (a: Record<string, (number | null)[]>, b: Record<string, (number | null)[]>): EvalRecord => ({
  version: 1,
  id: 'x',
  createdAt: '',
  config: '',
  tasks: 0,
  repeat: 2,
  models: [
    { name: 'base', runDir: 'a', status: 'completed', llmCalls: 0, episodes: eps(a) },
    { name: 'new', runDir: 'b', status: 'completed', llmCalls: 0, episodes: eps(b) },
  ],
});

describe('the comparison report', () => {
  test('per task, largest change first, with the verdict and what it rests on', () => {
    const [c] = compareModels(record({ easy: [1, 1], hard: [0, 1], gone: [1, 1] }, { easy: [1, 1], hard: [0, 0], gone: [null, null] }), { failIfWorse: 0.02 });
    const text = formatComparison(c);
    const rows = text.split('\n');
    assert.match(rows[0], /^task +base mean +pass +new mean +pass +diff$/);
    assert.match(rows[1], /^hard +0\.50 +1\.00 +0\.00 +0\.00 +−0\.50$/);
    assert.match(rows[2], /^easy +1\.00 +1\.00 +1\.00 +1\.00 +0\.00$/);
    assert.match(rows[3], /^gone +1\.00 +1\.00 +— +— +— +\(failed: 0\/2\)$/);
    assert.match(text, /rests on 2 of 3 tasks · base 0 failed episodes · new 2 failed episodes \(1 task left out\)/);
    // Fails closed: two failed episodes of the new model count against it.
    assert.equal(c.gateFailed, true);
    assert.match(c.gateReason ?? '', /2 of its episodes failed \(the baseline's: 0\); a failed episode counts as worse/);
  });

  test('every model against the first', () => {
    const r = record({ a: [1] }, { a: [0] });
    r.models.push({ ...r.models[1], name: 'third' });
    assert.deepEqual(
      compareModels(r).map((c) => [c.base, c.other]),
      [
        ['base', 'new'],
        ['base', 'third'],
      ],
    );
  });

  test('any pair by name, either way round; an unknown model gives nothing', () => {
    const r = record({ a: [1], b: [1] }, { a: [0], b: [1] });
    assert.equal(comparePair(r, 'base', 'new')?.comparison.meanDiff, -0.5);
    assert.equal(comparePair(r, 'new', 'base')?.comparison.meanDiff, 0.5);
    assert.equal(comparePair(r, 'base', 'nope'), undefined);
  });
});

describe('the --fail-if-worse gate fails closed', () => {
  const tasks = (n: number, v: number | null) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, [v, v]]));
  test('every call of the new model erroring: fails, saying its episodes failed (was "not enough tasks", pass)', () => {
    const [c] = compareModels(record(tasks(8, 1), tasks(8, null)), { failIfWorse: 0.02 });
    assert.equal(c.gateFailed, true);
    assert.match(c.gateReason ?? '', /^16 of its episodes failed \(the baseline's: 0\)/);
  });
  test('half the tasks failing with errors and the rest equal: fails (was "no difference", pass)', () => {
    const b = { ...tasks(8, 1), ...tasks(4, null) };
    const [c] = compareModels(record(tasks(8, 1), b), { failIfWorse: 0.02 });
    assert.equal(c.gateFailed, true);
    assert.match(c.gateReason ?? '', /8 of its episodes failed/);
  });
  test('no task scored by both: fails; the same answers with no errors: passes', () => {
    const [none] = compareModels(record(tasks(4, null), tasks(4, null)), { failIfWorse: 0.02 });
    assert.equal(none.gateFailed, true);
    assert.match(none.gateReason ?? '', /only 0 task\(s\) scored by both models: too few to pass the gate/);
    const [same] = compareModels(record(tasks(8, 1), tasks(8, 1)), { failIfWorse: 0.02 });
    assert.equal(same.gateFailed, false);
  });
});
