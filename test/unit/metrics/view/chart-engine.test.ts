// Streaming patches rebuild exactly what a full rebuild gives, through the webview's own
// frame decoder (applyFrame from the shared protocol).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ASSUMED_ON_SCREEN, ChartEngine } from '../../../../src/metrics/view/chart-engine';
import { layoutCharts } from '../../../../src/metrics/view/layout';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ChartData, applyFrame } from '../../../../src/metrics/protocol/frames';
import { DEFAULT_VIEW_OPTIONS, ViewOptions } from '../../../../src/metrics/protocol/view-options';

function setup(opts: Partial<ViewOptions> = {}) {
  const store = new MetricsStore();
  const options: ViewOptions = { ...DEFAULT_VIEW_OPTIONS, ...opts };
  const engine = new ChartEngine(store, () => options);
  const relayout = () => engine.setCharts(layoutCharts(store.list()));
  return { store, engine, options, relayout };
}

const plain = (d: ChartData | undefined) =>
  d && {
    origin: d.origin,
    dx: d.dx,
    n: d.n,
    series: [...d.series]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, s]) => ({
        k,
        y: [...s.y, ...Array<null>(Math.max(0, d.n - s.y.length)).fill(null)],
        lo: [...s.lo, ...Array<null>(Math.max(0, d.n - s.lo.length)).fill(null)],
        hi: [...s.hi, ...Array<null>(Math.max(0, d.n - s.hi.length)).fill(null)],
        gaps: [...s.gaps].sort((a, b) => a - b),
      })),
  };

for (const xAxis of ['step', 'wall', 'relative'] as const) {
  for (const smoothing of [0, 0.6]) {
    test(`patches == full rebuild (x=${xAxis}, smoothing=${smoothing}), through grid widening`, () => {
      const { store, engine, relayout } = setup({ xAxis, smoothing });
      const tag = 'rollout/reward/mean';
      let shown: ChartData | undefined;
      let fulls = 0;
      let patches = 0;
      for (let batch = 0; batch < 60; batch++) {
        for (const run of ['a', 'b']) {
          const from = batch * 50 + (run === 'b' ? 7 : 0);
          const points = Array.from({ length: 50 }, (_, i) => ({
            step: from + i,
            wallTime: 1.7e9 + (from + i) * 2.5 + (run === 'b' ? 100 : 0),
            value: Math.cos((from + i) / 30) + (from + i === 1234 ? 40 : 0),
          }));
          const ch = store.add(run, 'explorer', tag, points);
          if (batch === 0) {
            relayout();
            engine.setViewport([{ id: tag, width: 400 }], [tag]);
          }
          engine.onChange(ch);
        }
        for (const f of engine.collect()) {
          if (f.start === 0) fulls++;
          else patches++;
          shown = applyFrame(shown, f);
          assert.ok(shown, 'a patch did not apply');
        }
      }
      assert.ok(patches > 20, `only ${patches} patches`);
      assert.ok(fulls >= 2, 'the grid never widened');
      const full = applyFrame(undefined, engine.fullFrame(tag)!);
      assert.deepEqual(plain(shown), plain(full));
      // The spike at step 1234 of run a is in the envelope.
      assert.ok(Math.max(...full!.series.get(store.list().find((s) => s.run === 'a')!.key)!.hi.map((v) => v ?? -Infinity)) > 39);
    });
  }
}

test('only visible charts are computed; zoom limits the grid to the range', () => {
  const { store, engine, relayout } = setup({ smoothing: 0 });
  for (let i = 0; i < 30; i++) store.add('r', 'trainer', `perf/m${i}`, [{ step: 1, wallTime: 1, value: i }]);
  relayout();
  engine.setViewport(
    store.list().map((s) => ({ id: s.tag, width: 300 })),
    ['perf/m3'],
  );
  const frames = engine.collect();
  assert.deepEqual(
    frames.map((f) => f.chart),
    ['perf/m3'],
  );
  store.add(
    'r',
    'trainer',
    'actor/pg_loss',
    Array.from({ length: 10_000 }, (_, i) => ({ step: i, wallTime: i, value: i })),
  );
  relayout();
  engine.setViewport([{ id: 'actor/pg_loss', width: 100 }], ['actor/pg_loss']);
  engine.setZoom('actor/pg_loss', [5000, 5099]);
  const [z] = engine.collect();
  assert.equal(z.dx, 1);
  assert.equal(z.origin, 5000);
  assert.equal(z.n, 100);
  assert.deepEqual(z.series[0].hi.slice(0, 3), [5000, 5001, 5002]);
});

test('new charts are assumed on screen until the page reports: their frames go out with the layout', () => {
  const { store, engine, relayout } = setup({ smoothing: 0 });
  const add = (tag: string) =>
    store.add(
      'r',
      'trainer',
      tag,
      Array.from({ length: 1000 }, (_, i) => ({ step: i, wallTime: i, value: i })),
    );
  for (let i = 0; i < ASSUMED_ON_SCREEN + 6; i++) add(`perf/m${String(i).padStart(3, '0')}`);
  relayout();
  // Before any report: the top ASSUMED_ON_SCREEN charts of the layout.
  const first = engine.collect();
  assert.equal(first.length, ASSUMED_ON_SCREEN);
  assert.equal(first[0].chart, 'perf/m000');
  assert.ok(!first.some((f) => f.chart === `perf/m${ASSUMED_ON_SCREEN}`));
});

test('a viewport report speaks for the page’s cards only; new charts are assumed on screen while the layout fits', () => {
  const { store, engine, relayout } = setup({ smoothing: 0 });
  const add = (tag: string) =>
    store.add(
      'r',
      'trainer',
      tag,
      Array.from({ length: 1000 }, (_, i) => ({ step: i, wallTime: i, value: i })),
    );
  const report = (ids: string[], shown: string[]) =>
    engine.setViewport(
      ids.map((id) => ({ id, width: 600 })),
      shown,
    );
  for (let i = 0; i < 5; i++) add(`perf/m${i}`);
  relayout();
  assert.equal(engine.collect().length, 5);
  add('perf/z-late');
  relayout();
  // The page reports its 5 cards, 3 on screen: the chart it has not laid out yet keeps its state.
  report(['perf/m0', 'perf/m1', 'perf/m2', 'perf/m3', 'perf/m4'], ['perf/m0', 'perf/m1', 'perf/m2']);
  assert.deepEqual(
    engine.collect().map((f) => f.chart),
    ['perf/z-late'],
  );
  // Not everything fitted: a chart added now waits for the page's report.
  add('perf/z-later');
  relayout();
  assert.deepEqual(engine.collect(), []);
  const all = store.list().map((s) => s.tag);
  report(all, all);
  assert.deepEqual(
    engine
      .collect()
      .map((f) => f.chart)
      .sort(),
    ['perf/m3', 'perf/m4', 'perf/z-later'],
  );
  // Everything fits now: the next new chart goes out with its layout, at the reported width.
  add('perf/z-last');
  relayout();
  const frames = engine.collect();
  assert.deepEqual(
    frames.map((f) => f.chart),
    ['perf/z-last'],
  );
  assert.equal(frames[0].dx, 2); // 1000 steps on 600 px: power-of-two buckets of 2 steps
});

test('a new plot width that gives the same grid rebuilds nothing; one that does not, rebuilds', () => {
  const { store, engine, relayout } = setup({ smoothing: 0 });
  store.add(
    'r',
    'trainer',
    'actor/pg_loss',
    Array.from({ length: 100_000 }, (_, i) => ({ step: i, wallTime: i, value: i })),
  );
  relayout();
  engine.setViewport([{ id: 'actor/pg_loss', width: 600 }], ['actor/pg_loss']);
  assert.equal(engine.collect()[0].dx, 256);
  engine.setViewport([{ id: 'actor/pg_loss', width: 400 }], ['actor/pg_loss']); // 100 000 / 400 → still 256
  assert.deepEqual(engine.collect(), []);
  engine.setViewport([{ id: 'actor/pg_loss', width: 1000 }], ['actor/pg_loss']);
  assert.equal(engine.collect()[0].dx, 128);
});
