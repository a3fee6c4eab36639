// The step health series from the listed rows: a step is derived once its groups are whole (rows
// of a later version arrived), with the shares stepHealth gives; deriving again (a window reload)
// gives the same points, which the store drops as repeats; the view controller puts them in the
// store next to the run's reward; the work per change is that of the rows that changed.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceRow } from '../../../../src/relay-protocol/messages';
import { MetricsStore, seriesKey } from '../../../../src/metrics/store/store';
import { ExperienceIndex } from '../../../../src/metrics/store/experiences';
import { HealthSeries } from '../../../../src/metrics/view/health-series';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';

let id = 0;
function rows(version: number, task: string, rewards: number[], facts: Partial<ExperienceRow>[] = []): ExperienceRow[] {
  return rewards.map((reward, i) => ({
    id: ++id,
    table: 't',
    task_id: task,
    run_id: i,
    model_version: version,
    reward,
    timestamp: `2026-11-27 10:00:${String(version).padStart(2, '0')}`,
    response_tokens: 10,
    trained_tokens: 8,
    truncated: false,
    empty_response: false,
    ...facts[i],
  }));
}

const values = (out: ReturnType<HealthSeries['changed']>) =>
  Object.fromEntries(out.map((s) => [s.tag, [Array.from(s.points.step), Array.from(s.points.value)]]));

test("a step is derived when a later version arrives, once, with its groups' shares", () => {
  const ix = new ExperienceIndex();
  const hs = new HealthSeries(ix);
  ix.add('e', 's', 'run', [
    ...rows(1, 'a', [1, 1, 1, 1]),
    ...rows(1, 'b', [0, 1, 0, 1], [{ truncated: true }, { empty_response: true, response_tokens: 0, trained_tokens: 0 }]),
  ]);
  assert.deepEqual(hs.changed('run', [1]), [], 'version 1 may still be written');
  ix.add('e', 's', 'run', rows(2, 'a', [0, 0]));
  const first = hs.changed('run', [2]);
  assert.deepEqual(values(first), {
    'rollout/no_gradient_groups': [[1], [0.5]],
    'rollout/truncated': [[1], [1 / 8]],
    'rollout/empty': [[1], [1 / 8]],
    'rollout/nothing_trained': [[1], [1 / 8]],
  });
  assert.equal(first[0].points.wallTime[0], Date.parse('2026-11-27T10:00:01Z') / 1000);
  assert.deepEqual(hs.changed('run', [2]), [], 'derived once');
  assert.deepEqual(hs.changed('run', [1]), [], 'a step derived is not derived again when its rows change');
  ix.add('e', 's', 'run', rows(3, 'a', [1, 0]));
  assert.deepEqual(values(hs.changed('run', [3]))['rollout/no_gradient_groups'], [[2], [1]]);
  // Another instance (a reload) derives the same points: the store drops them as repeats.
  const again = new HealthSeries(ix).changed('run', []);
  const store = new MetricsStore();
  for (const s of [...first, ...again]) store.addColumns('run', 'explorer', s.tag, s.points);
  assert.equal(store.get(seriesKey('run', 'explorer', 'rollout/no_gradient_groups'))?.length, 2);
});

test('the view controller puts the series in the store as rows arrive', () => {
  const store = new MetricsStore();
  const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
  const ctl = new ViewController(store, { post: () => undefined }, silentLogger, strings);
  const cursor = { source: 's', fid: 't', offset: 0 };
  ctl.ingestExperiences('e', { type: 'experiences', source: 's', run: 'run', rows: rows(5, 'a', [1, 1]), cursor });
  ctl.ingestExperiences('e', { type: 'experiences', source: 's', run: 'run', rows: rows(6, 'a', [1, 0]), cursor });
  const cols = store.columns(seriesKey('run', 'explorer', 'rollout/no_gradient_groups'));
  assert.deepEqual([Array.from(cols!.step.slice(0, cols!.length)), Array.from(cols!.value.slice(0, cols!.length))], [[5], [1]]);
  ctl.dispose();
});

test("the work per batch of rows is that of the batch: each row read once, the run's versions listed once", () => {
  // Rows arrive all through a run, a batch per step: deriving must not go over every step of
  // the run again on each batch (counted: versions listed and rows selected).
  const ix = new ExperienceIndex();
  let listed = 0;
  let read = 0;
  const versions = ix.versions.bind(ix);
  const select = ix.select.bind(ix);
  ix.versions = (run) => {
    listed++;
    return versions(run);
  };
  ix.select = (run, vs) => {
    const r = select(run, vs);
    read += r.length;
    return r;
  };
  const hs = new HealthSeries(ix);
  let derived = 0;
  ix.onChange = (run, vs) => (derived += hs.changed(run, vs)[0]?.points.step.length ?? 0);
  const STEPS = 400;
  for (let v = 1; v <= STEPS; v++) {
    ix.add('e', 's', 'run', rows(v, `t${v}`, [1, 0, 1, 0]));
    if (v % 10 === 0) ix.add('e', 's', 'run', rows(v, `late${v}`, [1, 1])); // a late batch of the current step
  }
  assert.equal(derived, STEPS - 1, 'every step but the newest derived, once');
  assert.equal(read, 4 * (STEPS - 1) + 2 * Math.floor((STEPS - 1) / 10), 'each row of a derived step read once');
  assert.ok(listed <= 1, `the run's versions listed ${listed} times over ${STEPS + STEPS / 10} batches (once at most)`);
});
