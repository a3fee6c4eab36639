// Rows committed to a SQLite database in WAL mode, not yet checkpointed (the writer is still
// running, autocheckpoint off), are read through sql.js once the WAL is folded in.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { applyWal } from '../../../../src/relay/sources/sqlite-wal';
import { tmpDir } from '../helpers';

const WRITER = `
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')
c.execute('CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT, reward FLOAT, experience_bytes BLOB)')
for t in range(3):
    c.execute('BEGIN')
    for i in range(40):
        c.execute('INSERT INTO experience_buffer (task_id, reward, experience_bytes) VALUES (?, ?, ?)', (f'task-{t}', t + i / 100, bytes(3000)))
    c.execute('COMMIT')
print('ready', flush=True)
sys.stdin.read()
`;

interface SqlJs {
  Database: new (data: Uint8Array) => { exec(sql: string): { values: unknown[][] }[]; close(): void };
}

test('committed WAL frames are folded into the snapshot; a damaged frame ends the log at the last good commit', { timeout: 60_000 }, async () => {
  const dir = tmpDir();
  const db = path.join(dir, 'buffer.db');
  const writer = spawn('python3', ['-c', WRITER, db], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      writer.stdout.on('data', (b) => String(b).includes('ready') && resolve());
      writer.once('exit', (code) => reject(new Error(`writer exited ${code}`)));
    });
    const main = fs.readFileSync(db);
    const wal = fs.readFileSync(`${db}-wal`);
    assert.ok(wal.length > 100_000, 'the rows are in the WAL');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const SQL = await (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<SqlJs>)();
    const query = (bytes: Buffer) => {
      const d = new SQL.Database(bytes);
      try {
        return d.exec('SELECT count(*), max(id), sum(reward) FROM experience_buffer')[0].values[0];
      } finally {
        d.close();
      }
    };
    assert.throws(() => query(applyWal(main, undefined).db), /no such table/, 'without the WAL nothing is visible');
    const merged = applyWal(main, wal);
    assert.ok(merged.frames > 0);
    const [count, maxId, sum] = query(merged.db) as number[];
    assert.equal(count, 120);
    assert.equal(maxId, 120);
    assert.ok(Math.abs(sum - (40 * (0 + 1 + 2) + (3 * 40 * 39) / 2 / 100)) < 1e-9);

    // Flip a byte in the last frame: its checksum fails, so the last transaction is dropped.
    const broken = Buffer.from(wal);
    broken[broken.length - 10] ^= 0xff;
    const [count2] = query(applyWal(main, broken).db) as number[];
    assert.equal(count2, 80);
    // A WAL whose header does not check out (here: a changed salt) adds nothing.
    const stale = Buffer.from(wal);
    stale.writeUInt32BE((stale.readUInt32BE(16) ^ 1) >>> 0, 16); // ^ yields a signed int: back to unsigned
    assert.equal(applyWal(main, stale).frames, 0);
  } finally {
    writer.stdin.end();
    await new Promise((r) => writer.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
