// A source that fails on every read is reported once, then as a count, then as recovered —
// a user saw 27 313 identical "database disk image is malformed" warnings in two minutes,
// one per pump round while a busy event file kept the session's loop turning. Here a real relay
// and client; the digest alone (with its clock injected) is test/unit/relay/serve/error-digest.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../../src/relay/serve/relay';
import type { Logger } from '../../../../src/base/log';
import { appendSteps } from '../appender';
import { collect, tmpDir } from '../helpers';
import { until } from '../../../harness/wait';

function memoryLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (m: string | Error) => void lines.push(`${level} ${m instanceof Error ? m.message : m}`);
  return { lines, trace: () => undefined, debug: () => undefined, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Trinity's experience table (columns of its ExperienceModel) with `rows` rows of ~1 KB. */
async function experienceDb(rows: number): Promise<Buffer> {
  type SqlJs = { Database: new () => { run(s: string, p?: unknown[]): void; export(): Uint8Array; close(): void } };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const init = require('sql.js/dist/sql-wasm-inline.js') as () => Promise<SqlJs>;
  const SQL = await init();
  const db = new SQL.Database();
  db.run(
    'CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward FLOAT, timestamp TEXT, experience_bytes BLOB)',
  );
  for (let i = 1; i <= rows; i++)
    db.run('INSERT INTO experience_buffer VALUES (?, ?, 0, 1, 0.5, ?, ?)', [i, `t${i}`, '2026-11-24', new Uint8Array(1000).fill(i & 255)]);
  const out = Buffer.from(db.export());
  db.close();
  return out;
}

test('a corrupt SQLite buffer next to a busy event file: one warning, not one per round; then recovery', { timeout: 60_000 }, async () => {
  const dir = tmpDir('relay-flood-');
  const tb = path.join(dir, 'monitor', 'tensorboard', 'trainer');
  fs.mkdirSync(tb, { recursive: true });
  fs.mkdirSync(path.join(dir, 'buffer'));
  const events = path.join(tb, 'events.out.tfevents.1.node');
  appendSteps(events, 0, 20_000);
  const good = await experienceDb(200);
  // Pages 1-2 (schema, root) intact, the table's leaves garbage: every SELECT is "malformed".
  const bad = Buffer.from(good);
  const pageSize = bad.readUInt16BE(16);
  bad.fill(0xa5, 2 * pageSize);
  const db = path.join(dir, 'buffer', 'exp.db');
  fs.writeFileSync(db, bad);
  const log = memoryLog();
  // Small batches: the session's loop turns ~hundreds of times while it catches up.
  const relay = new Relay({ ...RELAY_DEFAULTS, root: { mode: 'job', dir }, port: 0, token: undefined, allowOrigins: [], log, batchBytes: 4096 });
  const url = await relay.start();
  const c = collect({ url });
  const errors: string[] = [];
  c.client.on('error', (e) => errors.push(e.message));
  let rows = 0;
  c.client.on('experiences', (m) => (rows += m.rows.length));
  try {
    await c.until((p) => p.length >= 40_000, 40_000);
    const malformed = log.lines.filter((l) => /malformed/.test(l));
    assert.ok(malformed.length >= 1, `the failure is reported: ${log.lines.join('\n')}`);
    assert.equal(malformed.length, 1, `reported once, not per round:\n${malformed.slice(0, 5).join('\n')}`);
    assert.equal(errors.filter((e) => /malformed/.test(e)).length, 1, 'the client is told once');
    // The writer repairs the file (a new inode): the next poll reads it and says so.
    fs.writeFileSync(`${db}.tmp`, good);
    fs.renameSync(`${db}.tmp`, db);
    await until('the recovery', () => rows >= 200 && log.lines.some((l) => /recovered after \d+ failed attempt/.test(l))).catch((e: Error) =>
      assert.fail(`${e.message}: rows=${rows}\n${log.lines.slice(-10).join('\n')}`),
    );
    assert.equal(rows, 200);
  } finally {
    await c.client.close();
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
