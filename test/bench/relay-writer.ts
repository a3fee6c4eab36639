// Child process of the relay bench: appends `rate` scalars/s to an event file for `seconds`,
// in slices every 10 ms. Each event's wall_time is the moment of its append, so a client's
// receipt time minus wall_time is the end-to-end latency. With STAMP_BASE (ms since epoch),
// each value is the moment of its append in ms since STAMP_BASE (exact in float32 for 4.6 h),
// so whoever draws the value knows when it was written (the view bench's write→screen).
//   node relay-writer.js FILE RATE SECONDS [TAGS=20] [STAMP_BASE]
import * as fs from 'node:fs';
import { EventType } from '../../src/tfrecord/event-proto';
import { frameRecord } from '../../src/tfrecord/scan';

const [file, rateArg, secondsArg, tagsArg, stampArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const tags = Number(tagsArg ?? 20);
const stampBase = stampArg === undefined ? undefined : Number(stampArg);
const sliceMs = 10;
const fd = fs.openSync(file, 'a');
let step = 0;
const t0 = Date.now();
const timer = setInterval(() => {
  const parts: Buffer[] = [];
  const ms = Date.now();
  const now = ms / 1000;
  const value = (s: number) => (stampBase === undefined ? s : ms - stampBase);
  // Catch up to the target rate (timers drift on a busy machine).
  const due = Math.min(Math.round(((Date.now() - t0) / 1000) * rate), rate * seconds);
  for (; step < due; step++) {
    const ev = EventType.fromObject({ wall_time: now, step, summary: { value: [{ tag: `bench/tag_${step % tags}`, simple_value: value(step) }] } });
    parts.push(frameRecord(EventType.encode(ev).finish()));
  }
  if (parts.length) fs.writeSync(fd, Buffer.concat(parts));
  if (step >= rate * seconds) {
    clearInterval(timer);
    fs.closeSync(fd);
    process.stdout.write(`${step}\n`);
  }
}, sliceMs);
