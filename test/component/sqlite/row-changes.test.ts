// Rows that change after they were streamed, in buffers written by Trinity-RFT 0.5.2's own
// classes (test/fixtures/relay/trinity_sql_buffer.py): serve mode's HistoryRecorder writes
// proxy_history rows with no reward and rewards them when /feedback arrives; the SQL
// experience buffer's rows carry the reward function's parts and GRPO advantages, and the
// trainer's read bumps `consumed`. The relay re-sends exactly the rows that changed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { RELAY_DEFAULTS, Relay } from '../../../src/relay/serve/relay';
import { RelayClient } from '../../../src/relay-protocol/client';
import type { Cursor, ExperienceRow } from '../../../src/relay-protocol/messages';
import { silentLogger } from '../../../src/base/log';
import { until as waitUntil } from '../../harness/wait';
import { tmpDir } from '../../unit/relay/helpers';
import { closeSharedSqlWriter, WrittenRow, noTrinity, sharedSqlWriter } from '../relay/trinity-sql-writer';

after(closeSharedSqlWriter);

function relayOn(job: string): Relay {
  return new Relay({ ...RELAY_DEFAULTS, root: { mode: 'job', dir: job }, port: 0, token: undefined, allowOrigins: [], log: silentLogger, pollMs: 200 });
}

/** A client of `relay` (a new one on `job` when a path) that keeps the latest version of every row. */
async function watch(on: string | Relay, cursors?: Cursor[]) {
  const relay = typeof on === 'string' ? relayOn(on) : on;
  const url = typeof on === 'string' ? await relay.start() : relay.url();
  const client = new RelayClient({ url, backoff: { initialMs: 20, maxMs: 200 }, cursors });
  const rows = new Map<number, ExperienceRow>();
  const updates: ExperienceRow[] = [];
  client.on('experiences', (m) => {
    for (const r of m.rows) {
      rows.set(r.id, r);
      if (r.updated) updates.push(r);
    }
  });
  client.start();
  const until = (what: string, ok: () => boolean) => waitUntil(what, ok, 30_000, 50);
  const close = async () => {
    await client.close();
    await relay.close();
  };
  return { client, relay, rows, updates, until, close };
}

test(
  'serve mode (HistoryRecorder): a reward given by /feedback after the row was written streams as an update of that row only',
  { skip: noTrinity, timeout: 240_000 },
  async () => {
    const job = tmpDir('relay-history-');
    fs.mkdirSync(path.join(job, 'buffer'));
    const py = sharedSqlWriter();
    const ids = Array.from({ length: 3000 }, (_, i) => `chatcmpl-${i}`);
    try {
      await py.call({ op: 'history', db: path.join(job, 'buffer', 'proxy_history.db') });
      await py.call({ op: 'record', msg_ids: ids, version: 2 });
      const w = await watch(job);
      try {
        await w.until('3000 rows', () => w.rows.size === 3000);
        const byMsg = (m: string) => [...w.rows.values()].find((r) => r.msg_id === m)!;
        assert.equal(byMsg('chatcmpl-7').reward, null);
        assert.equal(byMsg('chatcmpl-7').consumed, 0);
        await py.call({ op: 'feedback', msg_ids: ['chatcmpl-7', 'chatcmpl-8'], reward: 0.75, task_id: 't1', run_id: 1 });
        await w.until('the rewards of 2 rows', () => byMsg('chatcmpl-8').reward === 0.75 && byMsg('chatcmpl-7').reward === 0.75);
        const r7 = byMsg('chatcmpl-7');
        assert.deepEqual([r7.task_id, r7.run_id, r7.consumed, r7.updated], ['t1', 1, 1, true]);
        await py.call({ op: 'feedback', msg_ids: ['chatcmpl-2999'], reward: -1, task_id: 't2', run_id: 0 });
        await w.until('the reward of the last row', () => byMsg('chatcmpl-2999').reward === -1);
        // The consumed index pages that changed name exactly the rewarded rows: no window re-read.
        assert.deepEqual(w.updates.map((r) => r.msg_id).sort(), ['chatcmpl-2999', 'chatcmpl-7', 'chatcmpl-8']);
        assert.equal(byMsg('chatcmpl-9').reward, null);
        const detail = await w.client.requestExperience(w.client.sources().find((x) => x.kind === 'sql')!.id, r7.id);
        assert.equal(detail.reward, 0.75, "the detail shows the reward column, as Trinity's to_experience does (the bytes predate /feedback)");
        // A client that reconnects to the same relay gets exactly the reward it missed.
        let cursors = w.client.cursors();
        await w.client.close();
        await py.call({ op: 'feedback', msg_ids: ['chatcmpl-2500'], reward: 0.5, task_id: 't3', run_id: 0 });
        await new Promise((r) => setTimeout(r, 1500)); // the relay reads the change with no client connected
        const back = await watch(w.relay, cursors);
        await back.until('the missed reward', () => back.rows.get(2501)?.reward === 0.5);
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual([...back.rows.keys()], [2501], 'only the missed change, no new rows, no window');
        cursors = back.client.cursors();
        await back.close();

        // A restarted relay does not know what changed meanwhile: it re-sends a bounded window of recent rows.
        await py.call({ op: 'feedback', msg_ids: ['chatcmpl-2600'], reward: 0.25, task_id: 't4', run_id: 0 });
        const again = await watch(job, cursors);
        try {
          await again.until('the missed reward', () => again.rows.get(2601)?.reward === 0.25);
          assert.ok(again.updates.length <= 1000, `a resume re-sends a bounded window (${again.updates.length})`);
        } finally {
          await again.close();
        }
      } finally {
        await w.close().catch(() => undefined);
      }
    } finally {
      fs.rmSync(job, { recursive: true, force: true });
    }
  },
);

test(
  'SQL experience buffer (SQLExperienceStorage): rows carry reward parts and GRPO advantages; the trainer read updates consumed',
  { skip: noTrinity, timeout: 240_000 },
  async () => {
    const job = tmpDir('relay-sqlbuf-');
    fs.mkdirSync(path.join(job, 'buffer'));
    const py = sharedSqlWriter();
    try {
      await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'experience_buffer.db'), table: 'experience_buffer' });
      const written = (await py.call<{ rows: WrittenRow[] }>({ op: 'write', first: 0, count: 16, group: 4, version: 1 })).rows;
      const w = await watch(job);
      try {
        await w.until('16 rows', () => w.rows.size === 16);
        for (const [i, want] of written.entries()) {
          const r = w.rows.get(i + 1)!;
          assert.equal(r.reward, want.reward);
          assert.deepEqual(r.metrics, want.metrics, 'the reward function parts, from experience.metrics');
          assert.ok(Math.abs(Number(r.advantage) - want.advantage) < 1e-6, `advantage ${r.advantage} vs ${want.advantage}`);
          assert.equal(r.consumed, 0);
        }
        assert.ok(new Set(written.map((x) => x.advantage.toFixed(3))).size > 1, 'the group has different advantages');
        await py.call({ op: 'read', count: 4 }); // newest first: rows 13..16
        await w.until('consumed on 4 rows', () => w.updates.length >= 4);
        await new Promise((r) => setTimeout(r, 800));
        assert.deepEqual(
          w.updates.map((r) => r.id).sort((a, b) => a - b),
          [13, 14, 15, 16],
        );
        assert.ok(w.updates.every((r) => r.consumed === 1 && r.metrics !== undefined));
        assert.equal(w.rows.get(1)!.consumed, 0);
      } finally {
        await w.close();
      }
    } finally {
      fs.rmSync(job, { recursive: true, force: true });
    }
  },
);
