// The reference answers of a run's tasks from its job dir: the config copy names each taskset's
// path, split and response_key; a task's key is its row (taskset 0) or taskset/row; what cannot
// be read is named.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { render } from '../../../src/tasks/finding-text';
import { jobReferences } from '../../../src/tasks/taskset-references';

function jobDir(config: string, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-refs-'));
  fs.writeFileSync(path.join(dir, 'config.json'), config.replace(/\$DIR/g, dir));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

test("each taskset's reference answers by task key, from the tasksets the config copy names", () => {
  const dir = jobDir(
    `buffer:\n  explorer_input:\n    tasksets:\n    - path: $DIR/gsm8k\n      split: train\n      format:\n        response_key: answer\n    - path: $DIR/extra.jsonl\n`,
    {
      'gsm8k/test.jsonl': '{"question": "q", "answer": "#### 1"}\n',
      'gsm8k/train.jsonl': [
        '{"question": "a", "answer": "3 + 4 = 7\\n#### 7"}',
        '{"question": "b", "answer": ""}',
        '{"question": "c", "answer": "#### 12"}',
      ].join('\n'),
      'extra.jsonl': '{"prompt": "p", "response": "Paris"}\n',
    },
  );
  try {
    const r = jobReferences(dir);
    assert.ok('answers' in r, JSON.stringify(r));
    assert.deepEqual(
      [...r.answers],
      [
        ['0', '7'],
        ['2', '12'],
        ['1/0', 'Paris'],
      ],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a parquet taskset, one not on this node, or no config copy: not read, and why', () => {
  const parquet = jobDir('buffer:\n  explorer_input:\n    taskset:\n      path: $DIR/t.parquet\n', { 't.parquet': 'PAR1' });
  const away = jobDir('buffer:\n  explorer_input:\n    taskset:\n      path: /nowhere/gsm8k\n', {});
  const none = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-refs-'));
  try {
    const why = (d: string) => {
      const r = jobReferences(d);
      return 'why' in r ? render(r.why) : 'read';
    };
    assert.match(why(parquet), /t\.parquet is not JSON lines or JSON \(not read here\)/);
    assert.equal(why(away), 'the taskset /nowhere/gsm8k is not on this node');
    assert.equal(why(none), 'no config copy in the job dir (config.json) to name the taskset');
  } finally {
    for (const d of [parquet, away, none]) fs.rmSync(d, { recursive: true, force: true });
  }
});
