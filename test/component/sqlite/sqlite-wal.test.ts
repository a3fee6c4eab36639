// Rows committed to a SQLite database in WAL mode, not yet checkpointed (the writer is still
// running, autocheckpoint off), are read page by page with the committed WAL frames laid over
// the main file (sqlite-pages.ts): new commits are picked up by scanning only the new frames.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PagedDatabase } from '../../../src/sqlite/sqlite-db';
import { DbPages } from '../../../src/sqlite/sqlite-pages';
import { until } from '../../harness/wait';
import { tmpDir } from '../relay/helpers';

const WRITER = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')
c.execute('CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT, reward FLOAT, experience_bytes BLOB)')
t = 0
def commit():
    global t
    c.execute('BEGIN')
    for i in range(40):
        c.execute('INSERT INTO experience_buffer (task_id, reward, experience_bytes) VALUES (?, ?, ?)', (f'task-{t}', t + i / 100, bytes(3000)))
    c.execute('COMMIT')
    t += 1
for _ in range(3): commit()
print('ready', flush=True)
for line in sys.stdin:
    commit()
    print('ready', flush=True)
`;

/** The database and its WAL copied to a fresh folder, the WAL changed by `edit`. */
function copyWith(db: string, edit: (wal: Buffer) => void): string {
  const to = path.join(tmpDir(), 'copy.db');
  fs.copyFileSync(db, to);
  const wal = fs.readFileSync(`${db}-wal`);
  edit(wal);
  fs.writeFileSync(`${to}-wal`, wal);
  return to;
}

async function query(file: string): Promise<{ row: number[]; frames: number }> {
  const pages = new DbPages(file);
  assert.equal(pages.refresh(), 'changed');
  const d = await PagedDatabase.open(pages);
  try {
    const row = d.exec('SELECT count(*), max(id), sum(reward) FROM experience_buffer')[0].values[0] as number[];
    return { row, frames: pages.wal.frames };
  } finally {
    await d.close();
  }
}

test('committed WAL frames are laid over the main file; a damaged frame ends the log at the last good commit', { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const db = path.join(dir, 'buffer.db');
  const writer = spawn('python3', ['-c', WRITER, db], { stdio: ['pipe', 'pipe', 'inherit'] });
  let ready = 0;
  writer.stdout.on('data', (b) => (ready += String(b).split('ready').length - 1));
  const commits = (n: number) =>
    until(
      `${n} commits`,
      () => {
        if (writer.exitCode !== null) throw new Error(`the writer exited (${writer.exitCode}) after ${ready} of ${n} commits`);
        return ready >= n;
      },
      20_000,
      20,
    );
  try {
    await commits(1);
    assert.ok(fs.statSync(`${db}-wal`).size > 100_000, 'the rows are in the WAL');
    assert.ok(fs.statSync(db).size < 10_000, 'and not yet in the main file');
    const noWal = path.join(tmpDir(), 'main-only.db');
    fs.copyFileSync(db, noWal);
    const main = new DbPages(noWal);
    main.refresh();
    const bare = await PagedDatabase.open(main);
    assert.throws(() => bare.exec('SELECT count(*) FROM experience_buffer'), /no such table/, 'without the WAL nothing is visible');
    await bare.close();

    // The live files, followed across a commit: the view moves and sees the new rows.
    const pages = new DbPages(db);
    assert.equal(pages.refresh(), 'changed');
    const live = await PagedDatabase.open(pages);
    const [count, maxId, sum] = live.exec('SELECT count(*), max(id), sum(reward) FROM experience_buffer')[0].values[0] as number[];
    assert.equal(count, 120);
    assert.equal(maxId, 120);
    assert.ok(Math.abs(sum - (40 * (0 + 1 + 2) + (3 * 40 * 39) / 2 / 100)) < 1e-9);
    assert.equal(pages.refresh(), 'same', 'nothing new, no new view');
    writer.stdin.write('more\n');
    await commits(2);
    assert.equal(pages.refresh(), 'changed');
    assert.equal(live.exec('SELECT count(*) FROM experience_buffer')[0].values[0][0], 160, 'the 4th commit is seen after a refresh');
    await live.close();

    // Flip a byte in the last frame: its checksum fails, so the last transaction is dropped.
    const broken = await query(copyWith(db, (w) => (w[w.length - 10] ^= 0xff)));
    assert.equal(broken.row[0], 120);
    // A WAL whose header does not check out (here: a changed salt) adds nothing.
    const stale = copyWith(db, (w) => w.writeUInt32BE((w.readUInt32BE(16) ^ 1) >>> 0, 16)); // ^ yields a signed int: back to unsigned
    const p = new DbPages(stale);
    p.refresh();
    assert.equal(p.wal.frames, 0);
    p.close();
  } finally {
    writer.stdin.end();
    await new Promise((r) => writer.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
