// The metrics view's options (smoothing, x axis, log scale, filter, band): defined once, with
// their defaults, what a change redraws and the run-time check of a value from the webview.
import { isNum, isObj, isStr } from '../../base/validate';
import type { UiStringKey } from './ui-strings';

export const X_AXIS_MODES = ['step', 'wall', 'relative'] as const;
export type XAxisMode = (typeof X_AXIS_MODES)[number];

/** Each x axis mode, once: its toolbar label, the finest bucket width the extension downsamples
 *  to (a step is an integer; times go down to ~1 ms), and whether uPlot shows it as a date. */
export const X_AXES: Readonly<Record<XAxisMode, { label: UiStringKey; minDx: number; time: boolean }>> = {
  step: { label: 'xStep', minDx: 1, time: false },
  wall: { label: 'xWall', minDx: 2 ** -10, time: true },
  relative: { label: 'xRelative', minDx: 2 ** -10, time: false },
};

export interface ViewOptions {
  /** TensorBoard's smoothing weight, 0 ≤ s < 1. */
  smoothing: number;
  xAxis: XAxisMode;
  logScale: boolean;
  /** Tag filter (a regular expression; invalid ones filter nothing and say so). */
  filter: string;
  /** Draw the min/max envelope band. */
  band: boolean;
}

/**
 * What changing an option redraws: `frames` the extension rebuilds every chart's frames (the
 * data change), `zoom` zooms reset (x values mean something else), `plot` the webview
 * rebuilds its uPlot instances (scales, series, axes), `filter` the webview re-filters charts.
 */
export type OptionEffect = 'frames' | 'zoom' | 'plot' | 'filter';

interface OptionDef<T> {
  readonly default: T;
  /** Key of its label in the toolbar. */
  readonly label: UiStringKey;
  readonly effects: readonly OptionEffect[];
  /** The value when valid (clamped to its range), else undefined. */
  parse(v: unknown): T | undefined;
}

/** TensorBoard's weight: 0 is off; the slider stops short of the accepted maximum. */
export const SMOOTHING_RANGE = { min: 0, max: 0.999, sliderMax: 0.99, sliderStep: 0.01 } as const;
const MAX_FILTER_LENGTH = 1000;
const parseBool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** Every view option, defined once: both sides (host, webview) read it from here. */
export const VIEW_OPTIONS: { readonly [K in keyof ViewOptions]: OptionDef<ViewOptions[K]> } = {
  smoothing: {
    default: 0.6,
    label: 'smoothing',
    effects: ['frames'],
    parse: (v) => (isNum(v) ? Math.min(SMOOTHING_RANGE.max, Math.max(SMOOTHING_RANGE.min, v)) : undefined),
  },
  xAxis: {
    default: 'step',
    label: 'xAxis',
    effects: ['frames', 'zoom', 'plot'],
    parse: (v) => (isStr(v) && (X_AXIS_MODES as readonly string[]).includes(v) ? (v as XAxisMode) : undefined),
  },
  logScale: { default: false, label: 'logScale', effects: ['plot'], parse: parseBool },
  filter: {
    default: '',
    label: 'filterPlaceholder',
    effects: ['filter'],
    parse: (v) => (isStr(v) && v.length <= MAX_FILTER_LENGTH ? v : undefined),
  },
  band: { default: true, label: 'band', effects: ['plot'], parse: parseBool },
};

const OPTION_KEYS = Object.keys(VIEW_OPTIONS) as (keyof ViewOptions)[];

export const DEFAULT_VIEW_OPTIONS: ViewOptions = Object.fromEntries(OPTION_KEYS.map((k) => [k, VIEW_OPTIONS[k].default])) as unknown as ViewOptions;

/** Whether going from `before` to `after` changes an option with this effect. */
export function optionsAffect(before: ViewOptions, after: ViewOptions, effect: OptionEffect): boolean {
  return OPTION_KEYS.some((k) => before[k] !== after[k] && VIEW_OPTIONS[k].effects.includes(effect));
}

/** Checks a partial ViewOptions; returns the valid fields only. */
export function sanitizeOptions(v: unknown): Partial<ViewOptions> {
  if (!isObj(v)) return {};
  const out: Record<string, unknown> = {};
  for (const k of OPTION_KEYS) {
    const value = VIEW_OPTIONS[k].parse(v[k]);
    if (value !== undefined) out[k] = value;
  }
  return out;
}
