// SQL experience buffers against the real relay process (any runtime: test/harness/relay.ts):
// - kill -9 and restart: a client resuming from its cursors gets no unchanged row again, and a
//   row changed while the relay was down comes again (with at most the few rows that share its
//   group in the cursor's window, row-window.ts), so nothing is lost either. The buffer is written
//   by Trinity-RFT 0.5.2's own serve-mode HistoryRecorder (trinity-sql-writer.ts);
// - a database whose table b-tree has a cyclic interior page pointer: no row twice, the cursor
//   never backwards, a clear error, and the relay keeps answering other clients.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import type { Cursor } from '../../../../src/relay-protocol/messages';
import { launchRelay, relaysUnderTest, type RelayProc } from '../../../harness/relay';
import { WireClient, helloFrom } from '../../../harness/relay-wire';
import { sleep } from '../../../harness/wait';
import { tmpDir } from '../helpers';
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
        assert.ok(rows.every((r) => r.updated === true), 'only rows sent before come, as updates');
        assert.ok(rows.length <= GROUP_ROWS, `${rows.length} rows came again for one change`);
        back.close();
        await relay.stop();
      } finally {
        await py.close();
      }
    });

    test('a table b-tree with a cyclic interior page pointer: no row twice, the cursor never backwards, an error, other clients served', { timeout: 120_000 }, async () => {
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
    });
  });
