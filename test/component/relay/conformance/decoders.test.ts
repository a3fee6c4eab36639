// The decoding logic of the two relays, held together input by input: thousands of seeded
// inputs — `Step N: {...}` lines in every form Trinity and numpy print and broken ones, point
// sequences for the min/max envelope (NaN, ±Infinity, -0, steps out of order, width doublings),
// event files with flipped bits, cut records and garbage — go through the Node relay's modules
// in this process and through the single-file Python relay (test/fixtures/relay/
// python_relay_probe.py), and must come out the same. Where the streams tests compare what a
// client sees, these find the input that makes two decoders drift.
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { EnvelopeBuilder } from '../../../../src/relay/envelope/builder';
import { parseStepLine } from '../../../../src/relay/sources/step-log';
import { EventType } from '../../../../src/tfrecord/event-proto';
import { TfRecordFileReader } from '../../../../src/tfrecord/file-reader';
import { frameRecord } from '../../../../src/tfrecord/scan';
import { repoRoot } from '../../../harness/paths';
import { pythonRelayBundle, relayInterpreter } from '../../../harness/relay';
import { rng, tmpDir } from '../helpers';
import { PYTHON_RUNTIMES, RelayRuntime, relaySkipReason } from './helpers';

const probeScript = path.join(repoRoot, 'test', 'fixtures', 'relay', 'python_relay_probe.py');

/** Non-finite numbers and -0 as the probe writes them. */
function num(v: number): number | string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  return Object.is(v, -0) ? '-0' : v;
}

class Probe {
  private readonly child: ChildProcess;
  private readonly waiting: ((line: string) => void)[] = [];

  constructor(runtime: RelayRuntime) {
    this.child = spawn(relayInterpreter(runtime)!, [probeScript, pythonRelayBundle], { stdio: ['pipe', 'pipe', 'inherit'] });
    createInterface({ input: this.child.stdout! }).on('line', (l) => this.waiting.shift()?.(l));
  }

  ask<T>(cmd: object): Promise<T> {
    return new Promise((resolve) => {
      this.waiting.push((l) => resolve(JSON.parse(l) as T));
      this.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
    });
  }

  close(): void {
    this.child.stdin!.end();
  }
}

const probes = new Map<RelayRuntime, Probe>();
function probe(runtime: RelayRuntime): Probe {
  let p = probes.get(runtime);
  if (!p) probes.set(runtime, (p = new Probe(runtime)));
  return p;
}
after(() => {
  for (const p of probes.values()) p.close();
});

// ---- Step lines ----------------------------------------------------------------------------

const KEYS = ["'rollout/reward/mean'", '"actor/pg_loss"', "'explorer/rollout/x'", "'trainer/step'", "'k\\'q'", "'tab\\there'", '12', "'ünï'", "''"];
const VALUES = [
  '0.5',
  '-3',
  '+2.5e-3',
  '.25',
  '5.',
  '1e400',
  'nan',
  '-inf',
  'inf',
  'np.float64(0.125)',
  'np.int64(7)',
  "float('nan')",
  "np.float32('1.5')",
  'True',
  'False',
  'np.True_',
  'None',
  'tensor(0.5, dtype=torch.float64)',
  "'text'",
  '[1, 2]',
  '{"a": 1}',
  '(1, (2, 3))',
  'datetime.datetime(2026, 1, 1)',
  'np.float64(nan)',
  '0x10',
  '1_000',
  'infinity',
  '-nan',
  'Decimal("1.5")',
  '007',
];
const PREFIXES = [
  'INFO 11-24 10:00:01 [monitor.py:135] ',
  'WARNING 02-30 25:61:99 [x.py:1] ',
  '  INFO\u00a011-24 10:00:01 ',
  '',
  '(pid=42) INFO 01-01 00:00:00 [m.py:9] ',
  'Step 9: ',
];

function stepLine(r: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const n = Math.floor(r() * 6);
  const entries = Array.from({ length: n }, () => `${pick(KEYS)}:${pick([' ', '', '  ', '\u3000'])}${pick(VALUES)}`);
  let line = `${pick(PREFIXES)}Step ${pick(['0', '12', '99999999999999999999', '-1', 'x'])}: {${entries.join(pick([', ', ',', ' ,\t']))}${pick(['', ',', ', '])}}${pick(['', ' ', '\r', '\u2028', ' trailing'])}`;
  if (r() < 0.15) line = line.slice(0, Math.floor(r() * line.length));
  if (r() < 0.05) line = line.replace('{', '{{');
  return line;
}

for (const runtime of PYTHON_RUNTIMES) {
  test(`Step lines: 5000 seeded lines parse to the same points [${runtime}]`, { skip: relaySkipReason(runtime), timeout: 120_000 }, async () => {
    const r = rng(2029);
    const lines = Array.from({ length: 5000 }, () => stepLine(r));
    const want = lines.map((l) => {
      const p = parseStepLine(l, 2026);
      return p ? [num(p.step), p.wallTime === undefined ? null : num(p.wallTime), p.values.map(([k, v]) => [k, num(v)])] : null;
    });
    assert.ok(want.filter(Boolean).length > 1000, 'the corpus has many valid lines');
    const got = await probe(runtime).ask<unknown[]>({ op: 'step_lines', lines, year: 2026 });
    for (let i = 0; i < lines.length; i++) assert.deepEqual(got[i], want[i], `line ${JSON.stringify(lines[i])}`);
  });
}

// ---- the min/max envelope ------------------------------------------------------------------

function envelopeCase(r: () => number, ascending: boolean): { cap: number; width: number; points: [number, number, number][] } {
  const cap = [2, 3, 8, 64, 100][Math.floor(r() * 5)];
  const n = Math.floor(r() * 3000);
  const points: [number, number, number][] = [];
  const zeros = r() < 1 / 3;
  let step = Math.floor((r() - 0.3) * 1000);
  for (let i = 0; i < n; i++) {
    if (ascending) step += r() < 0.02 ? Math.floor(r() * 1e5) : Math.floor(r() * 2);
    else step += r() < 0.1 ? Math.floor((r() - 0.5) * 400) : r() < 0.02 ? Math.floor(r() * 1e6) : Math.floor(r() * 3);
    const x = r();
    // Every third case: zeros of both signs and non-negative values only, so buckets' minima tie
    // at 0 / -0 when they merge (Math.min takes -0).
    const value = zeros
      ? [0, -0, -0, 0.5, 1][Math.floor(r() * 5)]
      : x < 0.03
        ? NaN
        : x < 0.05
          ? Infinity
          : x < 0.07
            ? -Infinity
            : x < 0.2
              ? -0
              : x < 0.35
                ? 0
                : x < 0.36
                  ? 1e300
                  : Math.fround((r() - 0.5) * 100);
    points.push([step, 1.7e9 + i, value]);
  }
  return { cap, width: [1, 1, 4, 3][Math.floor(r() * 4)], points };
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `envelopes: 300 seeded point sequences fold to the same buckets, bit for bit, point by point and by runs [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 120_000 },
    async () => {
      const r = rng(77);
      for (let c = 0; c < 300; c++) {
        const k = envelopeCase(r, c % 2 === 1);
        const b = new EnvelopeBuilder(k.cap, k.width);
        for (const [s, w, v] of k.points) b.add(s, w, v);
        const a = b.arrays();
        const want: Record<string, unknown> = { width: a.width, points: b.points };
        for (const [name, col] of Object.entries(a)) if (name !== 'width') want[name] = Array.from(col as Float64Array, num);
        const cmd = { op: 'envelope', cap: k.cap, width: k.width, points: k.points.map(([s, w, v]) => [s, w, num(v)]) };
        assert.deepEqual(await probe(runtime).ask<Record<string, unknown>>(cmd), want, `case ${c} (cap ${k.cap}, ${k.points.length} points)`);
        assert.deepEqual(await probe(runtime).ask<Record<string, unknown>>({ ...cmd, many: true }), want, `case ${c} by runs`);
      }
    },
  );
}

// ---- event files with damage ---------------------------------------------------------------

/** An event stream with simple values, tensors (f32, f64, int, half), metadata, several values per event. */
function eventStream(r: () => number): Buffer {
  const parts: Buffer[] = [frameRecord(EventType.encode(EventType.fromObject({ wall_time: 1.7e9, file_version: 'brain.Event:2' })).finish())];
  for (let step = 0; step < 300; step++) {
    const values: object[] = [{ tag: 'a/simple', simple_value: Math.fround(r() * 10 - 5) }];
    if (step % 3 === 0) values.push({ tag: 'b/tensor_f64', tensor: { dtype: 2, double_val: [r()] } });
    if (step % 5 === 0) values.push({ tag: 'c/tensor_content', tensor: { dtype: 1, tensor_content: Buffer.from(new Float32Array([r()]).buffer) } });
    if (step % 7 === 0) values.push({ tag: 'd/int', tensor: { dtype: 3, int_val: [Math.floor(r() * 100) - 50] } });
    if (step % 11 === 0) values.push({ tag: 'e/half', tensor: { dtype: 19, half_val: [Math.floor(r() * 65536)] } });
    if (step === 4) values.push({ tag: 'f/hist', metadata: { plugin_data: { plugin_name: 'histograms' } }, tensor: { dtype: 2, double_val: [1] } });
    if (step > 4 && step % 13 === 0) values.push({ tag: 'f/hist', tensor: { dtype: 2, double_val: [2] } });
    const ev = EventType.fromObject({ wall_time: 1.7e9 + step + r(), step: step === 200 ? -3 : step, summary: { value: values } });
    parts.push(frameRecord(EventType.encode(ev).finish()));
  }
  return Buffer.concat(parts);
}

function damaged(good: Buffer, r: () => number, i: number): Buffer {
  if (i % 4 === 0) return good.subarray(0, Math.floor(r() * good.length));
  if (i % 4 === 1) {
    const b = Buffer.from(good);
    for (let k = 1 + Math.floor(r() * 8); k > 0; k--) b[Math.floor(r() * b.length)] ^= 1 << Math.floor(r() * 8);
    return b;
  }
  if (i % 4 === 2) {
    const at = Math.floor(r() * good.length);
    return Buffer.concat([good.subarray(0, at), Buffer.from(Array.from({ length: Math.floor(r() * 200) }, () => Math.floor(r() * 256))), good.subarray(at)]);
  }
  return Buffer.from(Array.from({ length: Math.floor(r() * 4000) }, () => Math.floor(r() * 256)));
}

/** Offsets of the records of an intact stream. */
function recordOffsets(good: Buffer): number[] {
  const out: number[] = [];
  for (let p = 0; p + 12 <= good.length; p += 16 + good.readUInt32LE(p)) out.push(p);
  return out;
}

function nodeRead(file: string) {
  const byTag = new Map<string, unknown[]>();
  const reader = new TfRecordFileReader(file, 0, { pipelineMinBytes: Infinity });
  for (;;) {
    const res = reader.read(
      { add: (tag, step, wall, value) => void (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push([tag, num(step), num(wall), num(value)]) },
      1 << 20,
    );
    if (!res.more) break;
  }
  reader.close();
  return { points: [...byTag.values()].flat(), consumed: reader.offset, crc: reader.stats.crcErrors, decode: reader.stats.decodeErrors };
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `event files: 400 damaged files (cut, bit flips, garbage) decode to the same points and stop at the same byte [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 180_000 },
    async () => {
      const r = rng(4242);
      const dir = tmpDir('conf-records-');
      const good = eventStream(r);
      try {
        for (let i = -1; i < 400; i++) {
          const file = path.join(dir, `events.out.tfevents.${i}`);
          const bytes = i < 0 ? good : damaged(good, r, i);
          fs.writeFileSync(file, bytes);
          const want = nodeRead(file);
          if (i < 0) assert.ok(want.points.length > 500 && want.crc === 0, 'the intact stream reads whole');
          const got = await probe(runtime).ask<typeof want>({ op: 'records', file });
          assert.deepEqual(got, want, `file ${i}`);
          fs.rmSync(file);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `event files: a record header whose length has a flipped high bit is refused and the scan re-synchronises [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 60_000 },
    async () => {
      const dir = tmpDir('conf-highword-');
      const good = eventStream(rng(5));
      const offsets = recordOffsets(good);
      const bad = Buffer.from(good);
      bad[offsets[2] + 5] ^= 0x20; // record 2 (step 1, one value): bit 13 of the high length word
      const file = path.join(dir, 'events.out.tfevents.1');
      fs.writeFileSync(file, bad);
      try {
        const intact = nodeRead((fs.writeFileSync(path.join(dir, 'good'), good), path.join(dir, 'good')));
        const got = await probe(runtime).ask<ReturnType<typeof nodeRead>>({ op: 'records', file });
        assert.equal(got.consumed, good.length);
        assert.equal(got.points.length, intact.points.length - 1, 'the one point of record 2 is lost, nothing else');
        assert.deepEqual(got, nodeRead(file), 'the Node relay refuses the header too');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

/**
 * What writers write at scale: the same tags every step (simple values, f32 content and f64
 * tensors), steps whose varint grows (127 → 128, 16383 → 16384), wall times crossing the
 * 1024-s boundary of their high bytes, zeros and NaN among the values: the stretches the Python
 * relay decodes a cycle at a time (fastscan.py), with damage that must end a stretch exactly.
 */
function periodicStream(r: () => number): Buffer {
  const parts: Buffer[] = [];
  const tags = Array.from({ length: 40 }, (_, i) => `${['rollout', 'actor', 'critic', 'time'][i % 4]}/${'m'.repeat(1 + (i % 7))}_${i}`);
  for (const [from, to] of [
    [60, 300],
    [16300, 16470],
  ]) {
    for (let step = from; step < to; step++) {
      const values: object[][] = tags.map((tag, i) => [
        { tag, simple_value: i % 13 === 0 && step % 5 === 0 ? 0 : i === 7 && step % 17 === 0 ? NaN : Math.fround((r() - 0.5) * 10) },
      ]);
      values.push([
        {
          tag: 'torch/new_style',
          metadata: { plugin_data: { plugin_name: 'scalars' } },
          tensor: { dtype: 1, float_val: [Math.fround(r())], tensor_shape: {} },
        },
      ]);
      values.push([{ tag: 'torch/f64', tensor: { dtype: 2, double_val: [r()], tensor_shape: {} } }]);
      values.push([{ tag: 'tf2/content', tensor: { dtype: 1, tensor_content: Buffer.from(new Float32Array([r()]).buffer) } }]);
      values.forEach((value, i) => {
        const ev = EventType.fromObject({ wall_time: 1.7e9 + 1020 + step * 0.37 + i * 1e-4, step, summary: { value } });
        parts.push(frameRecord(EventType.encode(ev).finish()));
      });
    }
  }
  return Buffer.concat(parts);
}

for (const runtime of PYTHON_RUNTIMES) {
  test(
    `event files of repeating records, intact and damaged: the vectorised decode gives the Node relay's points [${runtime}]`,
    { skip: relaySkipReason(runtime), timeout: 300_000 },
    async () => {
      const r = rng(31337);
      const dir = tmpDir('conf-periodic-');
      const good = periodicStream(r);
      try {
        for (let i = -1; i < 40; i++) {
          const bytes = i < 0 ? good : damaged(good, r, i % 4 === 3 ? 1 : i);
          const file = path.join(dir, `events.out.tfevents.${i}`);
          fs.writeFileSync(file, bytes);
          const want = nodeRead(file);
          if (i < 0) {
            assert.equal(want.points.length, 410 * 43, 'the intact stream reads whole');
            const s = await probe(runtime).ask<{ records: number; stretched: number }>({ op: 'records', file, stretches: true });
            assert.ok(s.stretched > 0.9 * s.records, `most records decoded a cycle at a time (${s.stretched} of ${s.records})`);
          }
          assert.deepEqual(await probe(runtime).ask<typeof want>({ op: 'records', file }), want, `file ${i}`);
          fs.rmSync(file);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
