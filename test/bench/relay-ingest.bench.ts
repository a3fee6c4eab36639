// `npm run bench -- relay-ingest`: the client side of the metrics path, from the bytes a relay
// sent to the points in the store (binary points frames, src/relay-protocol/points-frame.ts), two
// ways in one run on the same batches:
//   old     a JSON points message → one object per point → regrouped per series into
//           {step, wallTime, value} objects → store (the path before binary frames, kept here
//           as the peer: the protocol has no JSON points any more)
//   binary  the binary points frame → typed-array views → store (this client and relay)
// Trials alternate the two (this machine is shared); medians. Garbage: the GC time during a
// run (the store's columns are off-heap: what is collected is what a path allocated per point),
// and the peak of heapUsed above the heap before it (capped by the young generation's size).
// Ends with: BENCH relay-ingest old_points_per_s=… binary_points_per_s=… binary_vs_old=… old_gc_ms=… binary_gc_ms=… old_heap_mb=… binary_heap_mb=…
import { PerformanceObserver } from 'node:perf_hooks';
import { MetricsStore, Point } from '../../src/metrics/store/store';
import { PointBatch } from '../../src/relay/sources/source';
import { encodePointsFrame } from '../../src/relay-protocol/points-frame';
import { readFrame } from '../../src/relay-protocol/client';
import { type Cursor, type SourceInfo, type WireNumber, fromWireNumber, toWireNumber } from '../../src/relay-protocol/messages';

/** The former JSON points message: point i is (tags[tag[i]], step[i], wallTime[i], value[i]). */
interface JsonPoints {
  type: 'points';
  run: string;
  role: string;
  tags: string[];
  tag: number[];
  step: number[];
  wallTime: number[];
  value: WireNumber[];
  cursor: Cursor;
}

const TAGS = 50;
const STEPS = 20_000;
const STEPS_PER_BATCH = 40; // 2000 points a batch, about what a 256 KiB read of an event file gives
const TRIALS = 5;
const info: SourceInfo = { id: 'tfevents:run/events', kind: 'tfevents', run: 'run', role: 'trainer', path: 'events' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const gc = (global as { gc?: () => void }).gc ?? (() => undefined);

/** The batches as a relay reads them (arrival order: each step writes every tag), in both wire forms. */
function wire(): { json: Buffer[]; frames: Buffer[]; points: number } {
  const json: Buffer[] = [];
  const frames: Buffer[] = [];
  const b = new PointBatch();
  let points = 0;
  for (let s0 = 0; s0 < STEPS; s0 += STEPS_PER_BATCH) {
    b.clear();
    for (let s = s0; s < s0 + STEPS_PER_BATCH; s++)
      for (let t = 0; t < TAGS; t++) b.add(`tag/${t}`, s, 1.7e9 + s * 3.5, s % 97 === 5 ? NaN : Math.sin(s + t), t);
    points += b.size;
    const cursor = { source: info.id, fid: '1:2', offset: s0 + STEPS_PER_BATCH };
    // The former relay's JSON: points in arrival order (not grouped by tag).
    const n = b.size;
    const tag: number[] = [];
    const step: number[] = [];
    const wallTime: number[] = [];
    const value: WireNumber[] = [];
    const batch = b.toBatch(info, cursor);
    for (let i = 0; i < n; i++) {
      const t = i % TAGS;
      const k = Math.floor(i / TAGS);
      tag.push(t);
      step.push(batch.series[t].step[k]);
      wallTime.push(batch.series[t].wallTime[k]);
      value.push(toWireNumber(batch.series[t].value[k]));
    }
    json.push(
      Buffer.from(JSON.stringify({ type: 'points', source: info.id, run: info.run, role: info.role, tags: b.tags, tag, step, wallTime, value, cursor })),
    );
    frames.push(Buffer.from(encodePointsFrame(batch)));
  }
  return { json, frames, points };
}

interface OldPoint {
  run: string;
  role: string;
  tag: string;
  step: number;
  wallTime: number;
  value: number;
}

/** The former client path: parse, one object per point, regroup per series, store. */
function oldIngest(store: MetricsStore, text: Buffer): void {
  const msg = JSON.parse(text.toString('utf8')) as JsonPoints;
  const points = new Array<OldPoint>(msg.tag.length);
  for (let i = 0; i < msg.tag.length; i++)
    points[i] = { run: msg.run, role: msg.role, tag: msg.tags[msg.tag[i]], step: msg.step[i], wallTime: msg.wallTime[i], value: fromWireNumber(msg.value[i]) };
  const groups = new Map<string, { tag: string; role: string; points: Point[] }>();
  for (const p of points) {
    const id = `${p.role}\u0000${p.tag}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { tag: p.tag, role: p.role, points: [] }));
    g.points.push({ step: p.step, wallTime: p.wallTime, value: p.value });
  }
  for (const g of groups.values()) store.add(msg.run, g.role, g.tag, g.points);
  store.setCursor('ep', msg.cursor);
}

/** This client: a binary frame to columns, each tag's columns into the store (as ViewController.ingest). */
function newIngest(store: MetricsStore, data: Buffer): void {
  const b = readFrame(data, true);
  if (b.type !== 'points') throw new Error('not points');
  for (const s of b.series) if (s.step.length) store.addColumns(b.run, b.role, s.tag, s);
  store.setCursor('ep', b.cursor);
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });
/** Lets the GC entries of what just ran be delivered. */
const settle = () => new Promise((r) => setTimeout(r, 20));

interface Run {
  pps: number;
  heapMb: number;
  gcMs: number;
}

async function trial(inputs: Buffer[], one: (store: MetricsStore, data: Buffer) => void, points: number): Promise<Run> {
  gc();
  await settle();
  const gc0 = gcMs;
  const store = new MetricsStore();
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < inputs.length; i++) {
    one(store, inputs[i]);
    if (i % 10 === 9) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const stored = store.list().reduce((n, s) => n + s.length, 0);
  if (stored !== points) throw new Error(`stored ${stored} of ${points} points`);
  await settle();
  return { pps: points / seconds, heapMb: (peak - heap0) / 1048576, gcMs: gcMs - gc0 };
}

async function main(): Promise<void> {
  const { json, frames, points } = wire();
  const jsonBytes = json.reduce((n, b) => n + b.length, 0);
  const frameBytes = frames.reduce((n, b) => n + b.length, 0);
  console.log(`\n== client ingest: ${fmt(points)} points (${TAGS} tags × ${fmt(STEPS)} steps) in ${json.length} batches, from the received bytes to the store`);
  console.log(
    `  on the wire: JSON ${fmt(jsonBytes)} bytes (${(jsonBytes / points).toFixed(1)} B/point), binary frames ${fmt(frameBytes)} bytes (${(frameBytes / points).toFixed(1)} B/point)`,
  );
  const paths = {
    old: (s: MetricsStore, d: Buffer) => oldIngest(s, d),
    binary: (s: MetricsStore, d: Buffer) => newIngest(s, d),
  };
  const input = { old: json, binary: frames };
  const runs: Record<keyof typeof paths, Run[]> = { old: [], binary: [] };
  for (const k of ['old', 'binary'] as const) await trial(input[k], paths[k], points); // warm-up (JIT)
  for (let t = 0; t < TRIALS; t++) {
    const order = (['old', 'binary'] as const).slice();
    if (t % 2) order.reverse();
    for (const k of order) runs[k].push(await trial(input[k], paths[k], points));
  }
  const pps = (k: keyof typeof paths) => median(runs[k].map((r) => r.pps));
  const heap = (k: keyof typeof paths) => median(runs[k].map((r) => r.heapMb));
  const gcOf = (k: keyof typeof paths) => median(runs[k].map((r) => r.gcMs));
  for (const k of ['old', 'binary'] as const) {
    console.log(
      `  ${k.padEnd(7)} ${fmt(pps(k)).padStart(12)} points/s  GC ${gcOf(k).toFixed(0).padStart(4)} ms  heap +${heap(k).toFixed(1)} MB   trials ${runs[k].map((r) => fmt(r.pps)).join(', ')}`,
    );
  }
  console.log(`  binary / old: ${(pps('binary') / pps('old')).toFixed(2)}× points/s`);
  console.log(
    `\nBENCH relay-ingest old_points_per_s=${Math.round(pps('old'))} binary_points_per_s=${Math.round(pps('binary'))} binary_vs_old=${(pps('binary') / pps('old')).toFixed(2)} old_gc_ms=${gcOf('old').toFixed(0)} binary_gc_ms=${gcOf('binary').toFixed(0)} old_heap_mb=${heap('old').toFixed(1)} binary_heap_mb=${heap('binary').toFixed(1)}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
