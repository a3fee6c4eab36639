// The byte-level reader of Ray's timeline.json (timeline-scan.ts): an event of the common shape
// is read in place (no string made per event, no JSON.parse), any other shape through JSON.parse
// by the same rules, so both give the same columns; the bounds (an object's length, its nesting)
// hold whatever the chunking. test/fixtures/pipeline/ray-timeline.json is a real file Ray wrote.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { TimelineIndex } from '../../../../src/relay/sources/ray-timeline';
import { scanTimeline } from '../../../../src/relay/sources/timeline-scan';
import { StringTable } from '../../../../src/relay/sources/timeline-strings';
import { repoRoot } from '../../../harness/paths';

const real = path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray-timeline.json');

function file(text: string): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-scan-')), 'timeline.json');
  fs.writeFileSync(f, text);
  return f;
}

test('a real timeline is read in place: each distinct string decoded once, no JSON.parse', async () => {
  const proto = Buffer.prototype as unknown as { toString: (...a: unknown[]) => string };
  const toString = proto.toString;
  const parse = JSON.parse;
  let decoded = 0;
  let parsed = 0;
  proto.toString = function (this: Buffer, ...args: unknown[]) {
    decoded++;
    return toString.apply(this, args);
  };
  JSON.parse = ((...args: Parameters<typeof parse>): unknown => {
    parsed++;
    return parse(...args) as unknown;
  }) as typeof parse;
  let t: TimelineIndex;
  try {
    t = await TimelineIndex.read(real);
  } finally {
    proto.toString = toString;
    JSON.parse = parse;
  }
  assert.ok(t.events > 200);
  assert.equal(parsed, 0);
  assert.ok(decoded <= t.strings.text.length, `${decoded} strings decoded for ${t.strings.text.length} distinct ones and ${t.events} events`);
});

test('the same events written in shapes JSON.parse reads give the same columns', async () => {
  const plain =
    '[{"cat":"task::runner_0:WorkflowRunner.__init__","ph":"X","ts":1000.5,"dur":20,"pid":"n1","tid":"worker:ab"},' +
    ' {"cat":"task::WorkflowRunner.run_task","name":"run_task","ph":"X","ts":1030,"dur":5.25,"pid":"n1","tid":"worker:ab","args":{"k":[1,{"x":null}]}},' +
    ' {"name":"x","ph":"X","ts":1040,"pid":7,"tid":3}]';
  const other =
    '[{"c\\u0061t":"task::runner_0:WorkflowRunner.__init__","ph":"X","ts":1.0005e3,"dur":2e1,"pid":"n1","tid":"worker:\\u0061b"},' +
    ' {"cat":"task::WorkflowRunner.run_task","name":"run\\u005ftask","ph":"X","ts":1030.0,"dur":5.25,"pid":"n\\u0031","tid":"worker:ab","args":{"k":"\\n"}},' +
    ' {"name":"x","ph":"\\u0058","ts":1040,"pid":7.0,"tid":"3"}]';
  const a = (await TimelineIndex.read(file(plain))).window(null, null, 100);
  const b = (await TimelineIndex.read(file(other))).window(null, null, 100);
  assert.deepEqual(b, a);
  assert.deepEqual(a.lanes, ['runner_0 (WorkflowRunner) · n1', '3 · 7']);
  assert.deepEqual(a.names, ['runner_0:WorkflowRunner.__init__', 'WorkflowRunner.run_task', 'x']);
  assert.deepEqual(a.start, [0, 29.5, 39.5]);
  assert.deepEqual(a.dur, [20, 5.3, 0]);
});

test('an event longer than the bound is skipped whatever the chunking, one nested too deep is corrupt', async () => {
  const long = `{"ph":"X","ts":1,"dur":1,"args":"${'a'.repeat(1024 * 1024)}"}`;
  const f = file(`[${long}, {"ph":"X","ts":2,"dur":1}, ${long.slice(0, 1024 * 1024 + 100)}`);
  for (const chunkBytes of [4 * 1024 * 1024, 65536]) {
    const t = await TimelineIndex.read(f, { chunkBytes });
    assert.equal(t.events, 1);
    assert.deepEqual(t.problems(), [
      { kind: 'too-long', count: 2 },
      { kind: 'truncated', count: 1 },
    ]);
  }
  const nest = (d: number) => `{"ph":"X","ts":1,"dur":1,"args":${'['.repeat(d - 1)}${']'.repeat(d - 1)}}`;
  const deep = await TimelineIndex.read(file(`[${nest(64)}, ${nest(65)}]`));
  assert.equal(deep.events, 1);
  assert.deepEqual(deep.problems(), [{ kind: 'corrupt', count: 1 }]);
});

test('over the cap a window keeps the longest, longest first and ties in file order (a stable sort)', async () => {
  const durs = [5, 1, 7, 5, 3, 7, 5, 0, 5, 2];
  const f = file(`[${durs.map((d, i) => JSON.stringify({ ph: 'X', ts: i * 10, dur: d, pid: 1, tid: 1, name: `e${i}` })).join(',')}]`);
  const w = (await TimelineIndex.read(f)).window(null, null, 5);
  const stable = durs
    .map((d, i) => ({ d, i }))
    .sort((a, b) => b.d - a.d)
    .slice(0, 5);
  assert.deepEqual(
    w.start,
    stable.map((e) => e.i * 10),
  );
  assert.equal(w.dropped, 5);
});

/** Each `ts` the scanner reads from `values` (written as they are, one event each), in order. */
async function scannedTs(values: string[]): Promise<number[]> {
  const f = file(`[${values.map((v) => `{"ph":"X","ts":${v},"dur":0}`).join(',')}]`);
  const got: number[] = [];
  const fd = fs.openSync(f, 'r');
  try {
    await scanTimeline(fd, 65536, {
      strings: new StringTable(),
      event: (ts) => got.push(ts) > 0,
      problem: (kind) => assert.fail(`${kind} reading ${f}`),
    });
  } finally {
    fs.closeSync(fd);
  }
  return got;
}

test('numbers are read as Number() reads them, to the last bit: Ray-like 16-17-digit times, halfway cases, exponents', async () => {
  // a seeded generator: the same strings on every run
  let seed = 36;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const digitString = (n: number) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');
  const values: string[] = [];
  for (let k = 0; k < 10_000; k++) {
    // 16 or 17 significant digits, the point anywhere (Ray: one digit after it)
    const digits = `${1 + Math.floor(random() * 9)}${digitString(15 + Math.floor(random() * 2))}`;
    const point = k % 2 ? digits.length - 1 : 1 + Math.floor(random() * (digits.length - 1));
    values.push(`${random() < 0.2 ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`);
  }
  for (let k = 0; k < 2_000; k++) {
    // exactly halfway between two doubles at Ray's magnitudes (2^50…2^53), and a hair either side
    const x = 2 ** (50 + Math.floor(random() * 3)) * (1 + random());
    const ulp = 2 ** (Math.floor(Math.log2(x)) - 52);
    const fraction = ulp / 2 + ulp * Math.floor(random() / ulp);
    const exact = `${Math.floor(x)}.${fraction.toFixed(4).slice(2).replace(/0+$/, '')}`;
    values.push(exact, `${exact}00001`, `${exact.slice(0, -1)}${Number(exact.slice(-1)) - 1}99999`);
  }
  for (let k = 0; k < 1_000; k++) values.push(`${digitString(1 + Math.floor(random() * 20))}e${Math.floor(random() * 60) - 30}`.replace(/^0+(?=\d)/, ''));
  values.push(
    ...['0.1', '0.2', '0.3', '-0', '-0.0', '0', '0.0', '1e22', '1e23', '1E-7', '2.5e-324', '5e-324', '1.7976931348623157e308'],
    ...['9007199254740993', '9007199254740992', '9007199254740991.5', '9007199254740992.5', '4503599627370496.5', '4503599627370497.5'],
    ...['1796618490721803.8', '1796618490721977.8', '1796618490732228.2', '123456789012345.67', '12345678901234.567', '0.30000000000000004'],
    ...['999999999999999.9', '999999999999999.95', '1000000000000000.0000000000000001', '0.000000000000000001', '0.9999999999999999999'],
  );
  assert.deepEqual(
    values.filter((v) => !Number.isFinite(JSON.parse(v))),
    [],
  );
  const got = await scannedTs(values);
  assert.equal(got.length, values.length);
  const wrong = values.filter((v, k) => !Object.is(got[k], Number(v)));
  assert.deepEqual(
    wrong.slice(0, 5).map((v) => `${v} → ${got[values.indexOf(v)]}, Number(): ${Number(v)}`),
    [],
  );
  // the generated values do reach the halfway cases (ties to even), not only easy ones
  assert.ok(values.some((v) => v === '4503599627370496.5' && Number(v) === 4503599627370496));
});
