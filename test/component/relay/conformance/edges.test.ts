// Edge cases both relays must meet alike (the Node relay and its Python twin on Python 3.8 and
// the current python3), each one a bug one of them had: a live log line over the line limit, a
// client that pipelines many requests while it reads, a bad byte in one SQL row, token files
// that are not files, token values in URLs, and `tokens` answers for odd rows.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { relayCommand } from '../../../harness/relay';
import { WireRefused, helloFrom } from '../../../harness/relay-wire';
import { appendSteps, TAGS } from '../appender';
import { tmpDir } from '../helpers';
import { TrinitySqlWriter, noTrinity } from '../trinity-sql-writer';
import { PYTHON_RUNTIMES, type RelayRuntime, assertSameStream, eachRuntime, once, relaySkipReason, startRelay, streamFrom } from './helpers';

const TOKEN = 'edges-token-0123456789abcdef';

const stepLine = (step: number) => `INFO 11-24 10:00:01 [monitor.py:135] Step ${step}: {'actor/pg_loss': ${step / 4}, 'critic/score': ${step}}\n`;

eachRuntime('a live log line over the 4 MiB line limit is skipped once: no step read twice', {}, async (runtime) => {
  const job = tmpDir('conf-longline-');
  fs.mkdirSync(path.join(job, 'log'));
  const log = path.join(job, 'log', 'explorer.log');
  fs.writeFileSync(log, Array.from({ length: 20 }, (_, i) => stepLine(i + 1)).join(''));
  const relay = await startRelay(['--job-dir', job], { runtime });
  try {
    const c = await helloFrom(relay.url);
    c.subscribe();
    const steps = () =>
      c
        .points()
        .filter((p) => p.tag === 'actor/pg_loss')
        .map((p) => p.step);
    await c.waitFor('steps 1-20', () => steps().length >= 20, 60_000);
    // A 5 MiB line (a dumped prompt, say), then nothing for as long as the relay takes to skip it.
    fs.appendFileSync(log, `INFO ${'x'.repeat(5 * 1024 * 1024)}\n`);
    const skipped = () => /longer than/.test(relay.stderr());
    await c.waitFor('the relay to skip the long line', () => skipped() || steps().length > 20, 60_000);
    for (let s = 21; s <= 40; s++) fs.appendFileSync(log, stepLine(s));
    await c.waitFor('step 40', () => steps().includes(40), 60_000);
    assert.deepEqual(
      steps(),
      Array.from({ length: 40 }, (_, i) => i + 1),
      'every step once, in order',
    );
    assert.doesNotMatch(relay.stderr(), /truncated/);
    c.close();
  } finally {
    await relay.stop();
  }
});

eachRuntime('a reading client that pipelines 200 requests gets 200 answers and stays connected', {}, async (runtime) => {
  const dir = tmpDir('conf-pipeline-');
  const file = path.join(dir, 'events.out.tfevents.1.node');
  appendSteps(file, 0, 1000);
  const relay = await startRelay(['--logdir', dir], { runtime });
  try {
    const c = await helloFrom(relay.url);
    c.subscribe();
    await c.waitFor('the points', () => c.points().length === 1000 * TAGS.length, 60_000);
    const st = fs.statSync(file);
    const source = (c.of('hello')[0].sources as { id: string }[])[0].id;
    for (let i = 0; i < 200; i++)
      c.send({
        type: 'detail',
        request: i,
        source,
        tag: TAGS[0],
        from: i,
        to: i + 10,
        maxPoints: 100,
        cursor: { source, fid: `${st.dev}:${st.ino}`, offset: st.size },
      });
    await c.waitFor('200 answers', () => c.of('detail').length === 200 || c.closed !== undefined, 120_000);
    assert.equal(c.closed, undefined, `cut off: ${JSON.stringify(c.of('error'))}`);
    assert.deepEqual(
      c.of('detail').map((a) => a.request),
      Array.from({ length: 200 }, (_, i) => i),
    );
    assert.ok(c.of('detail').every((a) => (a.points as { step: number[] }).step.length === 11));
    c.close();
  } finally {
    await relay.stop();
  }
});

// Trinity's SQL buffer with one row whose timestamp holds a byte that is not UTF-8 (a damaged page).
const badByteJob = once(async () => {
  const job = path.join(tmpDir('conf-badbyte-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const db = path.join(job, 'buffer', 'exp.db');
  const py = new TrinitySqlWriter();
  try {
    await py.call({ op: 'buffer', db, table: 'experience_buffer' });
    await py.call({ op: 'write', first: 0, count: 40, group: 8, version: 1 });
  } finally {
    await py.close();
  }
  const r = spawnSync(
    'python3',
    [
      '-c',
      'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE experience_buffer SET timestamp = CAST(X\'323032362D30312D3031B6\' AS TEXT) WHERE id = 7"); c.commit()',
      db,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  return job;
});
const badByteRef = once(async () => streamFrom('node', ['--job-dir', await badByteJob()]));

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `one bad UTF-8 byte in one SQL row's timestamp costs that value, not the table: the same rows [${runtime}]`,
    { skip: noTrinity || relaySkipReason(runtime), timeout: 240_000 },
    async () => {
      const ref = await badByteRef();
      assert.equal(Object.keys(ref.rows).length, 40, 'the reference streams every row');
      assertSameStream(await streamFrom(runtime, ['--job-dir', await badByteJob()]), ref, runtime);
    },
  );
}

// ---- token files and token values in URLs ---------------------------------------------------

/** The exit code and first stderr line of a relay started with `--token-file file` (it never hangs). */
function tokenFileRun(runtime: RelayRuntime, dir: string, file: string): { code: number | null; first: string } {
  const cmd = relayCommand(['--logdir', dir, '--port', '0', '--token-file', file, '--exit-when-idle', '0.2'], runtime);
  const r = spawnSync(cmd.file, cmd.args, { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '' } });
  return { code: r.status, first: r.stderr.split('\n')[0].replace(file, '<file>') };
}

eachRuntime(
  'token files: a FIFO and /dev/zero are refused at once, an oversized file too, a UTF-8 BOM is stripped; the token in the URL is refused',
  {},
  async (runtime) => {
    const dir = tmpDir('conf-tokenfile-');
    const fifo = path.join(dir, 'fifo');
    assert.equal(spawnSync('python3', ['-c', 'import os, sys; os.mkfifo(sys.argv[1])', fifo]).status, 0);
    const big = path.join(dir, 'big');
    fs.writeFileSync(big, `${TOKEN}${' '.repeat(5000)}`);
    for (const file of [fifo, '/dev/zero'])
      assert.deepEqual(tokenFileRun(runtime, dir, file), { code: 2, first: 'agentrl relay: token file <file> is not a regular file' }, file);
    assert.deepEqual(tokenFileRun(runtime, dir, big), {
      code: 2,
      first: 'agentrl relay: token file <file> must hold exactly one token: it is longer than 4096 bytes',
    });
    const bom = path.join(dir, 'bom');
    fs.writeFileSync(bom, `\ufeff${TOKEN}\n`, { mode: 0o600 });
    const relay = await startRelay(['--logdir', dir, '--token-file', bom], { runtime });
    try {
      const c = await helloFrom(relay.url, { token: TOKEN });
      c.close();
      for (const p of [`/?x=${TOKEN}`, `/${TOKEN}`, '/?a=1,token=x', '/?a=1+token=x', '/?a=1%09token=x']) {
        await assert.rejects(helloFrom(relay.url, { token: TOKEN, path: p }), (e: WireRefused) => e.status === 400, p);
      }
    } finally {
      await relay.stop();
    }
  },
);
