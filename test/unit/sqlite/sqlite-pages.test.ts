// The SQL source reads a database by pages (sqlite-pages.ts, sqlite-db.ts): a change costs the
// pages it touches, not the file; a query that a commit overlaps is refused and read again;
// a database many times the page cache is read with a bounded heap. Databases are built with
// sql.js (Trinity's ExperienceModel schema) and rewritten in place as a rollback-journal
// writer would leave them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../src/relay/sources/sql-source';
import { CACHE_KB, TornRead } from '../../../src/sqlite/sqlite-db';
import type { SourceReader } from '../../../src/relay/sources/source';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { silentLogger } from '../../../src/base/log';
import { tmpDir } from '../relay/helpers';

interface Db {
  run(sql: string, params?: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SQL = (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<{ Database: new (d?: Uint8Array) => Db }>)();

async function trinityDb(rows: number, blobBytes: number): Promise<Db> {
  const db = new (await SQL).Database();
  db.run(
    'CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP, task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER, experience_bytes BLOB, reward FLOAT, consumed INTEGER)',
  );
  for (const c of ['consumed', 'task_id', 'run_id', 'msg_id', 'model_version']) db.run(`CREATE INDEX ix_experience_buffer_${c} ON experience_buffer (${c})`);
  insert(db, rows, blobBytes);
  return db;
}

function insert(db: Db, rows: number, blobBytes: number): void {
  db.run('BEGIN');
  for (let i = 0; i < rows; i++)
    db.run('INSERT INTO experience_buffer (task_id, run_id, model_version, experience_bytes, reward, consumed) VALUES (?, ?, 1, ?, NULL, 0)', [
      String(i >> 3),
      i & 7,
      new Uint8Array(blobBytes).fill(i & 255),
    ]);
  db.run('COMMIT');
}

function open(file: string): { snap: SqlDatabaseSnapshot; reader: SourceReader } {
  const snap = new SqlDatabaseSnapshot(file, silentLogger, 0);
  const src = new SqlTableSource({ id: 'sql:exp', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'buffer/exp.db' }, snap, 'experience_buffer');
  return { snap, reader: src.open(undefined) };
}

/** Rows until there are `n` (the source takes a new view at most every 20× its last refresh's cost). */
async function drainAtLeast(reader: SourceReader, n: number): Promise<ExperienceRow[]> {
  const rows: ExperienceRow[] = [];
  // A bounded number of rounds (500 × 20 ms: 10 s unloaded), not a bound on the clock.
  for (let round = 0; rows.length < n; round++) {
    assert.ok(round < 500, `${rows.length} of ${n} rows after ${round} rounds`);
    rows.push(...(await drain(reader)));
    await new Promise((r) => setTimeout(r, 20));
  }
  return rows;
}

/** Every batch the reader has now. */
async function drain(reader: SourceReader): Promise<ExperienceRow[]> {
  const rows: ExperienceRow[] = [];
  for (;;) {
    const b = await reader.next(1 << 20);
    if (!b) return rows;
    if (b.type === 'experiences') rows.push(...b.rows);
  }
}

test('100 new rows and 10 consumed ones cost the pages they touch, not the 30 MB file', async () => {
  const dir = tmpDir('relay-sqlpages-');
  const file = path.join(dir, 'exp.db');
  const db = await trinityDb(4000, 7000);
  fs.writeFileSync(file, db.export());
  const { snap, reader } = open(file);
  try {
    const first = await drain(reader);
    assert.equal(first.length, 4000);
    const filePages = fs.statSync(file).size / snap.pages.pageSize;
    assert.ok(snap.pages.reads > filePages / 2, `the first read is the whole table (${snap.pages.reads} page reads of ${filePages})`);

    const consumed = [5, 1234, 2500, 3999, 10, 11, 12, 13, 14, 15];
    db.run(`UPDATE experience_buffer SET consumed = consumed + 1, reward = 1 WHERE id IN (${consumed.join(',')})`);
    insert(db, 100, 7000);
    fs.writeFileSync(file, db.export()); // in place, as a rollback-journal commit leaves it
    const r0 = snap.pages.reads;
    const next = await drainAtLeast(reader, 110);
    const reads = snap.pages.reads - r0;
    assert.deepEqual(
      next.filter((r) => !r.updated).map((r) => r.id),
      Array.from({ length: 100 }, (_, i) => 4001 + i),
    );
    assert.deepEqual(
      next
        .filter((r) => r.updated)
        .map((r) => r.id)
        .sort((a, b) => a - b),
      consumed.sort((a, b) => a - b),
    );
    // A new row is its leaf cell + 2 overflow pages; the consumed index of 4,100 rows ~ 15 pages;
    // the rest is the table's interior pages, sqlite_master and the header.
    const bound = 100 * 3 + 60 + 60;
    assert.ok(reads <= bound, `${reads} page reads for one change (bound ${bound}, file ${filePages} pages)`);
  } finally {
    snap.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a query a commit overlaps is refused (TornRead) and read again; a hot journal waits for the commit', async () => {
  const dir = tmpDir('relay-sqltorn-');
  const file = path.join(dir, 'exp.db');
  const db = await trinityDb(300, 500);
  fs.writeFileSync(file, db.export());
  const { snap, reader } = open(file);
  try {
    assert.equal((await drain(reader)).length, 300);
    // A commit lands while a query is between two page reads (its first, on a new view).
    insert(db, 50, 500);
    fs.writeFileSync(file, db.export());
    const view = await snap.get(true);
    assert.ok(view, 'a view of the first commit');
    insert(db, 50, 500);
    const pages = snap.pages;
    const read = pages.read.bind(pages);
    pages.read = (out, offset) => {
      pages.read = read;
      fs.writeFileSync(file, db.export());
      return read(out, offset);
    };
    assert.throws(() => view.exec('SELECT count(*), sum(length(experience_bytes)) FROM experience_buffer'), TornRead);
    assert.ok(pages.read === read, 'the commit happened during the query');
    assert.deepEqual(await drainAtLeast(reader, 100).then((r) => r.length), 100, 'the next read, on a new view, has the rows of both commits');

    // A writer mid-transaction (a live rollback journal): no view is taken until it commits.
    insert(db, 20, 500);
    fs.writeFileSync(`${file}-journal`, Buffer.alloc(512, 0xd9));
    fs.writeFileSync(file, db.export());
    assert.equal(snap.pages.refresh(), 'busy');
    assert.equal(await reader.next(1 << 20), undefined, 'nothing is read while the journal is hot');
    fs.rmSync(`${file}-journal`);
    assert.equal((await drainAtLeast(reader, 20)).length, 20);
  } finally {
    snap.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`a database 16 times SQLite's page cache (${CACHE_KB} KiB) is read whole with a heap far smaller than the file`, async () => {
  const dir = tmpDir('relay-sqlbig-');
  const file = path.join(dir, 'exp.db');
  const db = await trinityDb(4400, 16_000);
  fs.writeFileSync(file, db.export());
  db.close();
  const size = fs.statSync(file).size;
  assert.ok(size > 16 * CACHE_KB * 1024, `${size} bytes`);
  const { snap, reader } = open(file);
  try {
    const rows = await drain(reader);
    assert.equal(rows.length, 4400);
    const view = (await snap.get(false, true))!;
    const [n, bytes] = view.exec('SELECT count(*), sum(length(experience_bytes)) FROM experience_buffer')[0].values[0];
    assert.deepEqual([n, bytes], [4400, 4400 * 16_000]);
    const heap = snap.connection!.heapBytes();
    assert.ok(heap < size / 2, `wasm heap ${heap} bytes for a ${size}-byte file`);
  } finally {
    snap.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a table walk reads the main file ahead: a read per chunk, not per page, and the same rows', async () => {
  const dir = tmpDir('relay-sqlahead-');
  const file = path.join(dir, 'exp.db');
  const db = await trinityDb(2000, 7000);
  fs.writeFileSync(file, db.export());
  const { snap, reader } = open(file);
  try {
    const rows = await drain(reader);
    assert.deepEqual(
      rows.map((r) => r.id),
      Array.from({ length: 2000 }, (_, i) => i + 1),
    );
    // ~15 MB of leaves and overflow pages in file order: 256 KB reads ahead, not 4 KB pages one by one.
    const pages = snap.pages.reads;
    assert.ok(pages > 3000, `${pages} page reads`);
    assert.ok(snap.pages.fileReads * 8 < pages, `${snap.pages.fileReads} reads of the file for ${pages} page reads`);
  } finally {
    snap.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
