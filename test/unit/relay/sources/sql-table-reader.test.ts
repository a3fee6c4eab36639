// A table reader on damaged databases (sql-table-reader.ts over sqlite-db.ts): a seeded fuzz of
// page corruptions — bytes flipped, child pointers sent to random pages and back to their
// ancestors (cycles) — never yields a row twice or out of order, never loops (each query has a
// step budget), and fails only with an error that names the damage. Databases are built with
// sql.js in Trinity's ExperienceModel schema; the relay process on a cyclic b-tree:
// test/component/relay/sources/sql-table-reader.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { tableTreeProblem, imagePages } from '../../../../src/sqlite/btree-index';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../../src/relay/sources/sql-source';
import { silentLogger } from '../../../../src/base/log';
import { rng, tmpDir } from '../helpers';

interface Db {
  run(sql: string, params?: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SQL = (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<{ Database: new (d?: Uint8Array) => Db }>)();

/** 600 rows in 512-byte pages: a table b-tree three levels deep, as a rollback-journal file. */
async function image(): Promise<Buffer> {
  const db = new (await SQL).Database();
  db.run('PRAGMA page_size = 512');
  db.run(
    'CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, timestamp DATETIME, task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER, experience_bytes BLOB, reward FLOAT, consumed INTEGER)',
  );
  db.run('CREATE INDEX ix_experience_buffer_consumed ON experience_buffer (consumed)');
  db.run('BEGIN');
  for (let i = 1; i <= 600; i++)
    db.run("INSERT INTO experience_buffer VALUES (?, '2026-01-01', ?, 0, NULL, 1, ?, ?, 0)", [i, `t${i}`, new Uint8Array(100).fill(i & 255), i / 600]);
  db.run('COMMIT');
  const out = Buffer.from(db.export());
  db.close();
  return out;
}

/** Interior table pages of an image (their cells point at children). */
function interiorPages(img: Buffer, pageSize: number): number[] {
  const out: number[] = [];
  for (let p = 1; p * pageSize <= img.length; p++) if (img[(p - 1) * pageSize + (p === 1 ? 100 : 0)] === 5) out.push(p);
  return out;
}

describe('adversarial: damaged SQLite pages', () => {
  test('fuzz (fixed seed): rows strictly increasing or an error naming the damage; every read ends', async () => {
    const good = await image();
    const pageSize = good.readUInt16BE(16);
    const interiors = interiorPages(good, pageSize);
    assert.ok(interiors.length >= 3, 'a b-tree with interior pages below its root');
    assert.equal(
      tableTreeProblem(
        imagePages(good)!,
        interiors.find((p) => p !== 1)!,
      ),
      undefined,
    );
    const rand = rng(7);
    const dir = tmpDir('relay-sqlfuzz-');
    let errors = 0;
    let cycles = 0;
    try {
      for (let i = 0; i < 120; i++) {
        const img = Buffer.from(good);
        const kind = i % 3;
        if (kind === 0) {
          // A child pointer of an interior page sent back to another interior page (often an ancestor: a cycle).
          const p = interiors[Math.floor(rand() * interiors.length)];
          const at = (p - 1) * pageSize;
          const n = img.readUInt16BE(at + 3);
          const cell = img.readUInt16BE(at + 12 + 2 * Math.floor(rand() * n));
          img.writeUInt32BE(interiors[Math.floor(rand() * interiors.length)], at + cell);
          cycles++;
        } else if (kind === 1) {
          // Random bytes of random pages.
          for (let k = 0; k < 8; k++) img[100 + Math.floor(rand() * (img.length - 100))] = Math.floor(rand() * 256);
        } else {
          // A child pointer to a random page number, in range or not.
          const p = interiors[Math.floor(rand() * interiors.length)];
          const at = (p - 1) * pageSize;
          img.writeUInt32BE(Math.floor(rand() * 2000), at + 8);
        }
        const file = path.join(dir, `case${i}.db`);
        fs.writeFileSync(file, img);
        const snap = new SqlDatabaseSnapshot(file, silentLogger, 0);
        const reader = new SqlTableSource({ id: 'sql:x', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'x.db' }, snap, 'experience_buffer').open(
          undefined,
        );
        let prev = 0;
        try {
          for (let reads = 0; reads < 20; reads++) {
            let b;
            try {
              b = await reader.next(1 << 20);
            } catch (e) {
              assert.ok(e instanceof Error, `case ${i}: ${String(e)}`);
              assert.doesNotMatch(e.message, /\n\s+at /, `case ${i}: no stack trace in the message`);
              errors++;
              break;
            }
            if (!b) break;
            assert.equal(b.type, 'experiences');
            if (b.type !== 'experiences') break;
            for (const r of b.rows) {
              if (r.updated) continue;
              assert.ok(r.id > prev, `case ${i} (${kind}): row ${r.id} after row ${prev}`);
              prev = r.id;
            }
          }
        } finally {
          reader.close();
          snap.close();
          fs.rmSync(file, { force: true });
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(errors > 0 && cycles > 0, `${errors} damaged databases reported`);
  });

  test('tableTreeProblem names a page reached twice', async () => {
    const img = await image();
    const pageSize = img.readUInt16BE(16);
    const interiors = interiorPages(img, pageSize).filter((p) => p !== 1);
    // the table's root is the interior page that no other page points to; point its right child at itself
    const root = interiors[0];
    img.writeUInt32BE(root, (root - 1) * pageSize + 8);
    assert.match(tableTreeProblem(imagePages(img)!, root) ?? '', /reached twice/);
  });
});
