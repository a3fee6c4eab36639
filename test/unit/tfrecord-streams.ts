// Event streams for the reader's tests: fixed-seed mixes of every scalar encoding.
import { EventType } from '../../src/tfrecord/event-proto';
import { ScalarDecoder } from '../../src/tfrecord/scalars';
import { rng } from './relay/helpers';

/** One point as a string that tells NaN, -0 and the infinities apart. */
export const fmtPoint = (t: string, s: number, w: number, v: number): string => `${t}|${s}|${w}|${Object.is(v, -0) ? '-0' : String(v)}`;

/** The points of records (unframed events) by protobufjs's full decode: the reference. */
export function referencePoints(records: Buffer[]): string[] {
  const out: string[] = [];
  const full = new ScalarDecoder({ learnShapes: false });
  for (const r of records) full.decode(r, 0, r.length, { add: (t, s, w, v) => out.push(fmtPoint(t, s, w, v)) });
  return out;
}

/**
 * `count` serialized events: simple_value, f32/f64 tensors (content, packed and unpacked),
 * plugin metadata, several tags per step, steps that jump across varint lengths, and special
 * values.
 */
export function mixedRecords(seed: number, count: number): Buffer[] {
  const rand = rng(seed);
  const tags = ['train/loss', 'rollout/reward/mean', 'hist/w', 'eval/acc', '中文/奖励'];
  const records: Buffer[] = [];
  let step = 0;
  const steps = [0, 1, 126, 127, 128, 129, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 35, 2 ** 50];
  const f32 = (x: number) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(x);
    return b;
  };
  const f64 = (x: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    return b;
  };
  const specials = [NaN, Infinity, -Infinity, -0, 0, 1e-40, 3.4e38];
  for (let i = 0; i < count; i++) {
    // mostly steady writers (several tags per step, in turn), sometimes a jump across a varint length
    step = rand() < 0.02 ? steps[Math.floor(rand() * steps.length)] : i % 3 === 0 ? step + 1 : step;
    const value = rand() < 0.05 ? specials[Math.floor(rand() * specials.length)] : (rand() - 0.5) * 10 ** Math.floor(rand() * 8);
    const tag = tags[i % tags.length];
    const kind = Math.floor(rand() * 6);
    const metadata = rand() < 0.03 ? { plugin_data: { plugin_name: tag.startsWith('hist') ? 'histograms' : 'scalars' } } : undefined;
    let v: Record<string, unknown>;
    if (kind <= 1) v = { tag, simple_value: value, metadata };
    else if (kind === 2) v = { tag, metadata, tensor: { dtype: 1, tensor_content: f32(value) } };
    else if (kind === 3) v = { tag, metadata, tensor: { dtype: 2, tensor_content: f64(value) } };
    else if (kind === 4) v = { tag, metadata, tensor: { dtype: 1, float_val: [value] } };
    else v = { tag, metadata, tensor: { dtype: 2, double_val: [value, value + 1] } };
    const values = [v];
    if (rand() < 0.05) values.push({ tag: 'extra/second', simple_value: value / 3 });
    const wall = rand() < 0.02 ? undefined : 1.7e9 + i * 0.25;
    records.push(Buffer.from(EventType.encode(EventType.fromObject({ wall_time: wall, step, summary: { value: values } })).finish()));
  }
  return records;
}
