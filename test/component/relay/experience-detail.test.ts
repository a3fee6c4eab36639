// Reading one experience's content through the relay (`experience` → `experience-detail`):
// Trinity's TRXP rows and legacy pickles decoded without running code, bad rows answered
// with an error (never a crash), and the round trip from a real relay on a real SQL buffer.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { decodeExperienceBytes } from '../../../src/relay/sources/experience-bytes';
import { RelayClient } from '../../../src/relay-protocol/client';
import type { ExperiencesMessage } from '../../../src/relay-protocol/messages';
import { repoRoot } from '../../harness/paths';
import { noTbx, python, startRelay, tmpDir } from './helpers';

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

test('TRXP rows: the first item, JSON-safe (NaN as "NaN", bytes as a size, tuples as lists)', () => {
  // Protocol 2 has no bytes opcode (bytes are a call to _codecs.encode: inert here), so 3..5.
  for (const protocol of [3, 4, 5]) {
    const d = decodeExperienceBytes(trxp(pickled(`{'version': 1, 'num_items': 1, 'items': [${ITEM}]}`, protocol), Buffer.from('safetensors')));
    assert.deepEqual(d, {
      eid: { task: 't1', run: 2 },
      reward: 'NaN',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'ok', tool_calls: null },
      ],
      info: { model_version: 3 },
      raw: '<3 bytes>',
      pair: [1, 2],
    }, `protocol ${protocol}`);
  }
  const p2 = decodeExperienceBytes(trxp(pickled(`{'items': [${ITEM}]}`, 2)));
  assert.equal((p2.messages as unknown[]).length, 2);
});

test('legacy rows (a plain pickle of an item or a list of items) decode too', () => {
  assert.equal((decodeExperienceBytes(pickled(`[${ITEM}]`)).messages as unknown[]).length, 2);
  assert.deepEqual(decodeExperienceBytes(pickled(`{'reward': 1.0}`)), { reward: 1 });
});

test('a class reference in the pickle is never executed', () => {
  // os.system would run on a real unpickle; here it must stay inert data.
  const evil = Buffer.from("cos\nsystem\n(S'touch /tmp/agentrl-pwned'\ntR.", 'latin1');
  fs.rmSync('/tmp/agentrl-pwned', { force: true });
  try {
    decodeExperienceBytes(evil);
  } catch {
    /* an error is fine too */
  }
  assert.equal(fs.existsSync('/tmp/agentrl-pwned'), false);
});

test('truncated or garbage bytes: a clear error, no crash', () => {
  const good = trxp(pickled(`{'items': [${ITEM}]}`));
  assert.throws(() => decodeExperienceBytes(good.subarray(0, 40)), /truncated/);
  assert.throws(() => decodeExperienceBytes(Buffer.from('not a pickle at all')), /cannot unpickle/);
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
