// The metrics view's options, defined once in the protocol: defaults, what the host accepts
// from the webview, and what a change redraws on each side.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { UI_STRING_KEYS } from '../../../../src/metrics/protocol/ui-strings';
import {
  DEFAULT_VIEW_OPTIONS,
  OptionEffect,
  SMOOTHING_RANGE,
  VIEW_OPTIONS,
  ViewOptions,
  X_AXES,
  X_AXIS_MODES,
  optionsAffect,
  sanitizeOptions,
} from '../../../../src/metrics/protocol/view-options';
import { parseWebviewMessage } from '../../../../src/metrics/protocol/view-protocol';

test('view options: the defaults come from the one definition', () => {
  assert.deepEqual(DEFAULT_VIEW_OPTIONS, { smoothing: 0.6, xAxis: 'step', logScale: false, filter: '', band: true });
  for (const [k, def] of Object.entries(VIEW_OPTIONS)) {
    assert.equal(DEFAULT_VIEW_OPTIONS[k as keyof ViewOptions], def.default, k);
    assert.ok((UI_STRING_KEYS as readonly string[]).includes(def.label), `${k}: label ${def.label} is a UI string`);
  }
});

test('view options: what the host accepts from the webview', () => {
  assert.deepEqual(sanitizeOptions(null), {});
  assert.deepEqual(sanitizeOptions([1]), {});
  assert.deepEqual(sanitizeOptions({ smoothing: 5, xAxis: 'wall', logScale: true, band: false, filter: 'loss' }), {
    smoothing: SMOOTHING_RANGE.max,
    xAxis: 'wall',
    logScale: true,
    band: false,
    filter: 'loss',
  });
  assert.deepEqual(sanitizeOptions({ smoothing: -1 }), { smoothing: 0 });
  assert.deepEqual(sanitizeOptions({ smoothing: NaN, xAxis: 'epoch', logScale: 'yes', band: 1, filter: 'x'.repeat(1001), other: 1 }), {});
  assert.deepEqual(parseWebviewMessage({ type: 'setOptions', options: { xAxis: 'relative', smoothing: '0.5' } }), {
    type: 'setOptions',
    options: { xAxis: 'relative' },
  });
  assert.ok(SMOOTHING_RANGE.sliderMax <= SMOOTHING_RANGE.max && SMOOTHING_RANGE.min === 0);
});

test('view options: what a change redraws', () => {
  const effects = (o: Partial<ViewOptions>): OptionEffect[] =>
    (['frames', 'zoom', 'plot', 'filter'] as const).filter((e) => optionsAffect(DEFAULT_VIEW_OPTIONS, { ...DEFAULT_VIEW_OPTIONS, ...o }, e));
  assert.deepEqual(effects({}), []);
  assert.deepEqual(effects({ smoothing: 0 }), ['frames']);
  assert.deepEqual(effects({ xAxis: 'wall' }), ['frames', 'zoom', 'plot']);
  assert.deepEqual(effects({ logScale: true }), ['plot']);
  assert.deepEqual(effects({ band: false }), ['plot']);
  assert.deepEqual(effects({ filter: 'reward' }), ['filter']);
  assert.deepEqual(effects({ smoothing: 0.9, band: false }), ['frames', 'plot']);
});

test('x axis modes: each defined once with its label, finest bucket and time scale', () => {
  assert.deepEqual(Object.keys(X_AXES), [...X_AXIS_MODES]);
  assert.deepEqual(
    X_AXIS_MODES.map((m) => X_AXES[m].label),
    ['xStep', 'xWall', 'xRelative'],
  );
  assert.equal(X_AXES.step.minDx, 1, 'steps are integers');
  assert.ok(X_AXES.wall.minDx < 0.01 && X_AXES.relative.minDx < 0.01);
  assert.deepEqual(
    X_AXIS_MODES.filter((m) => X_AXES[m].time),
    ['wall'],
  );
});
