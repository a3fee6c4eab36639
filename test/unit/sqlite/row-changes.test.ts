// Changed rows found from two database images read as pages (sql.js builds them here, with the schema of
// Trinity's ExperienceModel, trinity/buffer/schema/sql_schema.py): through the pages of the
// `consumed` index when there is one — exactly the changed rows, however large the table —
// else by comparing a trailing window of rows.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { IndexDiff, RowChangeTracker, WINDOW_ROWS, WindowDiff } from '../../../src/sqlite/row-changes';
import { imagePages, indexEntries, indexTreePages } from '../../../src/sqlite/btree-index';
import { ROW_SCALE, resumePoint } from '../../../src/relay/sources/sql-table-reader';

interface Db {
  exec(sql: string, params?: unknown[]): { columns: string[]; values: unknown[][] }[];
  run(sql: string, params?: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SQL = (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<{ Database: new (d?: Uint8Array) => Db }>)();

async function trinityTable(rows: number, withIndex = true): Promise<Db> {
  const db = new (await SQL).Database();
  db.run(
    'CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER, experience_bytes BLOB, reward FLOAT, consumed INTEGER)',
  );
  if (withIndex) {
    db.run('CREATE INDEX ix_experience_buffer_consumed ON experience_buffer (consumed)');
    db.run('CREATE INDEX ix_experience_buffer_task_id ON experience_buffer (task_id)');
  }
  db.run('BEGIN');
  for (let i = 0; i < rows; i++)
    db.run('INSERT INTO experience_buffer (task_id, run_id, model_version, experience_bytes, reward, consumed) VALUES (?, ?, 1, ?, NULL, 0)', [
      String(i >> 3),
      i & 7,
      new Uint8Array(200),
    ]);
  db.run('COMMIT');
  return db;
}

const image = (db: Db) => imagePages(Buffer.from(db.export()))!;
const root = (db: Db, name: string) => Number(db.exec('SELECT rootpage FROM sqlite_master WHERE name = ?', [name])[0].values[0][0]);

test('the consumed index pages that differ name exactly the rows whose consumed changed (20,000 rows, a multi-level tree)', async () => {
  const db = await trinityTable(20_000);
  const ix = 'ix_experience_buffer_consumed';
  const img = image(db);
  const pages = indexTreePages(img, root(db, ix), 1e6)!;
  assert.ok(pages.size > 10, `${pages.size} pages`);
  let entries = 0;
  for (const [pgno, p] of pages) entries += indexEntries(p, pgno, img.usable).length;
  assert.equal(entries, 20_000, 'every row has one entry, on a leaf or an interior page');

  const diff = new IndexDiff();
  assert.equal(diff.update(img, root(db, ix)), undefined, 'the first image is the baseline');
  const fed = [3, 4_567, 12_000, 19_999];
  db.run(`UPDATE experience_buffer SET reward = 0.5, task_id = 't', consumed = consumed + 1 WHERE id IN (${fed.join(',')})`);
  const img2 = image(db);
  assert.deepEqual(
    diff.update(img2, root(db, ix))!.sort((a, b) => a - b),
    fed,
  );
  assert.deepEqual(diff.update(img2, root(db, ix)), [], 'no change, no rows');

  // The trainer consumes 1,500 rows (pages split and merge); then 10 new rows arrive.
  db.run('UPDATE experience_buffer SET consumed = 1 WHERE id BETWEEN 5000 AND 6499');
  db.run('BEGIN');
  for (let i = 0; i < 10; i++) db.run('INSERT INTO experience_buffer (task_id, experience_bytes, consumed) VALUES (?, ?, 0)', ['n', new Uint8Array(200)]);
  db.run('COMMIT');
  const got = diff.update(image(db), root(db, ix))!.sort((a, b) => a - b);
  const want = [...Array.from({ length: 1500 }, (_, i) => 5000 + i), ...Array.from({ length: 10 }, (_, i) => 20_001 + i)];
  assert.deepEqual(got, want);
  db.close();
});

test('the tracker keeps changes per snapshot generation; a reader too far behind is told they are lost', async () => {
  const db = await trinityTable(100);
  const t = new RowChangeTracker();
  t.observe(image(db), db, ['experience_buffer']);
  const g1 = t.generation;
  db.run('UPDATE experience_buffer SET consumed = 1 WHERE id = 7');
  t.observe(image(db), db, ['experience_buffer']);
  db.run('UPDATE experience_buffer SET consumed = 1 WHERE id = 9');
  t.observe(image(db), db, ['experience_buffer']);
  assert.deepEqual(t.since('experience_buffer', g1), [7, 9]);
  assert.deepEqual(t.since('experience_buffer', g1 + 1), [9]);
  assert.deepEqual(t.since('experience_buffer', t.generation), []);
  // 100,000+ changed ids push the oldest generations out of the log.
  db.run('UPDATE experience_buffer SET consumed = 2');
  for (let i = 0; i < 1001; i++) {
    db.run('UPDATE experience_buffer SET consumed = consumed + 1');
    t.observe(image(db), db, ['experience_buffer']);
  }
  assert.equal(t.since('experience_buffer', g1), undefined);
  assert.equal(t.since('experience_buffer', t.generation - 1)!.length, 100);
  db.close();
});

test('without a consumed index, reward changes in the last WINDOW_ROWS rows are found by comparing them', async () => {
  const db = await trinityTable(2000, false);
  const t = new RowChangeTracker();
  t.observe(image(db), db, ['experience_buffer']);
  const g = t.generation;
  db.run('UPDATE experience_buffer SET reward = 1 WHERE id IN (1990, 100)');
  t.observe(image(db), db, ['experience_buffer']);
  assert.deepEqual(t.since('experience_buffer', g), [1990], `row 100 is outside the window of ${WINDOW_ROWS}`);
  const w = new WindowDiff(false);
  assert.deepEqual(w.update(db, 'experience_buffer'), []);
  db.run('UPDATE experience_buffer SET reward = 2 WHERE id = 1999');
  assert.deepEqual(w.update(db, 'experience_buffer'), [1999]);
  db.close();
});

test('a cursor resumes at its row id and, from the same relay process, after the changes it was sent', () => {
  assert.deepEqual(resumePoint(undefined, 't'), { last: 0 });
  assert.deepEqual(resumePoint({ source: 's', fid: 't', offset: 42 }, 't'), { last: 0 }, 'a fid without the tracker is no cursor of this table');
  assert.deepEqual(resumePoint({ source: 's', fid: 't@0a1b2c3d.17', offset: 42 * ROW_SCALE + 3 }, 't'), { last: 42, tracker: '0a1b2c3d', gen: 17 });
  assert.deepEqual(resumePoint({ source: 's', fid: 'other@0a1b2c3d.17', offset: 42 }, 't'), { last: 0 });
  assert.deepEqual(resumePoint({ source: 's', fid: 't@x', offset: 42 }, 't'), { last: 0 });
});
