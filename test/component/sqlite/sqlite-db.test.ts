// Reading a SQLite buffer while a real SQLite writer (Python's sqlite3, rollback-journal mode
// as Trinity's SQLAlchemy engine leaves it) commits: a read must never see a half-written
// transaction ("database disk image is malformed", as users saw) — a query that a commit overlaps
// is refused (TornRead) and tried again — and rows only ever grow.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SqlDatabaseSnapshot } from '../../../src/relay/sources/sql-source';
import { TornRead } from '../../../src/sqlite/sqlite-db';
import { silentLogger } from '../../../src/base/log';
import { venvPython } from '../../harness/paths';
import { pythonAsync, tmpDir } from '../relay/helpers';
import { until } from '../../harness/wait';

// Big transactions that rewrite many pages (inserts with blobs, updates across the table,
// deletes that free pages), committed back to back for `seconds`.
const WRITER = `
import sqlite3, sys, time, os
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=DELETE")
db.execute("CREATE TABLE IF NOT EXISTS experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward FLOAT, timestamp TEXT, consumed INTEGER DEFAULT 0, experience_bytes BLOB)")
end = time.time() + float(sys.argv[2])
n = 0
open(sys.argv[1] + ".ready", "w").close()
while time.time() < end:
    db.execute("BEGIN IMMEDIATE")
    for _ in range(40):
        n += 1
        db.execute("INSERT INTO experience_buffer (id, task_id, run_id, model_version, reward, timestamp, experience_bytes) VALUES (?, ?, 0, ?, ?, 'now', ?)", (n, "t%d" % (n // 8), n // 100, n * 0.01, os.urandom(1500 + n % 3000)))
    db.execute("UPDATE experience_buffer SET reward = reward + 1, consumed = consumed + 1 WHERE id % 5 = ?", (n % 5,))
    db.execute("DELETE FROM experience_buffer WHERE id % 97 = ? AND id < ?", (n % 97, n - 500))
    db.execute("COMMIT")
print(n)
`;

test(
  'SQLite snapshots taken while a writer commits are never torn',
  { skip: !fs.existsSync(venvPython) && 'needs .cache/venv (scripts/setup.sh python)', timeout: 60_000 },
  async () => {
    const dir = tmpDir('relay-sqlrace-');
    const file = path.join(dir, 'buffer.db');
    const writer = pythonAsync(['-c', WRITER, file, '6']);
    let done = false;
    void writer.finally(() => (done = true)).catch(() => undefined);
    await until(
      'the writer to start',
      () => {
        if (done) throw new Error('the writer exited before it started');
        return fs.existsSync(`${file}.ready`);
      },
      20_000,
      20,
    );
    const failures: string[] = [];
    let reads = 0;
    let refused = 0;
    let lastMax = 0;
    try {
      while (!done) {
        // A fresh view each round: every read starts from the files as they are.
        const snap = new SqlDatabaseSnapshot(file, silentLogger, 0);
        const db = await snap.get();
        if (db) {
          try {
            const [cnt, max, bytes] = db.exec('SELECT count(*), max(id), sum(length(experience_bytes)) FROM experience_buffer')[0].values[0].map(Number);
            db.exec('SELECT id, reward, consumed FROM experience_buffer WHERE id > ? ORDER BY id LIMIT 2000', [Math.max(0, max - 3000)]);
            assert.ok(cnt > 0 && bytes > 0);
            assert.ok(max >= lastMax, `rows went back: ${max} < ${lastMax}`);
            lastMax = max;
            reads++;
          } catch (e) {
            if (e instanceof TornRead) refused++;
            else failures.push((e as Error).message);
          }
        }
        snap.close();
        await new Promise((r) => setImmediate(r));
      }
      const written = Number((await writer).trim());
      assert.ok(written > 1000, `the writer committed ${written} rows`);
      // The property is "never torn"; how many reads fit in 6 s depends on the machine's load.
      assert.ok(reads >= 1, 'no consistent snapshot at all while the writer ran');
      assert.deepEqual(failures.slice(0, 3), [], `${failures.length} torn read(s) in ${reads + failures.length + refused} reads (${refused} refused)`);
    } finally {
      await writer.catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
