// The relay's tasks fold (task-cache.ts) reads a source through the reader it offers for the
// fold (`openForTasks`: no tensor bytes), not the experience list's reader, and folds its rows
// into the table it sends.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { TaskCache } from '../../../../src/relay/serve/task-cache';
import type { Batch, Source, SourceReader } from '../../../../src/relay/sources/source';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';

const info = { id: 'sql:buffer/exp.db#experience_buffer', kind: 'sql' as const, run: 'r', role: 'experience_buffer', path: 'buffer/exp.db' };

function readerOf(rows: ExperienceRow[]): SourceReader {
  let done = false;
  return {
    next: (): Promise<Batch | undefined> => {
      if (done) return Promise.resolve(undefined);
      done = true;
      return Promise.resolve({ type: 'experiences', source: info.id, run: 'r', rows, cursor: { source: info.id, offset: rows.length } });
    },
    close: () => undefined,
  };
}

const row = (id: number, task: number, version: number, reward: number): ExperienceRow => ({
  id,
  table: 'experience_buffer',
  task_id: '0',
  run_id: 0,
  model_version: version,
  reward,
  timestamp: null,
  task_index: task,
  response_tokens: 10 * id,
});

test("the fold reads a source through its tasks reader when it has one (the list's reader is not opened)", async () => {
  const opened: string[] = [];
  const source: Source = {
    info,
    watchPaths: [],
    open: () => {
      opened.push('list');
      return readerOf([row(1, 9, 0, 0)]);
    },
    openForTasks: () => {
      opened.push('tasks');
      return readerOf([row(1, 3, 0, 0), row(2, 3, 1, 1), row(3, 4, 1, 0.5)]);
    },
  };
  const cache = new TaskCache();
  try {
    const t = await cache.table(source);
    assert.deepEqual(opened, ['tasks']);
    assert.equal(t.rows, 3);
    assert.deepEqual(
      t.cells.map((c) => [c.task, c.version, c.n, c.sum, c.lenSum]),
      [
        ['3', 0, 1, 0, 10],
        ['3', 1, 1, 1, 20],
        ['4', 1, 1, 0.5, 30],
      ],
    );
  } finally {
    cache.close();
  }
});

test('a source without a tasks reader is folded through its list reader from the first row', async () => {
  const source: Source = {
    info: { ...info, kind: 'jsonl' },
    watchPaths: [],
    open: (cursor) => {
      assert.equal(cursor, undefined);
      return readerOf([row(1, 7, 2, 1)]);
    },
  };
  const cache = new TaskCache();
  try {
    const t = await cache.table(source);
    assert.deepEqual(
      t.cells.map((c) => [c.task, c.version]),
      [['7', 2]],
    );
  } finally {
    cache.close();
  }
});
