// A Node-side event-file appender for the fault tests: deterministic points, framed with the
// same TFRecord format TensorBoard writers use (test-only; the value tests use real writers).
import * as fs from 'node:fs';
import { EventType } from '../../../src/tfrecord/event-proto';
import { frameRecord } from '../../../src/tfrecord/scan';

export const TAGS = ['train/loss', 'rollout/reward/mean'];
export const valueAt = (tag: number, step: number) => Math.fround(Math.sin(step * 0.37 + tag) * 100);

/** Appends steps [from, to) (one event per tag and step). */
export function appendSteps(file: string, from: number, to: number): void {
  const parts: Buffer[] = [];
  for (let step = from; step < to; step++) {
    for (let t = 0; t < TAGS.length; t++) {
      const ev = EventType.fromObject({ wall_time: 1.7e9 + step, step, summary: { value: [{ tag: TAGS[t], simple_value: valueAt(t, step) }] } });
      parts.push(frameRecord(EventType.encode(ev).finish()));
    }
  }
  fs.appendFileSync(file, Buffer.concat(parts));
}

/** The points of steps [0, n), as "tag@step=value" keys. */
export function expectedKeys(n: number): string[] {
  const out: string[] = [];
  for (let step = 0; step < n; step++) for (let t = 0; t < TAGS.length; t++) out.push(`${TAGS[t]}@${step}=${valueAt(t, step)}`);
  return out.sort();
}

/** Appends steps [from, to) in slices every `everyMs` ms; resolves when done. */
export function appendOverTime(file: string, from: number, steps: number, perSlice: number, everyMs: number): Promise<void> {
  let next = from;
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const to = Math.min(steps, next + perSlice);
      appendSteps(file, next, to);
      next = to;
      if (next >= steps) {
        clearInterval(timer);
        resolve();
      }
    }, everyMs);
  });
}
