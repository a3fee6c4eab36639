// Changes under a writer that never pauses: Trinity's explorer adds rows every few hundred ms
// while the trainer's reads (consumed + 1) and serve mode's /feedback (reward) change rows
// already streamed. New rows and changed rows take turns, so a change reaches the client
// while the writer is still writing — not only once it stops (found by `npm run bench --
// sqlite`, where no update arrived during 40 s of writing).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../src/relay/sources/sql-source';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { silentLogger } from '../../../src/base/log';
import { sqlWriter, tmpDir } from './helpers';
import { sleep } from '../../harness/wait';

// Rollback journal, as Trinity's SQLAlchemy engine; an index on consumed, as Trinity's table.
const WRITER = `
import sqlite3, sys, time, os
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward FLOAT, timestamp TEXT, consumed INTEGER DEFAULT 0, experience_bytes BLOB)")
db.execute("CREATE INDEX ix_experience_buffer_consumed ON experience_buffer (consumed)")
n = 0
def add(k):
    global n
    db.execute("BEGIN IMMEDIATE")
    for _ in range(k):
        n += 1
        db.execute("INSERT INTO experience_buffer (id, task_id, run_id, model_version, reward, timestamp, experience_bytes) VALUES (?, 't', 0, 1, NULL, 'now', ?)", (n, os.urandom(2000)))
    db.execute("COMMIT")
add(200)
open(sys.argv[1] + ".ready", "w").close()
end = time.time() + float(sys.argv[2])
tick = 0
while time.time() < end and not os.path.exists(sys.argv[1] + ".stop"):
    add(10)
    if tick % 5 == 4:
        # /feedback on rows written a while ago (3 s: past the relay's 1 s reload period, so
        # the reader has streamed them; a change to a row it has not streamed yet simply
        # arrives with the row): reward and consumed + 1
        db.execute("UPDATE experience_buffer SET reward = 1.0, consumed = consumed + 1 WHERE id IN (SELECT id FROM experience_buffer WHERE consumed = 0 AND id < ? ORDER BY id DESC LIMIT 5)", (n - 300,))
    tick += 1
    time.sleep(0.1)
print(n)
`;

test('a row rewarded while the writer keeps adding rows streams as an update before the writer stops', { timeout: 90_000 }, async () => {
  const dir = tmpDir('relay-sqlbusy-');
  const file = path.join(dir, 'buffer.db');
  const writer = sqlWriter(WRITER, file, 30);
  const snap = new SqlDatabaseSnapshot(file, silentLogger);
  try {
    await writer.ready();
    const src = new SqlTableSource({ id: 'sql:b', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'buffer.db' }, snap, 'experience_buffer');
    const reader = src.open(undefined);
    const fresh: number[] = [];
    const updates: ExperienceRow[] = [];
    const t1 = Date.now();
    // Woken every 100 ms, as the relay is by its watch while the writer commits.
    while (updates.length < 10) {
      assert.ok(!writer.finished(), `the writer finished before 10 updates arrived (${updates.length}; ${fresh.length} new rows)`);
      assert.ok(Date.now() - t1 < 20_000, `${updates.length} updates after 20 s of writing (${fresh.length} new rows; change comparisons ${JSON.stringify(snap.stats)}, generation ${snap.changes.generation})`);
      for (let b = await reader.next(1 << 20); b; b = await reader.next(1 << 20)) {
        if (b.type !== 'experiences') continue;
        for (const r of b.rows) {
          if (r.updated) updates.push(r);
          else fresh.push(r.id);
        }
      }
      await sleep(100);
    }
    assert.ok(!writer.finished(), 'the updates arrived while the writer was still writing');
    for (const u of updates) {
      assert.equal(u.reward, 1, `row ${u.id} re-sent with its reward`);
      assert.ok((u.consumed ?? 0) >= 1, `row ${u.id} re-sent with consumed`);
      assert.ok(fresh.includes(u.id), `row ${u.id} was streamed before it changed`);
    }
    assert.deepEqual(fresh, Array.from({ length: fresh.length }, (_, i) => i + 1), 'new rows once each, in order');
  } finally {
    await writer.stop();
    snap.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
