// The references the envelope tests compare with: every point of an event file by the full
// protobuf decode, and the envelope of a list of points computed the obvious way.
import * as fs from 'node:fs';
import { EventType } from '../../../../src/tfrecord/event-proto';
import { ScalarDecoder } from '../../../../src/tfrecord/scalars';
import { frameRecord } from '../../../../src/tfrecord/scan';
import type { EnvelopeColumns } from '../../../../src/relay-protocol/envelope';
import { toWireNumber } from '../../../../src/relay-protocol/messages';
import { rng } from '../helpers';

export interface P {
  tag: string;
  step: number;
  wall: number;
  value: number;
}

const SPECIALS = [NaN, Infinity, -Infinity];

/**
 * Writes an event file: `tags` tags of different lengths (tag i has about steps·(i+1)/tags
 * points), steps mostly rising with some going back, values with NaN/±Inf and spikes.
 */
export function writeEvents(file: string, seed: number, tags: number, steps: number): void {
  const rand = rng(seed);
  const out: Buffer[] = [];
  let step = Math.floor(rand() * 100);
  for (let i = 0; i < steps; i++) {
    step = rand() < 0.01 ? Math.max(0, step - Math.floor(rand() * 50)) : step + 1 + Math.floor(rand() * 3);
    const values = [];
    for (let t = 0; t < tags; t++) {
      if (rand() > (t + 1) / tags) continue;
      const r = rand();
      const v = r < 0.02 ? SPECIALS[Math.floor(rand() * 3)] : r < 0.03 ? (rand() - 0.5) * 1e6 : Math.sin(step / 50 + t) + rand() * 0.1;
      // Both encodings: simple_value (float32) and a float64 tensor.
      values.push(t % 2 ? { tag: `tag/${t}`, simple_value: v } : { tag: `tag/${t}`, tensor: { dtype: 2, double_val: [v] } });
    }
    const ev = EventType.fromObject({ wall_time: 1.7e9 + i, step, summary: { value: values } });
    out.push(frameRecord(EventType.encode(ev).finish()));
  }
  fs.appendFileSync(file, Buffer.concat(out));
}

/** Every point of a file (whole records only), in file order. */
export function allPoints(file: string, end = Infinity): P[] {
  const buf = fs.readFileSync(file);
  const out: P[] = [];
  const dec = new ScalarDecoder({ learnShapes: false });
  let at = 0;
  while (at + 12 <= Math.min(buf.length, end)) {
    const len = buf.readUInt32LE(at);
    if (at + 16 + len > Math.min(buf.length, end)) break;
    dec.decode(buf, at + 12, at + 12 + len, { add: (tag, step, wall, value) => out.push({ tag, step, wall, value }) });
    at += 16 + len;
  }
  return out;
}

/** The envelope of `points` at bucket width `width`, by the definition in src/relay-protocol/envelope.ts. */
export function bruteEnvelope(points: P[], width: number): EnvelopeColumns {
  const by = new Map<number, P[]>();
  for (const p of points) {
    const k = Math.floor(p.step / width);
    if (!by.has(k)) by.set(k, []);
    by.get(k)!.push(p);
  }
  const out: EnvelopeColumns = {
    width,
    bucket: [],
    count: [],
    min: [],
    max: [],
    sum: [],
    firstStep: [],
    firstValue: [],
    firstWall: [],
    lastStep: [],
    lastValue: [],
    lastWall: [],
    nan: [],
    posInf: [],
    negInf: [],
  };
  for (const k of [...by.keys()].sort((a, b) => a - b)) {
    const ps = by.get(k)!;
    const finite = ps.filter((p) => Number.isFinite(p.value)).map((p) => p.value);
    let first = ps[0];
    let last = ps[0];
    for (const p of ps) {
      if (p.step < first.step) first = p;
      if (p.step >= last.step) last = p;
    }
    out.bucket.push(k);
    out.count.push(ps.length);
    out.min.push(finite.length ? finite.reduce((a, b) => (b < a ? b : a)) : null);
    out.max.push(finite.length ? finite.reduce((a, b) => (b > a ? b : a)) : null);
    out.sum.push(finite.reduce((a, b) => a + b, 0));
    out.firstStep.push(first.step);
    out.firstValue.push(toWireNumber(first.value));
    out.firstWall.push(first.wall);
    out.lastStep.push(last.step);
    out.lastValue.push(toWireNumber(last.value));
    out.lastWall.push(last.wall);
    out.nan.push(ps.filter((p) => Number.isNaN(p.value)).length);
    out.posInf.push(ps.filter((p) => p.value === Infinity).length);
    out.negInf.push(ps.filter((p) => p.value === -Infinity).length);
  }
  return out;
}

/** Compares envelopes: every column exactly, the sums to rounding. */
export function sameEnvelope(got: EnvelopeColumns, want: EnvelopeColumns): string | undefined {
  if (got.width !== want.width) return `width ${got.width} ≠ ${want.width}`;
  for (const k of [
    'bucket',
    'count',
    'min',
    'max',
    'firstStep',
    'firstValue',
    'firstWall',
    'lastStep',
    'lastValue',
    'lastWall',
    'nan',
    'posInf',
    'negInf',
  ] as const) {
    const a = JSON.stringify(got[k]);
    const b = JSON.stringify(want[k]);
    if (a !== b) return `${k} differs`;
  }
  for (let i = 0; i < want.sum.length; i++)
    if (Math.abs(got.sum[i] - want.sum[i]) > 1e-6 * (1 + Math.abs(want.sum[i]))) return `sum[${i}] ${got.sum[i]} ≠ ${want.sum[i]}`;
  return undefined;
}
