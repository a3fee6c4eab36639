import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { EVAL_DIR, listSaved, loadEval, newEvalId, rewardsByTask, saveEval, type EvalRecord } from '../../../../src/eval/run/eval-record';

const record: EvalRecord = {
  version: 1,
  id: 'x',
  createdAt: '2026-01-01T00:00:00Z',
  config: 'c.yaml',
  tasks: 2,
  repeat: 2,
  models: [
    {
      name: 'base',
      runDir: 'runs/base',
      status: 'completed',
      llmCalls: 4,
      episodes: [
        { episode: 'Ta#R0', taskId: 'a', repeat: 0, reward: 1, parts: {} },
        { episode: 'Tb#R0', taskId: 'b', repeat: 0, reward: null, parts: {}, error: { phase: 'llm', type: 'Timeout', message: 't' } },
        { episode: 'Ta#R1', taskId: 'a', repeat: 1, reward: 0, parts: {} },
      ],
    },
  ],
};

describe('saved comparisons', () => {
  test('save and reopen; rewards grouped per task with failures as null', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalrec-'));
    try {
      saveEval(dir, record);
      assert.deepEqual(loadEval(dir), record);
      assert.deepEqual(
        [...rewardsByTask(record.models[0].episodes)],
        [
          ['a', [1, 0]],
          ['b', [null]],
        ],
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a missing, truncated or foreign eval.json is a clear error', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalrec-'));
    try {
      assert.throws(() => loadEval(dir), /Cannot read the comparison .*eval\.json/);
      fs.writeFileSync(path.join(dir, 'eval.json'), JSON.stringify(record).slice(0, 40));
      assert.throws(() => loadEval(dir), /Cannot read the comparison/);
      fs.writeFileSync(path.join(dir, 'eval.json'), JSON.stringify({ version: 1, models: [{ name: 'a' }] }));
      assert.throws(() => loadEval(dir), /is not a saved comparison/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('ids sort by time and never collide', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalrec-'));
    try {
      const at = new Date('2026-11-27T10:15:30.123Z');
      const id = newEvalId(root, at);
      assert.equal(id, '20261127-101530Z');
      fs.mkdirSync(path.join(root, EVAL_DIR, id), { recursive: true });
      assert.equal(newEvalId(root, at), '20261127-101530Z-2');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('the saved comparisons of a workspace, newest first; one still running or broken is left out', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-evalrec-'));
    try {
      assert.deepEqual(listSaved(root), [], 'no .agentrl/eval yet');
      for (const id of ['20261127-101530Z', '20261127-111530Z']) saveEval(path.join(root, EVAL_DIR, id), { ...record, id });
      fs.mkdirSync(path.join(root, EVAL_DIR, '20261127-121530Z', 'runs'), { recursive: true }); // running: no eval.json yet
      fs.mkdirSync(path.join(root, EVAL_DIR, '20261127-131530Z'));
      fs.writeFileSync(path.join(root, EVAL_DIR, '20261127-131530Z', 'eval.json'), '{"version": 1, "mod');
      assert.deepEqual(
        listSaved(root).map((s) => [s.id, s.record.id, s.dir]),
        [
          ['20261127-111530Z', '20261127-111530Z', path.join(root, EVAL_DIR, '20261127-111530Z')],
          ['20261127-101530Z', '20261127-101530Z', path.join(root, EVAL_DIR, '20261127-101530Z')],
        ],
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
