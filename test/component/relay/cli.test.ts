// `agentrl relay --job-dir` on a Trinity-shaped job dir: event files of one role, `Step N:`
// log lines of a role without event files, the SQL experience buffer (written by Python's
// sqlite3 with Trinity's ExperienceModel columns), serve mode's /metrics; and `agentrl tail`.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ExperienceRow, HelloMessage } from '../../../src/relay-protocol/messages';
import { RelayClient } from '../../../src/relay-protocol/client';
import { appendSteps, valueAt } from './appender';
import { bundle, collect, startRelay, tmpDir } from './helpers';
import { sleep } from '../../harness/wait';
import { pointCount } from '../../../src/relay-protocol/points-frame';
import { byTag } from '../../harness/relay-points';

const SCHEMA = `CREATE TABLE experience_buffer (
  id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp DATETIME DEFAULT CURRENT_TIMESTAMP,
  task_id VARCHAR(64), run_id INTEGER, msg_id VARCHAR(64), model_version INTEGER,
  experience_bytes BLOB, reward FLOAT, consumed INTEGER DEFAULT 0)`;

/** Inserts rows with Python's sqlite3 (a separate process, like Trinity's writer). */
function sqlite(db: string, statements: string[]): Promise<void> {
  const script = `import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nfor s in sys.argv[2:]:\n    c.execute(s)\nc.commit()\nc.close()\n`;
  return new Promise((resolve, reject) => {
    const p = spawn('python3', ['-c', script, db, ...statements], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (b) => (err += b));
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(err))));
  });
}

const insert = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return `INSERT INTO experience_buffer (task_id, run_id, msg_id, model_version, experience_bytes, reward) VALUES ('task-${i % 4}', ${i % 8}, 'chatcmpl-${i}', ${Math.floor(i / 10)}, x'00ff', ${i === 3 ? 'NULL' : i / 4})`;
  });

test('job dir: event files, Step lines, SQL experiences, serve /metrics — and tail --json --until-idle', { timeout: 120_000 }, async () => {
  const root = tmpDir();
  const job = path.join(root, 'gsm8k-grpo');
  fs.mkdirSync(path.join(job, 'monitor', 'tensorboard', 'explorer'), { recursive: true });
  fs.mkdirSync(path.join(job, 'log'));
  fs.mkdirSync(path.join(job, 'buffer'));
  appendSteps(path.join(job, 'monitor', 'tensorboard', 'explorer', 'events.out.tfevents.1.node'), 0, 5);
  fs.writeFileSync(
    path.join(job, 'log', 'trainer.log'),
    [
      "INFO 11-22 02:39:27 [trainer.py:201] Step 1: {'actor/pg_loss': np.float64(0.5), 'actor/lr': 1e-06, 'time/train_step': 3, 'note': 'text', 'nested': {'a': 1}}",
      'INFO 11-22 02:39:28 [trainer.py:90] Saving checkpoint',
      "INFO 11-22 02:40:27 [trainer.py:201] Step 2: {'actor/pg_loss': np.float64(-0.25), 'actor/lr': 1e-06, 'critic/score/mean': nan}",
      "INFO 11-22 02:41:27 [trainer.py:201] Step 3: {'actor/pg_loss': np.float32(0.125), 'unfin",
    ].join('\n'),
  );
  // A stand-in for Trinity's serve-mode explorer (which needs GPU engines): its /metrics JSON.
  let metrics: Record<string, number> = { 'rollout/total_experience_count': 7, 'rollout/ready_experience_count': 3, explore_step_num: 2 };
  const serve = http.createServer((req, res) => {
    res.writeHead(req.url === '/metrics' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(metrics));
  });
  await new Promise<void>((r) => serve.listen(0, '127.0.0.1', () => r()));
  fs.writeFileSync(path.join(job, 'explorer_server_url.txt'), `http://127.0.0.1:${(serve.address() as AddressInfo).port}\n`);
  const db = path.join(job, 'buffer', 'experience_buffer.db');
  await sqlite(db, [SCHEMA, ...insert(1, 6)]);

  const relay = await startRelay(['--job-dir', job, '--poll-interval', '200']);
  const c = collect({ url: relay.url });
  const rows: ExperienceRow[] = [];
  c.client.on('experiences', (m) => rows.push(...m.rows));
  let hello: HelloMessage | undefined;
  c.client.on('hello', (h) => (hello = h));
  try {
    await c.until(
      (p) => p.filter((x) => x.role === 'explorer').length >= 10 && p.some((x) => x.role === 'trainer') && p.some((x) => x.tag === 'explore_step_num'),
    );
    while (rows.length < 5) await sleep(50);
    assert.ok(hello);
    assert.deepEqual(hello.runs, ['gsm8k-grpo']);
    assert.deepEqual(hello.roles, ['experience_buffer', 'explorer', 'trainer']);
    assert.deepEqual(hello.sources.map((s) => s.kind).sort(), ['log', 'serve', 'sql', 'tfevents']);

    // A batch comes grouped by tag: compare each tag's points in order, or sort by step (stable).
    const explorer = c.points.filter((p) => p.role === 'explorer');
    assert.deepEqual(
      byTag(explorer.filter((p) => p.tag === 'train/loss' || p.tag === 'rollout/reward/mean')).map(([, pts]) =>
        pts.slice(0, 2).map((p) => [p.run, p.tag, p.step, p.value]),
      ),
      [
        [
          ['gsm8k-grpo', 'rollout/reward/mean', 0, valueAt(1, 0)],
          ['gsm8k-grpo', 'rollout/reward/mean', 1, valueAt(1, 1)],
        ],
        [
          ['gsm8k-grpo', 'train/loss', 0, valueAt(0, 0)],
          ['gsm8k-grpo', 'train/loss', 1, valueAt(0, 1)],
        ],
      ],
    );
    const trainer = c.points
      .filter((p) => p.role === 'trainer')
      .sort((a, b) => a.step - b.step)
      .map((p) => [p.tag, p.step, p.value]);
    assert.deepEqual(trainer, [
      ['actor/pg_loss', 1, 0.5],
      ['actor/lr', 1, 1e-6],
      ['time/train_step', 1, 3],
      ['actor/pg_loss', 2, -0.25],
      ['actor/lr', 2, 1e-6],
      ['critic/score/mean', 2, NaN],
    ]);
    const serveStep = c.points.find((p) => p.tag === 'explore_step_num');
    assert.equal(serveStep?.step, 2);
    assert.equal(c.points.find((p) => p.tag === 'rollout/total_experience_count')?.value, 7);

    assert.deepEqual(
      rows.map((r) => r.id),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(
      { ...rows[1], timestamp: typeof rows[1].timestamp },
      {
        id: 2,
        table: 'experience_buffer',
        task_id: 'task-2',
        run_id: 2,
        model_version: 0,
        reward: 0.5,
        timestamp: 'string',
        msg_id: 'chatcmpl-2',
        consumed: 0,
      },
    );
    assert.equal(rows[2].reward, null);

    // Live: more rows, the rest of a log line, a new /metrics sample.
    await sqlite(db, insert(6, 9));
    fs.appendFileSync(path.join(job, 'log', 'trainer.log'), "ished': True}\n"); // the writer finishes the line
    metrics = { ...metrics, explore_step_num: 3 };
    while (rows.length < 8) await sleep(50);
    await c.until((p) => p.some((x) => x.tag === 'unfinished' && x.step === 3) && p.some((x) => x.tag === 'explore_step_num' && x.step === 3));
    assert.deepEqual(
      c.points.filter((p) => p.step === 3 && p.role === 'trainer').map((p) => [p.tag, p.value]),
      [
        ['actor/pg_loss', 0.125],
        ['unfinished', 1],
      ],
    );
    assert.deepEqual(
      rows.map((r) => r.id),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );

    // A client resuming from the first client's cursors gets only what is new.
    const resumed = new RelayClient({ url: relay.url, cursors: c.client.cursors() });
    const fresh: number[] = [];
    let freshPoints = 0;
    resumed.on('experiences', (m) => fresh.push(...m.rows.map((r) => r.id)));
    resumed.on('points', (b) => (freshPoints += pointCount(b)));
    resumed.start();
    await sleep(500);
    assert.deepEqual(fresh, []);
    assert.equal(freshPoints, 0);
    await sqlite(db, insert(9, 10));
    while (fresh.length < 1) await sleep(50);
    assert.deepEqual(fresh, [9]);
    await resumed.close();

    // agentrl tail --json --until-idle: every point, one JSON object per line, then exit 0.
    const tail = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn(process.execPath, [bundle, 'tail', relay.url, '--json', '--until-idle', '1', '--run', 'gsm8k-grpo', '--tag', '^(train|rollout)/'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      p.stdout.on('data', (b) => (out += b));
      p.on('exit', (code) => resolve({ code, out }));
    });
    assert.equal(tail.code, 0);
    const lines = tail.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const wantTail = c.points.filter((p) => /^(train|rollout)\//.test(p.tag));
    assert.equal(lines.length, wantTail.length);
    assert.deepEqual(Object.keys(lines[0]), ['run', 'role', 'tag', 'step', 'wall_time', 'value']);
    assert.deepEqual(
      byTag(lines, (l) => String(l.tag)).map(([t, ls]) => [t, ls.map((l) => [l.run, l.role, l.tag, l.step, l.wall_time, l.value])]),
      byTag(wantTail).map(([t, ps]) => [t, ps.map((p) => [p.run, p.role, p.tag, p.step, p.wallTime, Number.isFinite(p.value) ? p.value : String(p.value)])]),
    );
  } finally {
    await c.client.close();
    await relay.stop();
    await new Promise<void>((r) => serve.close(() => r()));
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('tail --until-idle exits 1 with a clear message when no relay answers', async () => {
  const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const p = spawn(process.execPath, [bundle, 'tail', 'ws://127.0.0.1:9/', '--until-idle', '0.5'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (b) => (err += b));
    p.on('exit', (code) => resolve({ code, err }));
  });
  assert.equal(r.code, 1);
  assert.match(r.err, /could not reach the relay at ws:\/\/127\.0\.0\.1:9\/ within 0\.5 s/);
});
