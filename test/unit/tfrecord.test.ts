// The event-file reader on synthetic and damaged files, in process. Files written by real
// TensorBoard writers (Python) are read in test/component/tfrecord.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { EventType } from '../../src/tfrecord/event-proto';
import { TfRecordFileReader } from '../../src/tfrecord/file-reader';
import { ScalarDecoder } from '../../src/tfrecord/scalars';
import { crc32c, frameRecord } from '../../src/tfrecord/scan';
import { rng, tmpDir } from './relay/helpers';
import { fmtPoint, mixedRecords, referencePoints } from './tfrecord-streams';

interface Pt {
  tag: string;
  step: number;
  wallTime: number;
  value: number;
}

function readAll(file: string, offset = 0) {
  const r = new TfRecordFileReader(file, offset);
  const pts: Pt[] = [];
  r.read({ add: (tag, step, wallTime, value) => pts.push({ tag, step, wallTime, value }) });
  r.close();
  return { pts, stats: r.stats, offset: r.offset };
}

function eventBytes(step: number, tag: string, value: number): Buffer {
  const msg = EventType.fromObject({ wall_time: 1000 + step, step, summary: { value: [{ tag, simple_value: value }] } });
  return Buffer.from(EventType.encode(msg).finish());
}

/** A file of n framed events (tag t, value step/2) and the byte offsets of its records. */
function syntheticFile(dir: string, n: number): { file: string; offsets: number[] } {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const rec = frameRecord(eventBytes(i, `t/${i % 3}`, i / 2));
    offsets.push(at);
    at += rec.length;
    parts.push(rec);
  }
  const file = path.join(dir, 'events.out.tfevents.1.test');
  fs.writeFileSync(file, Buffer.concat(parts));
  return { file, offsets };
}

test('CRC-32C matches the standard check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')).toString(16), 'e3069283');
  assert.equal(crc32c(Buffer.alloc(0)), 0);
});

test('a partial record at the end waits for the rest; offsets stay on record boundaries', () => {
  const dir = tmpDir();
  const { file, offsets } = syntheticFile(dir, 10);
  const whole = fs.readFileSync(file);
  const cut = offsets[6] + 7; // inside record 6's header
  fs.writeFileSync(file, whole.subarray(0, cut));
  const r = new TfRecordFileReader(file);
  const pts: number[] = [];
  const sink = { add: (_t: string, step: number) => pts.push(step) };
  r.read(sink);
  assert.deepEqual(pts, [0, 1, 2, 3, 4, 5]);
  assert.equal(r.offset, offsets[6]);
  fs.appendFileSync(file, whole.subarray(cut, offsets[8] + 20)); // record 7 complete, 8 partial
  r.read(sink);
  assert.deepEqual(pts, [0, 1, 2, 3, 4, 5, 6, 7]);
  fs.appendFileSync(file, whole.subarray(offsets[8] + 20));
  r.read(sink);
  assert.deepEqual(pts, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(r.offset, whole.length);
  assert.equal(r.stats.crcErrors + r.stats.badHeaders, 0);
  r.close();
  // Resuming at a cursor gives exactly the rest.
  assert.deepEqual(
    readAll(file, offsets[4]).pts.map((p) => p.step),
    [4, 5, 6, 7, 8, 9],
  );
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a data CRC mismatch skips that record and counts it; a bad header re-synchronises', () => {
  const dir = tmpDir();
  const { file, offsets } = syntheticFile(dir, 10);
  const buf = fs.readFileSync(file);
  buf[offsets[3] + 14] ^= 0x40; // data of record 3
  buf[offsets[7] + 2] ^= 0x01; // length of record 7
  fs.writeFileSync(file, buf);
  const { pts, stats } = readAll(file);
  assert.deepEqual(
    pts.map((p) => p.step),
    [0, 1, 2, 4, 5, 6, 8, 9],
  );
  assert.equal(stats.crcErrors, 1);
  assert.equal(stats.badHeaders, 1);
  assert.equal(stats.skippedBytes, offsets[4] - offsets[3] + (offsets[8] - offsets[7]));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('fuzz (fixed seed): truncated, bit-flipped and random files never throw and only yield real points', () => {
  const dir = tmpDir();
  const { file } = syntheticFile(dir, 300);
  const good = fs.readFileSync(file);
  const real = new Set(readAll(file).pts.map((p) => `${p.tag}@${p.step}=${p.value}`));
  const rand = rng(42);
  const target = path.join(dir, 'events.out.tfevents.fuzz');
  let cases = 0;
  for (let i = 0; i < 300; i++) {
    let bytes: Buffer;
    const kind = i % 3;
    if (kind === 0) bytes = good.subarray(0, Math.floor(rand() * good.length));
    else if (kind === 1) {
      bytes = Buffer.from(good);
      const flips = 1 + Math.floor(rand() * 8);
      for (let k = 0; k < flips; k++) bytes[Math.floor(rand() * bytes.length)] ^= 1 << Math.floor(rand() * 8);
    } else {
      bytes = Buffer.alloc(Math.floor(rand() * 4096));
      for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(rand() * 256);
    }
    fs.writeFileSync(target, bytes);
    const { pts, offset } = readAll(target);
    assert.ok(offset <= bytes.length);
    if (kind !== 2) for (const p of pts) assert.ok(real.has(`${p.tag}@${p.step}=${p.value}`), `invented point ${p.tag}@${p.step}`);
    cases++;
  }
  assert.equal(cases, 300);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a missing file is an I/O error, not a crash of the decoder', () => {
  assert.throws(() => readAll('/nonexistent/events.out.tfevents.x'), /ENOENT/);
});

/** A fixed-seed stream of event records in mixed encodings (simple_value, tensors f32/f64, packed or not), with plugin metadata now and then. */
test('learned event shapes decode exactly what the full decode does (fixed-seed stream of mixed encodings)', () => {
  const records = mixedRecords(7, 4000);
  const buf = Buffer.concat(records);
  const run = (learnShapes: boolean) => {
    const d = new ScalarDecoder({ learnShapes });
    const out: string[] = [];
    const sink = { add: (t: string, s: number, w: number, val: number) => out.push(`${t}|${s}|${w}|${Object.is(val, -0) ? '-0' : String(val)}`) };
    let at = 0;
    let count = 0;
    for (const r of records) {
      count += d.decode(buf, at, at + r.length, sink);
      at += r.length;
    }
    assert.equal(count, out.length);
    return out;
  };
  const reference = run(false);
  const fast = run(true);
  assert.ok(reference.length > 3000, `few scalars decoded: ${reference.length}`);
  assert.ok(
    reference.some((l) => l.startsWith('hist/w|')),
    'tensors of a tag without a plugin are scalars until one is named',
  );
  assert.equal(fast.length, reference.length);
  for (let i = 0; i < reference.length; i++) assert.equal(fast[i], reference[i], `scalar ${i}`);
});

test('records the wasm scan matches to learned shapes read exactly as the full decode does (mixed encodings, small reads)', () => {
  const records = mixedRecords(11, 12000);
  const reference = referencePoints(records);
  const dir = tmpDir();
  const file = path.join(dir, 'events.out.tfevents.1.mixed');
  fs.writeFileSync(file, Buffer.concat(records.map((r) => frameRecord(r))));
  const reader = new TfRecordFileReader(file);
  const got: string[] = [];
  const sink = { add: (t: string, s: number, w: number, v: number) => got.push(fmtPoint(t, s, w, v)) };
  // Small reads (the reader's least, 64 KiB): several scans, so the shapes learned in one are
  // matched by the wasm in the next.
  while (reader.read(sink, 2048).consumed > 0);
  reader.close();
  assert.equal(reader.stats.records, records.length);
  assert.equal(reader.stats.crcErrors + reader.stats.badHeaders + reader.stats.decodeErrors, 0);
  assert.ok(reader.stats.shaped > records.length / 2, `only ${reader.stats.shaped} of ${records.length} records matched a shape in the scan`);
  assert.equal(got.length, reference.length);
  for (let i = 0; i < reference.length; i++) assert.equal(got[i], reference[i], `scalar ${i}`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a flipped value byte in a record of a learned shape is a CRC error: that record alone is skipped', () => {
  const dir = tmpDir();
  const { file, offsets } = syntheticFile(dir, 20000);
  const buf = fs.readFileSync(file);
  const victim = 15000;
  const dataLen = buf.readUInt32LE(offsets[victim]);
  buf[offsets[victim] + 12 + dataLen - 1] ^= 0x01; // the float's top byte (simple_value is the last field)
  fs.writeFileSync(file, buf);
  const reader = new TfRecordFileReader(file);
  const steps: number[] = [];
  while (reader.read({ add: (_t, step) => steps.push(step) }, 4096).consumed > 0);
  reader.close();
  assert.equal(reader.stats.crcErrors, 1);
  assert.ok(reader.stats.shaped > 15000, `the victim's neighbours were not matched in the scan (${reader.stats.shaped})`);
  assert.deepEqual(
    steps,
    [...Array(20000).keys()].filter((i) => i !== victim),
  );
  fs.rmSync(dir, { recursive: true, force: true });
});
