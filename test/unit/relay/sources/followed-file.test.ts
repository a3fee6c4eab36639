// A source file followed by name while it changes identity (followed-file.ts), with the relay's
// open files bounded to one descriptor (open-files.ts) so that every read reopens by name and
// checks the identity: rotation by rename (the rest of the old file first, found again beside
// the new one), copytruncate, a cursor naming a file that was rotated away while no reader was
// open. The relay process on these: test/component/relay/sources/followed-file.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { JobRoot, OutsideRoot } from '../../../../src/relay/sources/job-root';
import { StepLogSource } from '../../../../src/relay/sources/log-source';
import { OpenFiles } from '../../../../src/relay/sources/open-files';
import type { SourceReader } from '../../../../src/relay/sources/source';
import type { Cursor } from '../../../../src/relay-protocol/messages';
import { silentLogger } from '../../../../src/base/log';
import { tmpDir } from '../helpers';

const lines = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `INFO 11-24 10:42:55 [monitor.py:210] Step ${from + i}: {'x': ${from + i}}\n`).join('');

/** Reads everything there is now: the steps, and the last cursor. */
async function drain(reader: SourceReader): Promise<{ steps: number[]; cursor?: Cursor }> {
  const steps: number[] = [];
  let cursor: Cursor | undefined;
  for (let b = await reader.next(1 << 20); b; b = await reader.next(1 << 20)) {
    if (b.type !== 'points') continue;
    for (const s of b.series) steps.push(...s.step);
    cursor = b.cursor;
  }
  return { steps, cursor };
}

function setUp(max = 1) {
  const job = tmpDir();
  fs.mkdirSync(path.join(job, 'log'));
  const file = path.join(job, 'log', 'trainer.log');
  const files = new OpenFiles(new JobRoot(job), max);
  const src = new StepLogSource({ id: 'log:log/trainer.log', kind: 'log', run: 'r', role: 'trainer', path: 'log/trainer.log' }, file, files, silentLogger);
  return { job, file, files, src };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('adversarial: followed files', () => {
  test('rotation while the descriptor was given back: the old file is found by identity beside the new one and finished first', async () => {
    const { job, file, files, src } = setUp(1);
    fs.writeFileSync(file, lines(0, 10));
    const reader = src.open(undefined);
    assert.deepEqual((await drain(reader)).steps, range(0, 10));
    // Another file takes the one descriptor the pool allows.
    const other = path.join(job, 'log', 'other.log');
    fs.writeFileSync(other, lines(0, 1));
    const lease = files.lease(other);
    fs.appendFileSync(file, lines(10, 15));
    fs.renameSync(file, `${file}.1`);
    fs.writeFileSync(file, lines(15, 20));
    assert.deepEqual((await drain(reader)).steps, range(10, 20));
    assert.ok(files.count <= 1, `${files.count} descriptors held`);
    lease.close();
    reader.close();
    fs.rmSync(job, { recursive: true, force: true });
  });

  test('a client resuming with the cursor of a rotated file gets its rest, then the new file', async () => {
    const { job, file, src } = setUp(4);
    fs.writeFileSync(file, lines(0, 10));
    const first = src.open(undefined);
    const { cursor } = await drain(first);
    first.close();
    fs.appendFileSync(file, lines(10, 12));
    fs.renameSync(file, `${file}.1`);
    fs.writeFileSync(file, lines(12, 14));
    const again = src.open(cursor);
    assert.deepEqual((await drain(again)).steps, range(10, 14));
    again.close();
    fs.rmSync(job, { recursive: true, force: true });
  });

  test('copytruncate then writes past the old offset: read again from the start', async () => {
    const { job, file, src } = setUp(4);
    fs.writeFileSync(file, lines(0, 10));
    const reader = src.open(undefined);
    assert.deepEqual((await drain(reader)).steps, range(0, 10));
    fs.truncateSync(file, 0);
    fs.appendFileSync(file, lines(10, 30));
    assert.deepEqual((await drain(reader)).steps, range(10, 30));
    reader.close();
    fs.rmSync(job, { recursive: true, force: true });
  });

  test('copytruncate: the cursor names a new generation of the file (`~N`), and a client resumes from it', async () => {
    const { job, file, src } = setUp(4);
    fs.writeFileSync(file, lines(0, 10));
    const reader = src.open(undefined);
    const before = (await drain(reader)).cursor!;
    fs.truncateSync(file, 0);
    assert.equal((await drain(reader)).steps.length, 0);
    fs.appendFileSync(file, lines(10, 12));
    const after = (await drain(reader)).cursor!;
    // A lower offset under the same fid is a batch the client already has: the fid must differ.
    assert.equal(after.fid, `${before.fid}~1`);
    assert.ok(after.offset < before.offset);
    reader.close();
    fs.appendFileSync(file, lines(12, 14));
    const again = src.open(after);
    assert.deepEqual((await drain(again)).steps, range(12, 14));
    again.close();
    // A cursor past the end of the file it names: the file was cut back since, its start under the next generation.
    const late = src.open(before);
    const got = await drain(late);
    assert.deepEqual(got.steps, range(10, 14));
    assert.equal(got.cursor?.fid, `${before.fid}~1`);
    late.close();
    fs.rmSync(job, { recursive: true, force: true });
  });

  test('the root refuses a path that resolves outside it, even through a link made after discovery', () => {
    const job = tmpDir();
    const outside = tmpDir();
    fs.writeFileSync(path.join(outside, 'secret.log'), 'x\n');
    fs.mkdirSync(path.join(job, 'log'));
    fs.symlinkSync(path.join(outside, 'secret.log'), path.join(job, 'log', 'trainer.log'));
    const files = new OpenFiles(new JobRoot(job));
    assert.throws(() => files.lease(path.join(job, 'log', 'trainer.log')), OutsideRoot);
    fs.rmSync(job, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
});
