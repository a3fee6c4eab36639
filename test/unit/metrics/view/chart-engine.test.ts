// Streaming patches rebuild exactly what a full rebuild gives, through the webview's own
// frame decoder (applyFrame from the shared protocol).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChartEngine } from '../../../../src/metrics/view/chart-engine';
import { layoutCharts } from '../../../../src/metrics/view/layout';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ChartData, DEFAULT_VIEW_OPTIONS, ViewOptions, applyFrame } from '../../../../src/shared/metrics-protocol';

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
    series: [...d.series].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => ({
      k,
      y: [...s.y, ...Array(Math.max(0, d.n - s.y.length)).fill(null)],
      lo: [...s.lo, ...Array(Math.max(0, d.n - s.lo.length)).fill(null)],
      hi: [...s.hi, ...Array(Math.max(0, d.n - s.hi.length)).fill(null)],
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
  engine.setViewport([], ['perf/m3']);
  const frames = engine.collect();
  assert.deepEqual(frames.map((f) => f.chart), ['perf/m3']);
  store.add('r', 'trainer', 'actor/pg_loss', Array.from({ length: 10_000 }, (_, i) => ({ step: i, wallTime: i, value: i })));
  relayout();
  engine.setViewport([{ id: 'actor/pg_loss', width: 100 }], ['actor/pg_loss']);
  engine.setZoom('actor/pg_loss', [5000, 5099]);
  const [z] = engine.collect();
  assert.equal(z.dx, 1);
  assert.equal(z.origin, 5000);
  assert.equal(z.n, 100);
  assert.deepEqual(z.series[0].hi.slice(0, 3), [5000, 5001, 5002]);
});
