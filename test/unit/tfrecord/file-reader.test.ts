// The event-file reader (file-reader.ts over scan.wat) on records a dying or hostile writer
// leaves: a torn record then more records appended, and headers with a valid CRC claiming
// lengths up to 4 GB. A seeded fuzz appends such damage between real records, in random
// pieces, while reading: the reader never throws, never waits on a claim it cannot meet, and
// loses the damaged records only — every real record arrives, once, in order.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { EventType } from '../../../src/tfrecord/event-proto';
import { TfRecordFileReader } from '../../../src/tfrecord/file-reader';
import { MAX_RECORD_BYTES, crc32c, frameRecord, maskCrc } from '../../../src/tfrecord/scan';
import { rng, tmpDir } from '../relay/helpers';

const record = (step: number): Buffer =>
  frameRecord(EventType.encode(EventType.fromObject({ wall_time: 1000 + step, step, summary: { value: [{ tag: 't', simple_value: step }] } })).finish());

/** A header whose length CRC is right, claiming `length` bytes. */
function claim(length: number): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt32LE(length % 2 ** 32, 0);
  h.writeUInt32LE(Math.floor(length / 2 ** 32), 4);
  h.writeUInt32LE(maskCrc(crc32c(h.subarray(0, 8))), 8);
  return h;
}

function readOn(reader: TfRecordFileReader, steps: number[]): void {
  for (;;) {
    const r = reader.read({ add: (_t, step) => steps.push(step) }, 4096);
    if (!r.more) return;
  }
}

describe('adversarial: damaged event records', () => {
  test('a torn record followed by records a new writer appended: only the torn one is lost', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'events.out.tfevents.1.x');
    const torn = record(5);
    fs.writeFileSync(file, Buffer.concat([record(0), record(1), torn.subarray(0, torn.length - 7)]));
    const reader = new TfRecordFileReader(file);
    const steps: number[] = [];
    readOn(reader, steps);
    assert.deepEqual(steps, [0, 1]);
    fs.appendFileSync(file, Buffer.concat([2, 3, 4].map(record)));
    readOn(reader, steps);
    assert.deepEqual(steps, [0, 1, 2, 3, 4]);
    assert.equal(reader.stats.crcErrors, 1);
    reader.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test(`a valid header claiming more than ${MAX_RECORD_BYTES} bytes is skipped and counted, not waited for`, () => {
    const dir = tmpDir();
    const file = path.join(dir, 'events.out.tfevents.1.x');
    fs.writeFileSync(file, Buffer.concat([record(0), claim(200 * 1024 * 1024), record(1), claim(2 ** 32 + 5), record(2)]));
    const reader = new TfRecordFileReader(file);
    const steps: number[] = [];
    readOn(reader, steps);
    assert.deepEqual(steps, [0, 1, 2]);
    assert.equal(reader.stats.oversized, 2);
    assert.equal(reader.offset, fs.statSync(file).size);
    reader.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('fuzz (fixed seed): damage appended between records in random pieces while reading', () => {
    const rand = rng(99);
    const dir = tmpDir();
    for (let c = 0; c < 60; c++) {
      const file = path.join(dir, `events.out.tfevents.${c}.x`);
      const parts: Buffer[] = [];
      const written: number[] = [];
      for (let step = 0; step < 80; step++) {
        const r = rand();
        if (r < 0.06) {
          const rec = record(10_000 + step);
          parts.push(rec.subarray(0, 1 + Math.floor(rand() * (rec.length - 1)))); // torn
        } else if (r < 0.1) parts.push(claim(MAX_RECORD_BYTES + 1 + Math.floor(rand() * 2 ** 33)));
        else if (r < 0.12) parts.push(Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, () => Math.floor(rand() * 256))));
        parts.push(record(step));
        written.push(step);
      }
      const all = Buffer.concat(parts);
      fs.writeFileSync(file, Buffer.alloc(0));
      const reader = new TfRecordFileReader(file);
      const steps: number[] = [];
      for (let at = 0; at < all.length;) {
        const n = 1 + Math.floor(rand() * 600);
        fs.appendFileSync(file, all.subarray(at, at + n));
        at += n;
        readOn(reader, steps);
      }
      readOn(reader, steps);
      reader.close();
      // Every real record, once, in order: the damage costs itself only, and no claim is waited on.
      assert.deepEqual(steps, written, `case ${c}`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
