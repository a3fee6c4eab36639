// Reading one experience's content through the relay (`experience` → `experience-detail`):
// Trinity's TRXP rows and legacy pickles decoded without running code, bad rows answered
// with an error (never a crash), and the round trip from a real relay on a real SQL buffer.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { decodeExperienceBytes } from '../../../../src/relay/formats/trxp';
import { RelayClient } from '../../../../src/relay-protocol/client';
import type { ExperiencesMessage } from '../../../../src/relay-protocol/messages';
import { repoRoot } from '../../../harness/paths';
import { launchRelay, relaysUnderTest } from '../../../harness/relay';
import { helloFrom, rssMiB } from '../../../harness/relay-wire';
import { noTbx, python, startRelay, tmpDir } from '../helpers';

/** Python's own pickle (protocol 2..5), as Trinity writes it. */
function pickled(expr: string, protocol = 4): Buffer {
  const r = spawnSync('python3', ['-c', `import pickle, sys\nsys.stdout.buffer.write(pickle.dumps(${expr}, protocol=${protocol}))`]);
  assert.equal(r.status, 0, r.stderr?.toString());
  return r.stdout;
}

function trxp(meta: Buffer, tensors = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(21);
  h.write('TRXP', 0, 'latin1');
  h[4] = 1;
  h.writeBigUInt64LE(BigInt(meta.length), 5);
  h.writeBigUInt64LE(BigInt(tensors.length), 13);
  return Buffer.concat([h, meta, tensors]);
}

const ITEM = `{'eid': {'task': 't1', 'run': 2}, 'reward': float('nan'), 'messages': [{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'ok', 'tool_calls': None}], 'info': {'model_version': 3}, 'raw': b'xyz', 'pair': (1, 2)}`;

test('TRXP rows: the first item, JSON-safe (NaN as "NaN", bytes as a size, tuples as lists)', async () => {
  // Protocol 2 has no bytes opcode (bytes are a call to _codecs.encode: inert here), so 3..5.
  for (const protocol of [3, 4, 5]) {
    const d = await decodeExperienceBytes(trxp(pickled(`{'version': 1, 'num_items': 1, 'items': [${ITEM}]}`, protocol), Buffer.from('safetensors')));
    assert.deepEqual(
      d,
      {
        eid: { task: 't1', run: 2 },
        reward: 'NaN',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'ok', tool_calls: null },
        ],
        info: { model_version: 3 },
        raw: '<3 bytes>',
        pair: [1, 2],
      },
      `protocol ${protocol}`,
    );
  }
  const p2 = await decodeExperienceBytes(trxp(pickled(`{'items': [${ITEM}]}`, 2)));
  assert.equal((p2.messages as unknown[]).length, 2);
});

test('legacy rows (a plain pickle of an item or a list of items) decode too', async () => {
  assert.equal(((await decodeExperienceBytes(pickled(`[${ITEM}]`))).messages as unknown[]).length, 2);
  assert.deepEqual({ ...(await decodeExperienceBytes(pickled(`{'reward': 1.0}`))) }, { reward: 1 });
});

test('a class reference in the pickle is never executed', async () => {
  // os.system would run on a real unpickle; here it must stay inert data.
  const evil = Buffer.from("cos\nsystem\n(S'touch /tmp/agentrl-pwned'\ntR.", 'latin1');
  fs.rmSync('/tmp/agentrl-pwned', { force: true });
  try {
    await decodeExperienceBytes(evil);
  } catch {
    /* an error is fine too */
  }
  assert.equal(fs.existsSync('/tmp/agentrl-pwned'), false);
});

test('truncated or garbage bytes: a clear error, no crash', async () => {
  const good = trxp(pickled(`{'items': [${ITEM}]}`));
  await assert.rejects(decodeExperienceBytes(good.subarray(0, 40)), /truncated/);
  await assert.rejects(decodeExperienceBytes(Buffer.from('not a pickle at all')), /cannot unpickle/);
});

test('round trip: a real relay on a Trinity job dir answers `experience` with the messages', { skip: noTbx, timeout: 120_000 }, async () => {
  const dir = tmpDir();
  const job = path.join(dir, 'job');
  python([path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), 'write', job, '0', '3']);
  const relay = await startRelay(['--job-dir', job]);
  const client = new RelayClient({ url: relay.url });
  try {
    const rows = new Promise<ExperiencesMessage>((resolve) => client.on('experiences', resolve));
    client.start();
    const batch = await rows;
    const row = batch.rows.find((r) => r.model_version === 2 && r.run_id === 1)!;
    const d = await client.requestExperience(batch.source, row.id);
    assert.deepEqual(d.messages, [
      { role: 'system', content: 'You are a helpful math assistant.' },
      { role: 'user', content: 'Task 2: what is 2 + 1?' },
      { role: 'assistant', content: 'The answer is 3.' },
    ]);
    assert.equal(d.reward, row.reward);
    await assert.rejects(client.requestExperience(batch.source, 999_999), /no row 999999/);
    await assert.rejects(client.requestExperience('tfevents:nope', 1), /no SQL source/);
  } finally {
    await client.close();
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A TRXP row whose metadata pickle nests a list that refers to the level below it 4 times, 30 levels deep (4^30 values once expanded). */
const BOMB = `(lambda a: [a := [a, a, a, a] for _ in range(30)][-1])(['x' * 10])`;

for (const subject of relaysUnderTest())
  describe(`adversarial: untrusted pickles [${subject.name}]`, { skip: subject.skip }, () => {
    test(
      'a 1.5 KB row whose pickle shares references: a clear error for that row, bounded work, the relay answers meanwhile',
      { timeout: 120_000 },
      async () => {
        const meta = pickled(
          `{'version': 1, 'num_items': 1, 'items': [{'eid': {'task': 'bomb'}, 'reward': 1.0, 'metrics': {'accuracy': 1.0}, 'info': ${BOMB}, 'messages': ${BOMB}}]}`,
        );
        const row = trxp(meta);
        assert.ok(row.length < 1536, `the crafted row is ${row.length} bytes`);
        const good = trxp(pickled(`{'version': 1, 'num_items': 1, 'items': [${ITEM}]}`));
        const dir = tmpDir();
        const job = path.join(dir, 'job');
        fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
        const made = spawnSync(
          'python3',
          [
            '-c',
            `import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward REAL, timestamp TEXT, consumed INTEGER, experience_bytes BLOB)")
good, bomb = bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
c.executemany("INSERT INTO experience_buffer VALUES (?, 't', 0, 1, 1.0, '2026-01-01 00:00:00', 0, ?)", [(1, good), (2, bomb), (3, good)])
c.commit()`,
            path.join(job, 'buffer', 'experience_buffer.db'),
            good.toString('hex'),
            row.toString('hex'),
          ],
          { encoding: 'utf8' },
        );
        assert.equal(made.status, 0, made.stderr);
        const relay = await launchRelay(subject.command(), ['--job-dir', job]);
        try {
          const client = await helloFrom(relay.url);
          client.subscribe();
          await client.waitFor('3 rows', () => client.rows().length === 3);
          const [r1, r2] = client.rows();
          assert.deepEqual(r2.metrics, { accuracy: 1 }, 'the list needs no expansion: the crafted row is listed like the others');
          const source = client.of('experiences')[0].source as string;
          client.send({ type: 'experience', request: 1, source, id: r2.id });
          client.send({ type: 'experience', request: 2, source, id: r1.id });
          // The relay keeps answering other clients while it works on that row.
          (await helloFrom(relay.url, {}, 15_000)).close();
          await client.waitFor('both answers', () => client.of('experience-detail').length === 2, 60_000);
          const [bomb, fine] = [1, 2].map((n) => client.of('experience-detail').find((m) => m.request === n)!);
          assert.equal(bomb.detail, undefined);
          assert.match(String(bomb.error), /expands to more than/);
          assert.doesNotMatch(String(bomb.error), /\n\s+at /, 'no stack trace');
          assert.equal((fine.detail as { reward: unknown }).reward, 1);
          assert.ok(rssMiB(relay.proc.pid!) < 200, `relay RSS ${rssMiB(relay.proc.pid!).toFixed(0)} MiB`);
          client.close();
        } finally {
          await relay.stop();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });

/** A job dir whose SQL buffer holds a good row (id 1), a row with a 1 MiB pickled integer (LONG4) and a 20-digit one (id 2), and a row whose protocol-0 pickle writes a million-digit integer as text (id 3); every row has 3 token ids. */
function hugeIntJob(): string {
  const job = path.join(tmpDir(), 'job');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const made = spawnSync(
    'python3',
    [
      '-c',
      `import json, pickle, sqlite3, struct, sys
def trxp(meta):
    h = json.dumps({"0:tokens": {"dtype": "I32", "shape": [3], "data_offsets": [0, 12]}}).encode()
    tensors = struct.pack("<Q", len(h)) + h + struct.pack("<3i", 5, 6, 7)
    return b"TRXP" + struct.pack("<BQQ", 1, len(meta), len(tensors)) + meta + tensors
def item(info):
    return {"version": 1, "num_items": 1, "items": [{"eid": {"task": "t"}, "reward": 1.0, "prompt_length": 1, "metrics": {"accuracy": 1.0}, "info": info}]}
rows = [trxp(pickle.dumps(item({"n": 5}), protocol=4)),
        trxp(pickle.dumps(item({"n": 1 << (8 * 1024 * 1024 - 9), "m": 12345678901234567890}), protocol=4)),
        trxp(b"(dp0\\nVversion\\np1\\nL" + b"9" * 1000000 + b"L\\ns.")]
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward REAL, timestamp TEXT, consumed INTEGER, experience_bytes BLOB)")
c.executemany("INSERT INTO experience_buffer VALUES (?, 't', 0, 1, 1.0, '2026-01-01 00:00:00', 0, ?)", list(enumerate(rows, 1)))
c.commit()`,
      path.join(job, 'buffer', 'experience_buffer.db'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  return job;
}

/** A job dir whose SQL buffer holds a 1 MB row: its item's `info` a list nested 500 000 deep (row 1), and a good row (row 2). */
function deepListJob(): string {
  const job = path.join(tmpDir(), 'job');
  fs.mkdirSync(path.join(job, 'buffer'), { recursive: true });
  const made = spawnSync(
    'python3',
    [
      '-c',
      `import pickle, sqlite3, struct, sys
def trxp(meta):
    return b"TRXP" + struct.pack("<BQQ", 1, len(meta), 0) + meta
s = lambda t: b"\\x8c" + bytes([len(t)]) + t.encode()
n = 500000
deep = b"]" * n + b"a" * (n - 1)
meta = b"\\x80\\x04}" + s("items") + b"]}" + s("reward") + b"G" + struct.pack(">d", 1.0) + b"s" + s("info") + deep + b"sas."
good = pickle.dumps({"version": 1, "num_items": 1, "items": [{"reward": 1.0, "info": [[1]]}]}, protocol=4)
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE experience_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, model_version INTEGER, reward REAL, timestamp TEXT, consumed INTEGER, experience_bytes BLOB)")
c.executemany("INSERT INTO experience_buffer VALUES (?, 't', 0, 1, 1.0, '2026-01-01 00:00:00', 0, ?)", [(1, trxp(meta)), (2, trxp(good))])
c.commit()`,
      path.join(job, 'buffer', 'experience_buffer.db'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  return job;
}

for (const subject of relaysUnderTest())
  describe(`adversarial: huge pickled values [${subject.name}]`, { skip: subject.skip }, () => {
    test(
      'a 1 MB row of a list nested 500 000 deep: refused with a clear error (the decode stack is bounded), the relay small',
      { timeout: 120_000 },
      async () => {
        const job = deepListJob();
        const relay = await launchRelay(subject.command(), ['--job-dir', job]);
        try {
          const client = await helloFrom(relay.url);
          client.subscribe();
          await client.waitFor('2 rows', () => client.rows().length === 2, 60_000);
          const source = client.of('experiences')[0].source as string;
          for (let i = 1; i <= 3; i++) client.send({ type: 'experience', request: i, source, id: 1 });
          client.send({ type: 'experience', request: 4, source, id: 2 });
          await client.waitFor('the answers', () => client.of('experience-detail').length === 4, 60_000);
          for (const m of client.of('experience-detail').filter((m) => m.request !== 4)) {
            assert.equal(m.detail, undefined);
            assert.match(String(m.error), /stack|budget/);
            assert.doesNotMatch(String(m.error), /\n\s+at /, 'no stack trace');
          }
          assert.deepEqual((client.of('experience-detail').find((m) => m.request === 4)!.detail as { info: unknown }).info, [[1]]);
          assert.ok(rssMiB(relay.proc.pid!) < 200, `relay RSS ${rssMiB(relay.proc.pid!).toFixed(0)} MiB`);
          client.close();
        } finally {
          await relay.stop();
          fs.rmSync(path.dirname(job), { recursive: true, force: true });
        }
      },
    );

    test(
      'a 1 MiB LONG4 integer: read in linear time, shown as <int of more than 1024 bytes>, its tokens answered; a million-digit text integer: a clear error',
      { timeout: 120_000 },
      async () => {
        const job = hugeIntJob();
        const relay = await launchRelay(subject.command(), ['--job-dir', job]);
        try {
          const client = await helloFrom(relay.url);
          client.subscribe();
          await client.waitFor('3 rows', () => client.rows().length === 3, 60_000);
          const source = client.of('experiences')[0].source as string;
          client.send({ type: 'experience', request: 1, source, id: 2 });
          client.send({ type: 'tokens', request: 2, source, id: 2 });
          client.send({ type: 'experience', request: 3, source, id: 3 });
          // The relay keeps answering other clients while it works on those rows.
          (await helloFrom(relay.url, {}, 15_000)).close();
          await client.waitFor('the answers', () => client.of('experience-detail').length === 2 && client.of('tokens').length === 1, 60_000);
          const detail = (n: number) => client.of('experience-detail').find((m) => m.request === n)!;
          const info = (detail(1).detail as { info: Record<string, unknown> }).info;
          assert.deepEqual(info, { n: '<int of more than 1024 bytes>', m: '12345678901234567890' });
          const tokens = client.of('tokens')[0] as unknown as { error?: string; arrays: { tokens: Int32Array } };
          assert.equal(tokens.error, undefined);
          assert.deepEqual([...tokens.arrays.tokens], [5, 6, 7]);
          assert.equal(detail(3).detail, undefined);
          assert.match(String(detail(3).error), /4300/);
          assert.doesNotMatch(String(detail(3).error), /\n\s+at /, 'no stack trace');
          client.close();
        } finally {
          await relay.stop();
          fs.rmSync(path.dirname(job), { recursive: true, force: true });
        }
      },
    );
  });

test('agentrl tokens --job-dir on a row with a 1 MiB pickled integer: its tokens, at once', { timeout: 120_000 }, () => {
  const job = hugeIntJob();
  try {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'agentrl.js'), 'tokens', '--job-dir', job, '--id', '2', '--json'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.equal(r.status, 0, `${r.error?.message ?? ''} ${r.stderr}`);
    assert.deepEqual(
      (JSON.parse(r.stdout) as { tokens: { id: number }[] }).tokens.map((t) => t.id),
      [5, 6, 7],
    );
  } finally {
    fs.rmSync(path.dirname(job), { recursive: true, force: true });
  }
});
