// One protocol, two relays: the same job dirs — written by real TensorBoard writers
// (tensorboardX, torch.utils.tensorboard, TF2), by Trinity-RFT 0.5.2's own buffer classes, by
// the demo trainer — streamed by the Node relay and by its Python twin (on Python 3.8 and on the
// current python3) give the same `agentrl tail --json` output: every point of every series in
// the same order with the same step, wall time and value, every experience row with the same
// fields, changed rows as the same updates. The Node relay is the reference; it is checked
// against what the writers wrote, so the two never agree on something wrong.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import { repoRoot, sharedDir } from '../../../harness/paths';
import { until } from '../../../harness/wait';
import { hasTbx, pythonAsync, tmpDir, writers } from '../helpers';
import { TrinitySqlWriter, noTrinity } from '../trinity-sql-writer';
import {
  PYTHON_RUNTIMES,
  RelayRuntime,
  assertSameStream,
  eachRuntime,
  liveTail,
  once,
  pointCount,
  relaySkipReason,
  startRelay,
  streamFrom,
  streamOf,
} from './helpers';

const trinityPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const noWriters = !hasTbx && 'needs tensorboardX, torch and tensorflow in .cache/venv (scripts/setup.sh python)';

// ---- real TensorBoard writers: every encoding of a scalar ---------------------------------

const encodings = once(async () => {
  const dir = tmpDir('conf-enc-');
  const expected = JSON.parse(await pythonAsync([writers, 'encodings', dir])) as { run: string; tag: string; step: number; value: number }[];
  return { dir, expected };
});
const encodingsRef = once(async () => streamFrom('node', ['--logdir', (await encodings()).dir]));

eachRuntime('tensorboardX, torch (old and new style, f32 and f64) and TF2 event files: the same points', { skip: noWriters }, async (runtime) => {
  const { dir, expected } = await encodings();
  const ref = await encodingsRef();
  if (runtime === 'node') {
    const got = Object.entries(ref.series).flatMap(([k, l]) =>
      l.map(([step, , value]) => `${k.split('/')[0]}|${k.split('/').slice(2).join('/')}|${step}|${value}`),
    );
    assert.deepEqual(got.sort(), expected.map((e) => `${e.run}|${e.tag}|${e.step}|${e.value}`).sort(), 'the reference reads what the writers wrote');
    return;
  }
  assertSameStream(await streamFrom(runtime, ['--logdir', dir]), ref, runtime);
});

// ---- a Trinity-shaped job dir: event files of two roles + the SQL buffer (TRXP rows) ---------

const trinityJob = once(async () => {
  const job = path.join(tmpDir('conf-job-'), 'job-run');
  const expected = JSON.parse(await pythonAsync([path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), 'write', job, '0', '40'])) as unknown[];
  return { job, expected };
});
const trinityRef = once(async () => streamFrom('node', ['--job-dir', (await trinityJob()).job]));

eachRuntime(
  'a Trinity job dir (tensorboardX event files of explorer and trainer, SQLite buffer with TRXP rows): the same points and rows',
  { skip: noWriters },
  async (runtime) => {
    const { job, expected } = await trinityJob();
    const ref = await trinityRef();
    if (runtime === 'node') {
      assert.equal(pointCount(ref), expected.length, 'the reference streams every point written');
      assert.equal(Object.keys(ref.rows).length, 160, 'and every row of the buffer');
      assert.ok(
        Object.values(ref.rows).every((r) => typeof r.reward === 'number' && r.metrics),
        'rows carry their reward parts',
      );
      return;
    }
    assertSameStream(await streamFrom(runtime, ['--job-dir', job]), ref, runtime);
  },
);

// ---- the demo trainer (stdlib writer), one role read from its Step lines ------------------

const demoJob = once(() => {
  const job = path.join(tmpDir('conf-demo-'), 'demo-run');
  const r = spawnSync(
    'python3',
    [path.join(repoRoot, 'demo', 'demo_trainer.py'), '--job-dir', job, '--steps', '30', '--step-seconds', '0', '--model-url', ''],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  // The trainer role without its event files: the relay reads its `Step N: {...}` log lines.
  fs.rmSync(path.join(job, 'monitor', 'tensorboard', 'trainer'), { recursive: true, force: true });
  return job;
});
const demoRef = once(async () => streamFrom('node', ['--job-dir', await demoJob()]));

eachRuntime("the demo trainer's job dir, the trainer read from its Step log lines: the same points", {}, async (runtime) => {
  const ref = await demoRef();
  if (runtime === 'node') {
    const trainer = Object.keys(ref.series).filter((k) => k.startsWith('demo-run/trainer/'));
    assert.ok(trainer.length >= 5, `trainer series from the log: ${trainer.join(', ')}`);
    assert.deepEqual(
      ref.series['demo-run/trainer/actor/pg_loss'].map((p) => p[0]),
      [...Array(30).keys()].map((i) => i + 1),
    );
    return;
  }
  assertSameStream(await streamFrom(runtime, ['--job-dir', await demoJob()]), ref, runtime);
});

// ---- Trinity's FileStorage: the queue buffer's .jsonl backup --------------------------------

const jsonlJob = once(() => {
  const job = path.join(tmpDir('conf-jsonl-'), 'run');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const r = spawnSync(
    trinityPython,
    [path.join(repoRoot, 'test', 'fixtures', 'relay', 'trinity_file_buffer.py'), path.join(job, 'buffer', 'exp.jsonl'), '0', '48'],
    {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, PYTHONPATH: trinityPythonPath() },
    },
  );
  assert.equal(r.status, 0, r.stderr);
  return job;
});
const jsonlRef = once(async () => streamFrom('node', ['--job-dir', await jsonlJob()]));

function trinityPythonPath(): string {
  return spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
}

eachRuntime("the queue buffer's .jsonl backup written by Trinity's FileStorage: the same rows", { skip: noTrinity }, async (runtime) => {
  const ref = await jsonlRef();
  if (runtime === 'node') {
    assert.equal(Object.keys(ref.rows).length, 48);
    // each line's info["task_index"] (as Trinity's workflow runner sets it) is its row's task_index
    const indices = Object.values(ref.rows).map((r) => [r.task_index, r.taskset_id]);
    assert.deepEqual(
      indices,
      Array.from({ length: 48 }, (_, i) => [Math.floor(i / 4), 0]),
    );
    return;
  }
  assertSameStream(await streamFrom(runtime, ['--job-dir', await jsonlJob()]), ref, runtime);
});

// ---- rows that change while a client watches: the trainer's read, serve mode's /feedback ------

interface Watcher {
  rows: Map<number, ExperienceRow>;
  updates: Set<number>;
  close(): Promise<void>;
}

async function watchRows(runtime: RelayRuntime, job: string): Promise<Watcher> {
  const relay = await startRelay(['--job-dir', job, '--poll-interval', '200'], { runtime });
  const client = new RelayClient({ url: relay.url, backoff: { initialMs: 20, maxMs: 200 } });
  const rows = new Map<number, ExperienceRow>();
  const updates = new Set<number>();
  client.on('experiences', (m) => {
    for (const r of m.rows) {
      if (r.updated) updates.add(r.id);
      else assert.ok(!rows.has(r.id), `${runtime}: row ${r.id} came twice as new`);
      rows.set(r.id, r);
    }
  });
  client.start();
  return {
    rows,
    updates,
    close: async () => {
      await client.close();
      await relay.stop();
    },
  };
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `Trinity's SQL buffer while its writer writes and the trainer reads, watched by both relays at once: the same rows and updates [${runtime}]`,
    { skip: noTrinity || relaySkipReason(runtime), timeout: 240_000 },
    async () => {
      const job = path.join(tmpDir('conf-sql-'), 'run');
      fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
      const py = new TrinitySqlWriter();
      const watchers: Watcher[] = [];
      try {
        await py.call({ op: 'buffer', db: path.join(job, 'buffer', 'exp.db'), table: 'experience_buffer' });
        await py.call({ op: 'write', first: 0, count: 64, group: 8, version: 1 });
        watchers.push(await watchRows('node', job), await watchRows(runtime, job));
        const [ref, got] = watchers;
        const all = (f: (w: Watcher) => boolean) => () => watchers.every(f);
        await until(
          '64 rows at both',
          all((w) => w.rows.size === 64),
          60_000,
        );
        await py.call({ op: 'read', count: 24 });
        await until(
          '24 rows consumed at both',
          all((w) => [...w.rows.values()].filter((r) => r.consumed === 1).length === 24),
          60_000,
        );
        await py.call({ op: 'write', first: 64, count: 16, group: 8, version: 2 });
        await until(
          '80 rows at both',
          all((w) => w.rows.size === 80),
          60_000,
        );
        assert.equal(ref.updates.size, 24, 'the reference re-sent exactly the rows the trainer read');
        assert.deepEqual(
          [...got.updates].sort((a, b) => a - b),
          [...ref.updates].sort((a, b) => a - b),
          'the same rows came again',
        );
        assert.ok(
          [...ref.rows.values()].some((r) => r.metrics && typeof r.advantage === 'number'),
          'rows carry reward parts and advantages',
        );
        // Trinity gives a single-turn experience an all-ones mask over its 4 response tokens; no truncation.
        for (const r of ref.rows.values())
          assert.deepEqual([r.response_tokens, r.trained_tokens, r.truncated, r.empty_response], [4, 4, false, false], `row ${r.id}: group facts`);
        // The task's stable identity, from the pickled info["task_index"] the workflow runner sets (rows of a group share it).
        for (const r of ref.rows.values()) assert.deepEqual([r.task_index, r.taskset_id], [Math.floor((r.id - 1) / 8), 0], `row ${r.id}: task_index`);
        for (const [id, r] of ref.rows) assert.deepEqual({ ...got.rows.get(id), updated: undefined }, { ...r, updated: undefined }, `row ${id}`);
      } finally {
        for (const w of watchers) await w.close();
        await py.close();
      }
    },
  );
}

// ---- a live client across a copytruncate noticed before the writer goes on -----------------

/** A Trinity monitor line; the first lines carry more metrics, so the new content stays below the old offset. */
const monitorLine = (step: number, long: boolean) =>
  `INFO 12-07 01:00:00 [monitor.py:210] Step ${step}: {'actor/loss': ${step / 4}${long ? `, 'actor/entropy': ${step / 8}, 'critic/score/mean': ${step / 16}` : ''}}\n`;

eachRuntime('a live client across a copytruncate the relay noticed first: every step written after it, once', {}, async (runtime) => {
  const job = path.join(tmpDir('conf-ct-'), 'ct-run');
  const log = path.join(job, 'log', 'explorer.log');
  fs.mkdirSync(path.dirname(log), { recursive: true });
  for (let s = 1; s <= 40; s++) fs.appendFileSync(log, monitorLine(s, true));
  const relay = await startRelay(['--job-dir', job, '--poll-interval', '100'], { runtime });
  const client = liveTail(relay.url, ['--json']);
  const steps = () => streamOf(client.stdout()).series['ct-run/explorer/actor/loss']?.map(([step]) => step) ?? [];
  try {
    await until('steps 1..40 at the live client', () => steps().length >= 40);
    fs.truncateSync(log, 0); // what logrotate's copytruncate does
    // The relay notices the truncation before anything new is written (an idle trainer).
    await until('the relay noticing the truncation', () => /truncated/.test(relay.stderr()));
    for (let s = 41; s <= 80; s++) fs.appendFileSync(log, monitorLine(s, false));
    const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
    await until('steps 41..80 at the live client', () => steps().length >= 80, 30_000).catch(() => undefined);
    assert.deepEqual(steps(), upTo(80), `${runtime}: the live client got the steps written after the truncation`);
    // Then the trainer goes on slowly: each step on its own.
    for (let s = 81; s <= 85; s++) {
      fs.appendFileSync(log, monitorLine(s, false));
      await until(`step ${s} at the live client`, () => steps().includes(s), 30_000);
    }
    assert.deepEqual(steps(), upTo(85), `${runtime}: every step once, in order`);
  } finally {
    await client.stop();
    await relay.stop();
  }
});
