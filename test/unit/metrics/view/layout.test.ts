// Charts grouped by tag prefix in Trinity-RFT's order, a pinned row of what people watch first,
// runs overlaid with one colour per run.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupOf, layoutCharts, pinnedRank } from '../../../../src/metrics/view/layout';
import { seriesKey } from '../../../../src/metrics/store/store';

const ref = (run: string, role: string, tag: string) => ({ key: seriesKey(run, role, tag), run, role, tag });

test('pinned row first (reward/accuracy means, eval scores, pg/kl loss, response length), then sections in order', () => {
  const tags = [
    ['trainer', 'time/train_step'],
    ['trainer', 'perf/throughput'],
    ['trainer', 'actor/kl_loss'],
    ['trainer', 'actor/entropy'],
    ['trainer', 'response_length/mean'],
    ['trainer', 'critic/advantages/mean'],
    ['explorer', 'eval/gsm8k-eval/accuracy/mean_4'],
    ['explorer', 'eval/gsm8k-eval/accuracy/std_4'],
    ['explorer', 'rollout/accuracy/mean'],
    ['explorer', 'rollout/model_version'],
    ['trainer', 'actor/pg_loss'],
    ['trainer', 'zzz_custom'],
  ];
  const charts = layoutCharts(tags.map(([role, tag]) => ref('run1', role, tag)));
  assert.deepEqual(
    charts.map((c) => [c.tag, c.pinned, c.group]),
    [
      ['rollout/accuracy/mean', true, 'rollout'],
      ['eval/gsm8k-eval/accuracy/mean_4', true, 'eval'],
      ['actor/pg_loss', true, 'actor'],
      ['actor/kl_loss', true, 'actor'],
      ['response_length/mean', true, 'response_length'],
      ['rollout/model_version', false, 'rollout'],
      ['eval/gsm8k-eval/accuracy/std_4', false, 'eval'],
      ['actor/entropy', false, 'actor'],
      ['critic/advantages/mean', false, 'critic'],
      ['time/train_step', false, 'time'],
      ['perf/throughput', false, 'perf'],
      ['zzz_custom', false, ''],
    ],
  );
  assert.equal(charts.find((c) => c.tag === 'rollout/accuracy/mean')!.drill, true);
  assert.equal(charts.find((c) => c.tag === 'actor/pg_loss')!.drill, false);
});

test('runs overlaid: one chart per tag, one colour per run across charts, roles told apart when both log a tag', () => {
  const charts = layoutCharts([
    ref('b-run', 'explorer', 'rollout/accuracy/mean'),
    ref('a-run', 'explorer', 'rollout/accuracy/mean'),
    ref('a-run', 'trainer', 'time/step'),
    ref('a-run', 'explorer', 'time/step'),
    ref('b-run', 'trainer', 'actor/pg_loss'),
  ]);
  const acc = charts.find((c) => c.tag === 'rollout/accuracy/mean')!;
  assert.deepEqual(
    acc.series.map((s) => [s.label, s.color]),
    [
      ['a-run', 0],
      ['b-run', 1],
    ],
  );
  assert.equal(charts.find((c) => c.tag === 'actor/pg_loss')!.series[0].color, 1);
  const t = charts.find((c) => c.tag === 'time/step')!;
  assert.deepEqual(
    t.series.map((s) => [s.label, s.dashed]),
    [
      ['a-run (explorer)', false],
      ['a-run (trainer)', true],
    ],
  );
});

test('helpers', () => {
  assert.equal(groupOf('response_length/clip_ratio'), 'response_length');
  assert.equal(groupOf('loss'), '');
  assert.equal(pinnedRank('critic/rewards/mean'), 1);
  assert.equal(pinnedRank('bench/math/accuracy/mean@8'), 2);
  assert.equal(pinnedRank('rollout/accuracy/max'), -1);
});
