// A run opened envelope-first, host side: the chart of an envelope shows the
// same min/max band as a downsample of all its points; a zoom asks the relay for the exact
// points of the visible range and the chart then shows them; zooming out goes back to the
// envelope; live points after the envelope add to it; envelope-first sources are not
// persisted (a reload opens them envelope-first again).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { EnvelopeBuilder } from '../../../../src/relay/envelope/builder';
import { downsample } from '../../../../src/metrics/store/downsample';
import { MetricsStore, seriesKey } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { ChartFrame } from '../../../../src/metrics/protocol/frames';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { METRICS_PROTOCOL_VERSION } from '../../../../src/metrics/protocol/view-protocol';
import type { DetailMessage, DetailRequestMessage } from '../../../../src/relay-protocol/envelope';
import type { EnvelopeBatch } from '../../../../src/relay-protocol/envelope-frame';
import { toWireNumber } from '../../../../src/relay-protocol/messages';
import { rng } from '../../../harness/rng';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const TAG = 'actor/pg_loss';
const WIDTH = 300;

interface Pts {
  step: number[];
  wall: number[];
  value: number[];
}

/** 20 000 points with spikes, NaN and ±Inf; steps 0.. with a few holes. */
function points(seed: number): Pts {
  const rand = rng(seed);
  const p: Pts = { step: [], wall: [], value: [] };
  for (let s = 0; s < 20_000; s++) {
    if (rand() < 0.05) continue;
    const r = rand();
    p.step.push(s);
    p.wall.push(1.7e9 + s);
    p.value.push(r < 0.01 ? NaN : r < 0.015 ? Infinity : r < 0.02 ? -Infinity : r < 0.021 ? 1000 * (rand() - 0.5) : Math.sin(s / 300) + rand() * 0.1);
  }
  return p;
}

function envelopeOf(p: Pts, buckets: number): EnvelopeBatch {
  const b = new EnvelopeBuilder(buckets);
  for (let i = 0; i < p.step.length; i++) b.add(p.step[i], p.wall[i], p.value[i]);
  return {
    type: 'envelope',
    source: 'run/events',
    run: 'run',
    role: 'trainer',
    tag: TAG,
    points: b.points,
    cursor: { source: 'run/events', fid: '1:2', offset: 999 },
    env: b.arrays(),
  };
}

/** The relay's answer: exact points of the range (what envelope/detail.ts reads from the file). */
function answer(p: Pts, q: Omit<DetailRequestMessage, 'type' | 'request'>): DetailMessage {
  const idx = p.step.map((s, i) => i).filter((i) => p.step[i] >= q.from && p.step[i] <= q.to);
  return {
    type: 'detail',
    request: 1,
    source: q.source,
    tag: q.tag,
    from: q.from,
    to: q.to,
    points: { step: idx.map((i) => p.step[i]), wallTime: idx.map((i) => p.wall[i]), value: idx.map((i) => toWireNumber(p.value[i])) },
  };
}

function setup(p: Pts, dir?: string) {
  const store = new MetricsStore({ dir });
  const asked: Omit<DetailRequestMessage, 'type' | 'request'>[] = [];
  const ctl = new ViewController(
    store,
    {
      post: () => undefined,
      readDetail: (_ep, q) => {
        asked.push(q);
        return Promise.resolve(answer(p, q));
      },
    },
    silentLogger,
    strings,
    { smoothing: 0 },
  );
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  return { store, ctl, asked };
}

function show(ctl: ViewController): ChartFrame {
  ctl.flush();
  ctl.receive({ type: 'viewport', charts: [{ id: TAG, width: WIDTH }], visible: [TAG] });
  return ctl.engine.fullFrame(TAG)!;
}

/** Finite values of the band, for comparing (null where a bucket holds no finite value). */
const band = (f: { lo: (number | null)[]; hi: (number | null)[] }) => ({ lo: f.lo, hi: f.hi });

test('an envelope draws the band of every point: equal to the downsample of all points', () => {
  const p = points(1);
  const { ctl } = setup(p);
  ctl.ingestEnvelope('ep', envelopeOf(p, 1024));
  const frame = show(ctl);
  const want = downsample(p.step, p.value, WIDTH);
  assert.equal(frame.dx, want.grid.dx);
  assert.equal(frame.origin, want.grid.origin);
  assert.equal(frame.points, p.step.length, 'the chart stands for every point');
  assert.deepEqual(band(frame.series[0]), band(want), 'min/max per chart bucket as from all points');
  ctl.dispose();
});

test('a zoom reads the exact points of the range; zooming out goes back to the envelope', async () => {
  const p = points(2);
  const { ctl, asked } = setup(p);
  ctl.ingestEnvelope('ep', envelopeOf(p, 256)); // width 128: coarser than a zoomed chart's grid
  const full = show(ctl);
  ctl.receive({ type: 'zoom', chart: TAG, range: [5000, 5200] });
  const placeholder = ctl.engine.fullFrame(TAG)!;
  assert.equal(asked.length, 1, 'one detail read for the zoom');
  assert.deepEqual([asked[0].from, asked[0].to, asked[0].tag, asked[0].cursor.offset], [5000, 5200, TAG, 999]);
  assert.ok(asked[0].maxPoints >= WIDTH);
  await new Promise((r) => setImmediate(r));
  const zoomed = ctl.engine.fullFrame(TAG)!;
  const inRange = p.step.map((s, i) => i).filter((i) => p.step[i] >= 5000 && p.step[i] <= 5200);
  const want = downsample(
    inRange.map((i) => p.step[i]),
    inRange.map((i) => p.value[i]),
    WIDTH,
    { range: [5000, 5200] },
  );
  assert.equal(zoomed.dx, 1, 'one step a bucket');
  assert.deepEqual(band(zoomed.series[0]), band(want), 'exact values on zoom');
  assert.deepEqual(zoomed.series[0].y, want.y);
  assert.notDeepEqual(band(placeholder.series[0]), band(want), 'the envelope alone could not show them');
  assert.equal(asked.length, 1, 'the window is kept: no second read');
  ctl.receive({ type: 'zoom', chart: TAG, range: null });
  assert.deepEqual(band(ctl.engine.fullFrame(TAG)!.series[0]), band(full.series[0]), 'zoomed out: the envelope again');
  ctl.dispose();
});

test('live points after the envelope join it; envelope-first sources are not persisted', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envelope-store-'));
  const p = points(3);
  const { store, ctl } = setup(p, dir);
  ctl.ingestEnvelope('ep', envelopeOf(p, 1024));
  const one = (tag: string, step: number, wallTime: number, value: number) => [
    { tag, step: Float64Array.of(step), wallTime: Float64Array.of(wallTime), value: Float64Array.of(value) },
  ];
  ctl.ingest('ep', {
    type: 'points',
    source: 'run/events',
    run: 'run',
    role: 'trainer',
    cursor: { source: 'run/events', fid: '1:2', offset: 1500 },
    series: one(TAG, 20_000, 1.7e9 + 20_000, 5),
  });
  ctl.ingest('ep', {
    type: 'points',
    source: 'run/other',
    run: 'run',
    role: 'trainer',
    cursor: { source: 'run/other', fid: '1:3', offset: 10 },
    series: one('other', 1, 1, 1),
  });
  const frame = show(ctl);
  assert.equal(frame.points, p.step.length + 1);
  assert.equal(frame.series[0].hi.at(-1), 5, 'the live point is drawn');
  assert.equal(store.runStart('run'), 1, 'the run starts at its earliest point, envelope or not');
  store.flush();
  ctl.dispose();
  const again = new MetricsStore({ dir });
  assert.equal(again.get(seriesKey('run', 'trainer', TAG)), undefined, 'the envelope series is opened afresh next time');
  assert.ok(again.get(seriesKey('run', 'trainer', 'other')), 'other series are kept');
  assert.deepEqual(
    again.cursors('ep').map((c) => c.source),
    ['run/other'],
    'only the streamed source resumes from its cursor',
  );
});
