// A source file followed by name while it changes identity (followed-file.ts), with the relay's
// open files bounded to one descriptor (open-files.ts) so that every read reopens by name and
// checks the identity: rotation by rename (the rest of the old file first, found again beside
// the new one), copytruncate, a cursor naming a file that was rotated away while no reader was
// open. The relay process on these: test/component/relay/sources/followed-file.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { FollowedFile, type FileChange } from '../../../../src/relay/sources/followed-file';
import { JobRoot, OutsideRoot } from '../../../../src/relay/sources/job-root';
import { LineReader } from '../../../../src/relay/sources/line-reader';
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

  // A reader's steps (where() looks, the read, moveTo()) with the writer's copytruncate landing
  // between them, as it can in a relay that a watch event woke while logrotate works.
  describe("copytruncate between a reader's look and its move", () => {
    /** A followed log read to its end (10 steps), and what it reported. */
    function followed() {
      const { job, file, files } = setUp(4);
      fs.writeFileSync(file, lines(0, 10));
      const changes: FileChange[] = [];
      const f = new FollowedFile(files, file, undefined, (c) => changes.push(c));
      const reader = new LineReader(1 << 20);
      /** One read as the log source does it: the complete lines at the offset, then the move. */
      const read = (at: { fd: number }) => {
        const got = reader.read(at.fd, f.offset, 1 << 20);
        const text = got.buf.toString('utf8', got.from, got.to);
        f.moveTo(got.next, at.fd);
        return [...text.matchAll(/Step (\d+):/g)].map((m) => Number(m[1]));
      };
      assert.deepEqual(read(f.where()!), range(0, 10));
      return { job, file, f, read, changes, end: f.offset };
    }

    test('at the live edge: the file cut after the look and written past the old offset before the next one is read again from its start', () => {
      const { job, file, f, read, changes, end } = followed();
      const at = f.where()!; // a wake: nothing new yet
      fs.truncateSync(file, 0);
      assert.deepEqual(read(at), []); // the read at the old offset finds nothing
      fs.appendFileSync(file, lines(10, 30)); // past the old offset before the next look
      assert.deepEqual(read(f.where()!), range(10, 30));
      assert.deepEqual(changes, [{ kind: 'truncated', from: end, size: fs.statSync(file).size }]);
      assert.match(f.at('log').fid ?? '', /~1$/);
      f.close();
      fs.rmSync(job, { recursive: true, force: true });
    });

    test('at the live edge: the file cut and written past the old offset between the read and the move is read again from its start', () => {
      const { job, file, f, read, changes } = followed();
      const at = f.where()!;
      const got = new LineReader(1 << 20).read(at.fd, f.offset, 1 << 20); // nothing new
      fs.truncateSync(file, 0);
      fs.appendFileSync(file, lines(10, 30));
      f.moveTo(got.next, at.fd);
      assert.deepEqual(read(f.where()!), range(10, 30));
      assert.equal(changes.length, 1);
      f.close();
      fs.rmSync(job, { recursive: true, force: true });
    });

    test('the file cut and written again between the look and the read (which finds the new bytes at the old offset) is read again from its start', () => {
      for (const more of [1, 20]) {
        const { job, file, f, read, changes, end } = followed();
        const at = f.where()!;
        fs.truncateSync(file, 0);
        fs.appendFileSync(file, lines(10, 10 + more) + lines(100, 110));
        const first = read(at); // from the old offset: a piece of the new file
        assert.ok(fs.statSync(file).size > end, 'the new file is longer than the old offset');
        assert.deepEqual(read(f.where()!), [...range(10, 10 + more), ...range(100, 110)], `${more} line(s) before the old offset`);
        assert.equal(changes.length, 1);
        assert.ok(first.every((s) => s >= 10));
        f.close();
        fs.rmSync(job, { recursive: true, force: true });
      }
    });

    test('under a read that moved the offset: the file cut before the move is read again from its start', () => {
      const { job, file, f, read, changes } = followed();
      fs.appendFileSync(file, lines(10, 12));
      const at = f.where()!;
      const got = new LineReader(1 << 20).read(at.fd, f.offset, 1 << 20);
      fs.truncateSync(file, 0); // after the read, before the move (which reads nothing back now)
      f.moveTo(got.next, at.fd);
      fs.appendFileSync(file, lines(100, 130));
      assert.deepEqual(read(f.where()!), range(100, 130));
      assert.equal(changes.length, 1);
      f.close();
      fs.rmSync(job, { recursive: true, force: true });
    });

    test('under a read that moved the offset: the file cut and written past it again before the move is read again from its start', () => {
      const { job, file, f, read, changes } = followed();
      fs.appendFileSync(file, lines(10, 12));
      const at = f.where()!;
      const got = new LineReader(1 << 20).read(at.fd, f.offset, 1 << 20);
      // Cut and written again before the move: the bytes before the new offset are the new file's now.
      fs.truncateSync(file, 0);
      fs.appendFileSync(file, lines(100, 130));
      f.moveTo(got.next, at.fd);
      assert.deepEqual(read(f.where()!), range(100, 130));
      assert.equal(changes.length, 1);
      f.close();
      fs.rmSync(job, { recursive: true, force: true });
    });
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
