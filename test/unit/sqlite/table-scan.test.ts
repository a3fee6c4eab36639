// The tasks fold reads new rows from the table's pages (table-scan.ts) instead of a SELECT: on
// tables SQLite wrote (sql.js) — rows whose payload spills over one page or many, empty and NULL
// blobs, a reward stored as an integer, text and integer task ids, 512- and 4096-byte pages, a
// three-level b-tree, older records shorter than newer ones (a column added later) — the rows it
// gives, summaries included, are the SELECT's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { SqlDatabaseSnapshot, SqlTableSource } from '../../../src/relay/sources/sql-source';
import { NotScannable } from '../../../src/sqlite/table-scan';
import { silentLogger } from '../../../src/base/log';
import type { ExperienceRow } from '../../../src/relay-protocol/messages';
import { rng } from '../../harness/rng';

const tmpDir = (prefix: string): string => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

interface Db {
  run(sql: string, params?: unknown[]): void;
  export(): Uint8Array;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SQL = (require('sql.js/dist/sql-wasm-inline.js') as () => Promise<{ Database: new (d?: Uint8Array) => Db }>)();

/** A bench-like row's pickled metadata (Python's pickle, protocol 5). */
const META = Buffer.from(
  '800595e0020000000000007d94288c0776657273696f6e944b018c096e756d5f6974656d73944b018c056974656d73945d947d94288c03656964947d94288c056261746368944b038c047461736b948c0137948c0372756e944b018c0473746570944b008c06737566666978948c0a63686174636d706c2d3194758c0672657761726494473fe80000000000008c0f7472756e636174655f737461747573944e8c04696e666f947d94288c0d6d6f64656c5f76657273696f6e944b048c0a7461736b5f696e646578947d94288c05696e646578944b118c0a7461736b7365745f6964944b0275758c076d657472696373947d94288c08616363757261637994473ff00000000000008c0c666f726d61745f73636f726594473fb999999999999a8c0670617373656494888c046e6f7465948c026f6b94758c0d70726f6d70745f6c656e677468944b2a8c0d726573706f6e73655f74657874948c1254686520616e73776572202069730a203432948c0b70726f6d70745f7465787494582c010000717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171717171948c086d65737361676573944e8c0d637573746f6d5f6669656c6473945d948c166d756c74695f6d6f64616c5f696e7075745f6b657973945d947561752e',
  'hex',
);

/** A TRXP blob with that metadata and `pad` bytes of tensors (its length decides how far it spills). */
function trxp(pad: number): Uint8Array {
  const json = Buffer.from('{"0:action_mask":{"dtype":"BOOL","shape":[' + pad + '],"data_offsets":[0,' + pad + ']}}');
  const head = Buffer.alloc(21);
  head.write('TRXP', 0, 'latin1');
  head.writeBigUInt64LE(BigInt(META.length), 5);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([head, META, len, json, Buffer.alloc(pad, 1)]);
}

async function image(pageSize: number, rows: number, alter = false): Promise<Buffer> {
  const db = new (await SQL).Database();
  db.run(`PRAGMA page_size = ${pageSize}`);
  db.run(
    'CREATE TABLE experience_buffer (id INTEGER NOT NULL, timestamp DATETIME, task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER, experience_bytes BLOB, reward FLOAT, consumed INTEGER, PRIMARY KEY (id))',
  );
  db.run('CREATE INDEX ix_experience_buffer_consumed ON experience_buffer (consumed)');
  const r = rng(7);
  const insert = (i: number): void => {
    const kind = i % 7;
    const bytes = kind === 0 ? null : kind === 1 ? new Uint8Array(0) : kind === 2 ? new Uint8Array(100).fill(i & 255) : trxp([10, 3000, 9000, 70000][kind % 4]);
    const reward = kind === 3 ? null : kind === 4 ? 1 : r();
    db.run(
      'INSERT INTO experience_buffer (id, timestamp, task_id, run_id, msg_id, model_version, experience_bytes, reward, consumed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [i, '2026-01-01 00:00:0' + (i % 10) + ' é', kind === 5 ? i : 't' + i, i % 4, kind === 6 ? null : 'm' + i, Math.floor(i / 50), bytes, reward, i % 2],
    );
  };
  db.run('BEGIN');
  for (let i = 1; i <= rows; i++) {
    if (alter && i === Math.floor(rows / 2)) db.run('ALTER TABLE experience_buffer ADD COLUMN extra TEXT');
    insert(i);
  }
  db.run('COMMIT');
  const out = Buffer.from(db.export());
  db.close();
  return out;
}

/** Every row the tasks reader gives, from the pages or (scan: false) by the SELECT. */
async function rowsOf(file: string, scan: boolean): Promise<ExperienceRow[]> {
  const snap = new SqlDatabaseSnapshot(file, silentLogger, 0);
  if (!scan)
    snap.scan = () => {
      throw new NotScannable('off');
    };
  const reader = new SqlTableSource({ id: 'sql:x', kind: 'sql', run: 'r', role: 'experience_buffer', path: 'x.db' }, snap, 'experience_buffer').openForTasks();
  const out: ExperienceRow[] = [];
  try {
    for (let b = await reader.next(1 << 20), idle = 0; idle < 3; b = await reader.next(1 << 20)) {
      if (b?.type === 'experiences') out.push(...b.rows);
      else idle++;
    }
  } finally {
    reader.close();
    snap.close();
  }
  return out;
}

for (const [pageSize, rows] of [
  [512, 700],
  [4096, 400],
] as const)
  test(`${pageSize}-byte pages: the rows read from the pages are the SELECT's`, async () => {
    const file = path.join(tmpDir('table-scan-'), 'buffer.db');
    fs.writeFileSync(file, await image(pageSize, rows));
    const scanned = await rowsOf(file, true);
    const selected = await rowsOf(file, false);
    assert.equal(selected.length, rows);
    assert.deepEqual(scanned, selected);
    // the summaries were read (a TRXP row's task and response length)
    assert.ok(scanned.some((r) => r.task_index === 17 && r.response_tokens === 70000));
  });

test('a table whose older records lack a column added later: the same rows', async () => {
  const file = path.join(tmpDir('table-scan-'), 'buffer.db');
  fs.writeFileSync(file, await image(1024, 300, true));
  assert.deepEqual(await rowsOf(file, true), await rowsOf(file, false));
});
