// A reader catching up on a buffer while a real SQLite writer (Python's sqlite3, rollback
// journal, as Trinity's engine) commits every ~10 ms: each commit rewrites pages under the
// reader's queries, which are refused (TornRead) and read again in smaller batches on a new
// view, so the catch-up still finishes while the writer runs — and no row is lost or repeated.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../../src/relay/sources/sql-source';
import { silentLogger } from '../../../../src/base/log';
import { sqlWriter, tmpDir } from '../helpers';
import { sleep } from '../../../harness/wait';

const WRITER = `
import sqlite3, sys, time, os
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward FLOAT, timestamp TEXT, consumed INTEGER DEFAULT 0, experience_bytes BLOB)")
db.execute("CREATE INDEX ix_experience_buffer_consumed ON experience_buffer (consumed)")
db.execute("BEGIN")
for n in range(1, 4001):
    db.execute("INSERT INTO experience_buffer (id, task_id, run_id, model_version, reward, timestamp, experience_bytes) VALUES (?, 't', 0, 1, 0.5, 'now', ?)", (n, os.urandom(12000)))
db.execute("COMMIT")
open(sys.argv[1] + ".ready", "w").close()
end = time.time() + float(sys.argv[2])
n = 4000
while time.time() < end and not os.path.exists(sys.argv[1] + ".stop"):
    db.execute("BEGIN IMMEDIATE")
    for _ in range(5):
        n += 1
        db.execute("INSERT INTO experience_buffer (id, task_id, run_id, model_version, reward, timestamp, experience_bytes) VALUES (?, 't', 0, 1, 0.5, 'now', ?)", (n, os.urandom(12000)))
    db.execute("UPDATE experience_buffer SET consumed = consumed + 1 WHERE id IN (SELECT id FROM experience_buffer WHERE consumed = 0 ORDER BY id DESC LIMIT 3)")
    db.execute("COMMIT")
    time.sleep(0.01)
print(n)
`;

test('a catch-up of 4,000 rows (48 MB) finishes while a writer commits every ~10 ms', { timeout: 90_000 }, async (t) => {
  const dir = tmpDir('relay-sqlcatchup-');
  const file = path.join(dir, 'buffer.db');
  const writer = sqlWriter(WRITER, file, 40);
  const snap = new SqlDatabaseSnapshot(file, silentLogger);
  try {
    await writer.ready();
    const src = new SqlTableSource({ id: 'sql:b', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'buffer.db' }, snap, 'experience_buffer');
    const reader = src.open(undefined);
    const ids: number[] = [];
    const t1 = Date.now();
    // Woken every 50 ms, as the relay is by the directory watch while the writer commits; the
    // writer commits for 40 s, so "while it writes" is the bound (no clock of this process is asserted).
    while (ids.length < 4000) {
      assert.ok(!writer.finished(), `the writer finished first: ${ids.length} of 4000 rows read`);
      for (let b = await reader.next(1 << 20); b; b = await reader.next(1 << 20))
        if (b.type === 'experiences') ids.push(...b.rows.filter((r) => !r.updated).map((r) => r.id));
      await sleep(50);
    }
    const caughtUp = (Date.now() - t1) / 1000;
    t.diagnostic(`caught up in ${caughtUp.toFixed(1)} s`);
    fs.writeFileSync(`${file}.stop`, '');
    const written = Number((await writer.output).trim());
    for (let i = 0; i < 100 && ids.length < written; i++) {
      for (let b = await reader.next(1 << 20); b; b = await reader.next(1 << 20))
        if (b.type === 'experiences') ids.push(...b.rows.filter((r) => !r.updated).map((r) => r.id));
      await sleep(100);
    }
    assert.deepEqual(
      ids,
      Array.from({ length: written }, (_, i) => i + 1),
      `every row once, in order (caught up in ${caughtUp.toFixed(1)} s)`,
    );
  } finally {
    await writer.stop();
    snap.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a row's tokens asked for again (a client flooding requests) are decoded once: the same bytes, the same reply", { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'buffer.db');
  const { spawnSync } = await import('node:child_process');
  const made = spawnSync(
    'python3',
    [
      '-c',
      `import json, pickle, sqlite3, struct, sys
def trxp(meta):
    h = json.dumps({"0:tokens": {"dtype": "I32", "shape": [3], "data_offsets": [0, 12]}}).encode()
    tensors = struct.pack("<Q", len(h)) + h + struct.pack("<3i", 5, 6, 7)
    return b"TRXP" + struct.pack("<BQQ", 1, len(meta), len(tensors)) + meta + tensors
msgs = [{"role": "user", "content": "m%d" % i} for i in range(20000)]
meta = pickle.dumps({"version": 1, "num_items": 1, "items": [{"reward": 1.0, "prompt_length": 1, "messages": msgs}]}, protocol=4)
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward REAL, timestamp TEXT, consumed INTEGER, experience_bytes BLOB)")
c.executemany("INSERT INTO experience_buffer VALUES (?, 't', 0, 1, ?, '2026-01-01 00:00:00', 0, ?)", [(1, 0.5, trxp(meta)), (2, 0.25, trxp(meta))])
c.commit()`,
      file,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  const snap = new SqlDatabaseSnapshot(file, silentLogger);
  try {
    const src = new SqlTableSource({ id: 'sql:b', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'buffer.db' }, snap, 'experience_buffer');
    const first = await src.readTokens(1);
    const again = await src.readTokens(1);
    assert.deepEqual([...first.arrays.tokens!], [5, 6, 7]);
    assert.equal(again.arrays.tokens, first.arrays.tokens, 'the second answer is the first decode, not another');
    assert.equal(again.reward, 0.5);
    // Another row (its own reward column) is its own answer, even with the same bytes.
    const other = await src.readTokens(2);
    assert.equal(other.reward, 0.25);
    assert.equal(other.messages?.length, first.messages?.length);
  } finally {
    snap.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
