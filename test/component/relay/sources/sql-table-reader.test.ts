// SQL experience buffers against the real relay process (any runtime: test/harness/relay.ts):
// - kill -9 and restart: a client resuming from its cursors gets no unchanged row again, and a
//   row changed while the relay was down comes again (with at most the few rows that share its
//   group in the cursor's window, row-window.ts), so nothing is lost either. The buffer is written
//   by Trinity-RFT 0.5.2's own serve-mode HistoryRecorder (trinity-sql-writer.ts);
// - a database whose table b-tree has a cyclic interior page pointer: no row twice, the cursor
//   never backwards, a clear error, and the relay keeps answering other clients.
// - in process, changes under a writer that never pauses: Trinity's explorer adds rows every few hundred ms
//   while the trainer's reads (consumed + 1) and serve mode's /feedback (reward) change rows
//   already streamed. New rows and changed rows take turns, so a change reaches the client
//   while the writer is still writing — not only once it stops (found by `npm run bench --
//   sqlite`, where no update arrived during 40 s of writing).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import type { Cursor, ExperienceRow } from '../../../../src/relay-protocol/messages';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../../src/relay/sources/sql-source';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { sqlWriter, tmpDir } from '../helpers';
import { TrinitySqlWriter, noTrinity } from '../trinity-sql-writer';

/** Rows sharing a digest in a cursor's window: a change re-sends its group (row-window.ts). */
const GROUP_ROWS = 4;

/** Subscribes from `cursors` and waits until the relay says the backlog is sent. */
async function resume(url: string, cursors: Cursor[]): Promise<WireClient> {
  const c = await helloFrom(url);
  c.subscribe({ cursors });
  await c.waitFor('the backlog', () => c.of('heartbeat').some((h) => h.caughtUp === true), 60_000);
  return c;
}

for (const subject of relaysUnderTest())
  describe(`adversarial: SQL buffers [${subject.name}]`, { skip: subject.skip }, () => {
    const dirs: string[] = [];
    const relays: RelayProc[] = [];
    after(async () => {
      for (const r of relays) await r.stop('SIGKILL');
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    });

    test('after kill -9 and a restart, no unchanged row comes again; a row changed meanwhile does', { skip: noTrinity, timeout: 240_000 }, async () => {
      const job = tmpDir('relay-restart-');
      dirs.push(job);
      fs.mkdirSync(path.join(job, 'buffer'));
      const py = new TrinitySqlWriter();
      try {
        await py.call({ op: 'history', db: path.join(job, 'buffer', 'proxy_history.db') });
        await py.call({ op: 'record', msg_ids: Array.from({ length: 3000 }, (_, i) => `chatcmpl-${i}`), version: 1 });
        const start = async () => {
          const r = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', '200']);
          relays.push(r);
          return r;
        };
        let relay = await start();
        const first = await resume(relay.url, []);
        assert.equal(first.rows().length, 3000);
        let cursors = first.cursors();
        first.close();

        await relay.stop('SIGKILL');
        relay = await start();
        const again = await resume(relay.url, cursors);
        await sleep(1000); // any late re-send would come now
        const resent = again.rows();
        assert.equal(resent.length, 0, `${resent.length} unchanged row(s) came again, ${resent.filter((r) => r.updated).length} flagged updated`);
        cursors = again.cursors().length ? again.cursors() : cursors;
        again.close();

        await relay.stop('SIGKILL');
        await py.call({ op: 'feedback', msg_ids: ['chatcmpl-2900'], reward: 0.5, task_id: 't1', run_id: 0 });
        relay = await start();
        const back = await resume(relay.url, cursors);
        await back.waitFor('the changed row', () => back.rows().some((r) => r.msg_id === 'chatcmpl-2900' && r.reward === 0.5));
        const rows = back.rows();
        assert.ok(
          rows.every((r) => r.updated === true),
          'only rows sent before come, as updates',
        );
        assert.ok(rows.length <= GROUP_ROWS, `${rows.length} rows came again for one change`);
        back.close();
        await relay.stop();
      } finally {
        await py.close();
      }
    });

    test(
      'a table b-tree with a cyclic interior page pointer: no row twice, the cursor never backwards, an error, other clients served',
      { timeout: 120_000 },
      async () => {
        const job = tmpDir('relay-cycle-');
        dirs.push(job);
        fs.mkdirSync(path.join(job, 'buffer'));
        const db = path.join(job, 'buffer', 'experience_buffer.db');
        // 300 rows in 512-byte pages: a three-level b-tree. The first cell of the root's last child
        // (an interior page) is pointed back at the root: SQLite walks the first subtree again and
        // again (until its depth limit), so a query of 500 rows gets 144 distinct ones.
        const made = spawnSync(
          'python3',
          [
            '-c',
            `import sqlite3, struct, sys
db = sys.argv[1]
c = sqlite3.connect(db)
c.execute("PRAGMA page_size=512")
c.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward REAL, timestamp TEXT, consumed INTEGER, experience_bytes BLOB)")
c.executemany("INSERT INTO experience_buffer VALUES (?, ?, 0, 1, ?, '2026-01-01 00:00:00', 0, ?)", [(i, 't%d' % i, i / 300, bytes(60)) for i in range(1, 301)])
c.commit()
root = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'experience_buffer'").fetchone()[0]
c.close()
img = bytearray(open(db, 'rb').read())
ps = struct.unpack('>H', img[16:18])[0]
at = lambda n: (n - 1) * ps
last = struct.unpack('>I', img[at(root) + 8:at(root) + 12])[0]
assert img[at(root)] == 5 and img[at(last)] == 5, 'a three-level table b-tree'
cell = struct.unpack('>H', img[at(last) + 12:at(last) + 14])[0]
img[at(last) + cell:at(last) + cell + 4] = struct.pack('>I', root)
open(db, 'wb').write(img)
ids = [r[0] for r in sqlite3.connect(db).execute("SELECT id FROM experience_buffer WHERE id > 0 ORDER BY id LIMIT 500")]
print(len(ids), len(set(ids)))`,
            db,
          ],
          { encoding: 'utf8' },
        );
        assert.equal(made.status, 0, made.stderr);
        const [got, distinct] = made.stdout.trim().split(' ').map(Number);
        assert.ok(got > distinct, `SQLite itself walks the cycle (${got} rows, ${distinct} distinct)`);

        const relay = await launchRelay(subject.command(), ['--job-dir', job, '--poll-interval', '100']);
        relays.push(relay);
        const client = await helloFrom(relay.url);
        client.subscribe();
        await client.waitFor('an error naming the damage', () => client.of('error').some((e) => e.code === 'source-error'), 60_000);
        // Keep reading a while: the relay's retries must not stream the table again.
        await sleep(2000);
        const other = await helloFrom(relay.url, {}, 10_000);
        other.close();
        const ids = client.rows().map((r) => r.id);
        assert.equal(new Set(ids).size, ids.length, `a row came twice (${ids.length} rows, ${new Set(ids).size} distinct)`);
        assert.ok(ids.length <= 300);
        const offsets = client.cursorTrail().map((c) => c.offset);
        for (let i = 1; i < offsets.length; i++) assert.ok(offsets[i] >= offsets[i - 1], `the cursor moved backwards: ${offsets[i - 1]} → ${offsets[i]}`);
        const error = client.of('error').find((e) => e.code === 'source-error')!;
        assert.match(String(error.message), /damaged|corrupt|cycle/i);
        assert.doesNotMatch(String(error.message), /\n\s+at /, 'no stack trace');
        client.close();
      },
    );
  });

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
    // Woken every 100 ms, as the relay is by its watch while the writer commits; the writer
    // writes for 30 s, so "before it stops" is the bound (no clock of this process is asserted).
    while (updates.length < 10) {
      assert.ok(
        !writer.finished(),
        `the writer finished before 10 updates arrived (${updates.length}; ${fresh.length} new rows; change comparisons ${JSON.stringify(snap.stats)}, generation ${snap.changes.generation})`,
      );
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
    assert.deepEqual(
      fresh,
      Array.from({ length: fresh.length }, (_, i) => i + 1),
      'new rows once each, in order',
    );
  } finally {
    await writer.stop();
    snap.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
