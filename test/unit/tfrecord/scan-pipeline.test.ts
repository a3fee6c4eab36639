// Reading ahead in the scan worker (src/tfrecord/scan-pipeline.ts): a real worker thread
// over real files. Every test compares with the reader's own one-thread path or the full decode.
// The minified bundle run as a child process is in test/component/tfrecord.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { FileReaderOptions, TfRecordFileReader } from '../../../src/tfrecord/file-reader';
import { disposeScanPipeline, scanPipeline, scanPipelineRunning, setScanPipelineIdleMs } from '../../../src/tfrecord/scan-pipeline';
import { frameRecord } from '../../../src/tfrecord/scan';
import { tmpDir } from '../relay/helpers';
import { until } from '../../harness/wait';
import { fmtPoint, mixedRecords, referencePoints } from '../tfrecord-streams';

const AHEAD: FileReaderOptions = { pipelineMinBytes: 0 };
const ALONE: FileReaderOptions = { pipelineMinBytes: Infinity };

after(() => disposeScanPipeline());

interface Run {
  points: string[];
  offsets: number[];
  stats: TfRecordFileReader['stats'];
  /** Reads during which the worker read ahead for this reader. */
  piped: number;
}

/** Reads file to its end in reads of `budget` bytes. */
function readThrough(reader: TfRecordFileReader, budget: number, into: string[] = []): Run {
  const offsets: number[] = [];
  let piped = 0;
  const sink = { add: (t: string, s: number, w: number, v: number) => into.push(fmtPoint(t, s, w, v)) };
  for (;;) {
    const r = reader.read(sink, budget);
    if (reader.pipelined) piped++;
    offsets.push(reader.offset);
    if (!r.more && r.consumed === 0) break;
  }
  return { points: into, offsets, stats: { ...reader.stats }, piped };
}

/** A file of framed mixed-encoding events, with a flipped data byte and a run of garbage. */
function damagedMixedFile(dir: string, seed: number, count: number): { file: string; expected: string[] } {
  const records = mixedRecords(seed, count);
  const victim = Math.floor(count * 0.6);
  const framed = records.map((r) => frameRecord(r));
  framed[victim][12 + 3] ^= 0x40; // inside the event: a data CRC mismatch
  const garbageAt = Math.floor(count * 0.3);
  framed.splice(garbageAt, 0, Buffer.from('not a record header, then some more bytes'));
  const file = path.join(dir, 'events.out.tfevents.1.ahead');
  fs.writeFileSync(file, Buffer.concat(framed));
  return { file, expected: referencePoints(records.filter((_, i) => i !== victim)) };
}

test('reading ahead in the worker gives the points, cursor offsets and counts of reading in one thread', () => {
  const dir = tmpDir();
  const { file, expected } = damagedMixedFile(dir, 23, 30000);
  for (const budget of [4096, 256 * 1024]) {
    const alone = new TfRecordFileReader(file, 0, ALONE);
    const a = readThrough(alone, budget);
    alone.close();
    const ahead = new TfRecordFileReader(file, 0, AHEAD);
    const b = readThrough(ahead, budget);
    ahead.close();
    assert.ok(b.piped > 3, `the worker read ahead in only ${b.piped} reads`);
    assert.equal(a.piped, 0);
    assert.equal(b.points.length, expected.length);
    for (let i = 0; i < expected.length; i++) assert.equal(b.points[i], expected[i], `point ${i} (budget ${budget})`);
    assert.deepEqual(a.points, b.points);
    assert.equal(b.stats.crcErrors, 1);
    assert.equal(b.stats.badHeaders, 1);
    assert.deepEqual({ ...b.stats, shaped: 0 }, { ...a.stats, shaped: 0 });
    assert.ok(b.stats.shaped > 30000 / 2, `only ${b.stats.shaped} records matched a shape`);
    // Reads end on record boundaries and keep to their budget as reading alone does.
    assert.equal(b.offsets[b.offsets.length - 1], fs.statSync(file).size);
    const steps = b.offsets.map((o, i) => o - (i ? b.offsets[i - 1] : 0));
    assert.ok(Math.max(...steps) <= Math.max(budget, 64 * 1024) * 1.5, `a read of ${Math.max(...steps)} bytes for a budget of ${budget}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a file that grows while the worker reads ahead: a partial record waits, nothing is lost or repeated', () => {
  const dir = tmpDir();
  const records = mixedRecords(5, 20000);
  const whole = Buffer.concat(records.map((r) => frameRecord(r)));
  const file = path.join(dir, 'events.out.tfevents.1.growing');
  const cuts = [Math.floor(whole.length * 0.4) + 7, Math.floor(whole.length * 0.75) + 3, whole.length];
  const reader = new TfRecordFileReader(file, 0, AHEAD);
  const points: string[] = [];
  let written = 0;
  let piped = 0;
  for (const cut of cuts) {
    fs.appendFileSync(file, whole.subarray(written, cut));
    written = cut;
    piped += readThrough(reader, 8192, points).piped;
    assert.ok(reader.offset <= written && written - reader.offset < 2048, `stopped at ${reader.offset} of ${written}`);
  }
  reader.close();
  assert.ok(piped > 0);
  assert.equal(reader.offset, whole.length);
  assert.deepEqual(points, referencePoints(records));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('one reader at a time has the worker; the others read alone; closing mid-file frees it', () => {
  const dir = tmpDir();
  const a = damagedMixedFile(dir, 31, 12000);
  const bFile = path.join(dir, 'events.out.tfevents.2.other');
  const bRecords = mixedRecords(37, 12000);
  fs.writeFileSync(bFile, Buffer.concat(bRecords.map((r) => frameRecord(r))));
  const first = new TfRecordFileReader(a.file, 0, AHEAD);
  const firstPoints: string[] = [];
  const sink = { add: (t: string, s: number, w: number, v: number) => firstPoints.push(fmtPoint(t, s, w, v)) };
  first.read(sink, 8192);
  assert.ok(first.pipelined);
  // Meanwhile another reader: it reads alone, and gets its own file's points.
  const second = new TfRecordFileReader(bFile, 0, AHEAD);
  const b = readThrough(second, 8192);
  second.close();
  assert.equal(b.piped, 0);
  assert.deepEqual(b.points, referencePoints(bRecords));
  // The first goes on where it was, then closes mid-file: the worker is free again.
  first.read(sink, 8192);
  assert.ok(first.pipelined);
  first.close();
  assert.ok(firstPoints.length > 0);
  assert.deepEqual(firstPoints, a.expected.slice(0, firstPoints.length));
  assert.equal(scanPipeline()!.available, true);
  const third = new TfRecordFileReader(a.file, 0, AHEAD);
  const all = readThrough(third, 8192);
  third.close();
  assert.ok(all.piped > 0);
  assert.deepEqual(all.points, a.expected);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a worker that dies mid-file: the reader finishes alone with exactly the points; the next reader gets a new worker', async () => {
  const dir = tmpDir();
  const { file, expected } = damagedMixedFile(dir, 41, 20000);
  const failures: string[] = [];
  const opts: FileReaderOptions = { ...AHEAD, onPipeline: (e) => void (e === 'worker-failed' && failures.push(e)) };
  const watched = new TfRecordFileReader(file, 0, opts);
  const points: string[] = [];
  const sink = { add: (t: string, s: number, w: number, v: number) => points.push(fmtPoint(t, s, w, v)) };
  watched.read(sink, 8192);
  watched.read(sink, 8192);
  assert.ok(watched.pipelined);
  await disposeScanPipeline(); // terminates the worker thread under the reader
  const rest = readThrough(watched, 8192, points);
  watched.close();
  assert.deepEqual(failures, ['worker-failed']);
  assert.equal(rest.points.length, expected.length);
  assert.deepEqual(rest.points, expected);
  const next = new TfRecordFileReader(file, 0, AHEAD);
  const again = readThrough(next, 8192);
  next.close();
  assert.ok(again.piped > 0, 'a new worker was started');
  assert.deepEqual(again.points, expected);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an idle worker ends and gives its memory back; a reader that holds it is never cut off; the next backlog starts a new one', async () => {
  const dir = tmpDir();
  const { file, expected } = damagedMixedFile(dir, 43, 12000);
  setScanPipelineIdleMs(100);
  try {
    // A reader that pauses longer than the idle time between reads keeps its worker.
    const slow = new TfRecordFileReader(file, 0, AHEAD);
    const points: string[] = [];
    const sink = { add: (t: string, s: number, w: number, v: number) => points.push(fmtPoint(t, s, w, v)) };
    slow.read(sink, 8192);
    const first = scanPipeline()!;
    assert.ok(slow.pipelined);
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(slow.pipelined && scanPipelineRunning(), 'a worker with a job is not retired');
    const rest = readThrough(slow, 8192, points);
    slow.close();
    assert.deepEqual(rest.points, expected);
    // Once nobody has a job, it ends.
    assert.ok(scanPipelineRunning());
    // Retired after its idle time (100 ms): waited for, not assumed done after a fixed sleep.
    await until('the idle worker retired', () => !scanPipelineRunning());
    assert.equal(first.available, false, 'its thread was ended');
    // The next backlog gets a new worker and the same points.
    const next = new TfRecordFileReader(file, 0, AHEAD);
    const again = readThrough(next, 8192);
    next.close();
    assert.ok(again.piped > 0, 'a new worker read ahead');
    assert.notEqual(scanPipeline(), first);
    assert.deepEqual(again.points, expected);
  } finally {
    setScanPipelineIdleMs(5000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
