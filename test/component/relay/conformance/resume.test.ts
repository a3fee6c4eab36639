// Cursors are positions in the source files, so a client resumes with nothing lost or doubled
// whichever relay it reconnects to: after kill -9 of each runtime and a restart, and across
// runtimes — a Node relay replaced by a Python one on the same port (as the Ray relay job may be
// on a node without Node) and the other way round.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import type { RelayPoint } from '../../../harness/relay-points';
import { sleep, until } from '../../../harness/wait';
import { TAGS, appendOverTime, appendSteps, expectedKeys } from '../appender';
import { collect, tmpDir } from '../helpers';
import { closeSharedSqlWriter, noTrinity, sharedSqlWriter } from '../trinity-sql-writer';
import { PYTHON_RUNTIMES, RelayRuntime, eachRuntime, once, relaySkipReason, startRelay } from './helpers';

after(closeSharedSqlWriter);

const keys = (pts: RelayPoint[]) => pts.map((p) => `${p.tag}@${p.step}=${p.value}`).sort();

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** 0 lost, 0 duplicated: the keys received are exactly the keys written. */
function assertExactly(got: string[], want: string[], who: string): void {
  const seen = new Map<string, number>();
  for (const k of got) seen.set(k, (seen.get(k) ?? 0) + 1);
  const wantSet = new Set(want);
  const report = {
    lost: want.filter((k) => !seen.has(k)).slice(0, 5),
    duplicated: [...seen]
      .filter(([, n]) => n > 1)
      .map(([k]) => k)
      .slice(0, 5),
    extra: got.filter((k) => !wantSet.has(k)).slice(0, 5),
  };
  assert.deepEqual(report, { lost: [], duplicated: [], extra: [] }, who);
  assert.equal(got.length, want.length, who);
}

/** A writer appends for a while; the relay of `first` is killed mid-stream and `second` takes
 *  over on the same port; the client holds every point once. */
async function handover(first: RelayRuntime, second: RelayRuntime): Promise<void> {
  const dir = tmpDir('conf-resume-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, 400);
  const port = String(await freePort());
  const args = ['--logdir', dir, '--port', port, '--poll-interval', '100'];
  let relay = await startRelay(args, { runtime: first });
  const c = collect({ url: relay.url, backoff: { initialMs: 50, maxMs: 200 } });
  try {
    const writing = appendOverTime(file, 400, 2400, 40, 10);
    await c.until((p) => p.length > 1200, 60_000);
    await relay.stop('SIGKILL');
    const before = c.points.length;
    await sleep(300); // the client is in backoff; the writer goes on
    relay = await startRelay(args, { runtime: second });
    await writing;
    const total = 2400 * TAGS.length;
    await c.until((p) => p.length >= total, 60_000);
    await sleep(300);
    assert.ok(before < total, 'the relay died mid-stream');
    assert.ok(c.client.stats.connects >= 2, 'the client reconnected');
    assertExactly(keys(c.points), expectedKeys(2400), `${first} killed, ${second} took over`);
    assert.equal(c.client.stats.staleBatches, 0);
  } finally {
    await c.client.close();
    await relay.stop('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

eachRuntime('kill -9 mid-stream and a restart: the client resumes with 0 lost, 0 duplicated', { timeout: 180_000 }, (runtime) => handover(runtime, runtime));

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `a Node relay killed, the Python relay takes over on its port: 0 lost, 0 duplicated [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 180_000 },
    () => handover('node', runtime),
  );
  test(
    `a Python relay killed, the Node relay takes over on its port: 0 lost, 0 duplicated [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 180_000 },
    () => handover(runtime, 'node'),
  );
}

// SQL rows: the cursor is the row id, and the window of the client's recent rows (a digest per 4
// rows) tells a relay that did not send them which rows changed while it was away: after kill -9
// and a restart — of the same runtime, or of the other one — every row comes once as new, and
// only the rows that changed meanwhile come again as updates.

/** Whether the Node relay of this tree writes the window into SQL cursors (its relay hardening). */
const nodeWindows = once(async () => {
  const job = path.join(tmpDir('conf-sqlfid-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const py = sharedSqlWriter();
  await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
  await py.call({ op: 'write', first: 0, count: 4, group: 4, version: 1 });
  const relay = await startRelay(['--job-dir', job], { runtime: 'node' });
  const c = collect({ url: relay.url });
  let fid = '';
  c.client.on('experiences', (m) => (fid = m.cursor.fid ?? ''));
  try {
    await until('a row', () => fid, 60_000);
    return fid.includes('~');
  } finally {
    await c.client.close();
    await relay.stop();
  }
});

async function sqlHandover(first: RelayRuntime, second: RelayRuntime, third: RelayRuntime): Promise<void> {
  const job = path.join(tmpDir('conf-sqlresume-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const py = sharedSqlWriter();
  const port = String(await freePort());
  const args = ['--job-dir', job, '--port', port, '--poll-interval', '200'];
  let relay = await startRelay(args, { runtime: first });
  const c = collect({ url: relay.url, backoff: { initialMs: 50, maxMs: 200 } });
  const fresh = new Map<number, ExperienceRow>();
  const updated: number[] = [];
  let repeated = 0;
  c.client.on('experiences', (m) => {
    for (const r of m.rows) {
      if (r.updated) updated.push(r.id);
      else if (fresh.has(r.id)) repeated++;
      if (!r.updated) fresh.set(r.id, r);
    }
  });
  try {
    await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
    await py.call({ op: 'write', first: 0, count: 40, group: 8, version: 1 });
    await until('40 rows', () => fresh.size === 40, 60_000);
    await relay.stop('SIGKILL');
    // While no relay runs, the trainer reads 6 of the rows the client has (Trinity takes the
    // newest unread first), and the writer adds more.
    await py.call({ op: 'read', count: 6 });
    await py.call({ op: 'write', first: 40, count: 40, group: 8, version: 2 });
    relay = await startRelay(args, { runtime: second });
    await until('80 rows', () => fresh.size === 80, 60_000);
    await until('the rows read, again', () => updated.length >= 9, 60_000);
    await relay.stop('SIGKILL');
    await py.call({ op: 'write', first: 80, count: 24, group: 8, version: 3 });
    relay = await startRelay(args, { runtime: third });
    await until('104 rows', () => fresh.size === 104, 60_000);
    await sleep(1000);
    assert.equal(repeated, 0, 'no row came twice as new');
    assert.deepEqual(
      [...fresh.keys()].sort((a, b) => a - b),
      Array.from({ length: 104 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      [...updated].sort((a, b) => a - b),
      [32, 33, 34, 35, 36, 37, 38, 39, 40],
      'only the rows of the 4-row groups that changed while no relay ran came again',
    );
  } finally {
    await c.client.close();
    await relay.stop('SIGKILL');
  }
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `the SQL buffer across kill -9 of the Python relay: every row once as new, only the changed rows again [${runtime}]`,
    { skip: noTrinity || relaySkipReason(runtime), timeout: 240_000 },
    () => sqlHandover(runtime, runtime, runtime),
  );
  test(
    `the SQL buffer across kill -9 and a change of runtime (Node, Python, Node) [${runtime}]`,
    { skip: noTrinity || relaySkipReason(runtime), timeout: 300_000 },
    async (t) => {
      if (!(await nodeWindows()))
        return t.skip(
          'the Node relay of this tree writes no window into SQL cursors (it predates the relay hardening): a restarted Node relay re-sends recent rows',
        );
      await sqlHandover('node', runtime, 'node');
    },
  );
}

// The SQL buffer while Trinity's writer keeps writing, the relay killed (kill -9) and started
// again several times at moments the writer picks: the rows it wrote are never changed, so none
// may come again — not as new, not as `updated`.
eachRuntime(
  'the SQL buffer under a writer, across 5 kill -9 restarts: every row once as new, none re-sent',
  { skip: noTrinity, timeout: 300_000 },
  async (runtime) => {
    const job = path.join(tmpDir('conf-sqlrestart-'), 'run');
    fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
    const py = sharedSqlWriter();
    const port = String(await freePort());
    const args = ['--job-dir', job, '--port', port, '--poll-interval', '200'];
    await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
    await py.call({ op: 'write', first: 0, count: 16, group: 8, version: 1 });
    let relay = await startRelay(args, { runtime });
    const c = collect({ url: relay.url, backoff: { initialMs: 50, maxMs: 200 } });
    const fresh = new Set<number>();
    const updated: number[] = [];
    let repeated = 0;
    c.client.on('experiences', (m) => {
      for (const r of m.rows) {
        if (r.updated) updated.push(r.id);
        else if (fresh.has(r.id)) repeated++;
        else fresh.add(r.id);
      }
    });
    let written = 16;
    try {
      for (let round = 0; round < 5; round++) {
        // The writer goes on while the client catches up; the relay dies somewhere in between.
        for (let k = 0; k < 3; k++) {
          const n = round < 2 ? 24 : 400;
          await py.call({ op: 'write', first: written, count: n, group: 8, version: 2 + round });
          written += n;
          if (k === round % 3) await until(`some rows of round ${round}`, () => fresh.size > written - 2 * n, 60_000);
        }
        await relay.stop('SIGKILL');
        await py.call({ op: 'write', first: written, count: 8, group: 8, version: 2 + round });
        written += 8;
        relay = await startRelay(args, { runtime });
        await until(`${written} rows`, () => fresh.size >= written, 60_000);
      }
      await sleep(1000);
      assert.equal(repeated, 0, 'no row came twice as new');
      assert.equal(fresh.size, written);
      assert.deepEqual(updated, [], 'no unchanged row came again as updated');
    } finally {
      await c.client.close();
      await relay.stop('SIGKILL');
    }
  },
);
