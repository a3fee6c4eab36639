// The metrics view's extension ↔ webview protocol: the ONE module both sides import (the
// extension host in src/metrics, the browser code in src/metrics/webview). Plain JSON messages
// through webview.postMessage. The webview starts with `ready`; the extension posts nothing
// before it (vscode-pull-request-github's handshake), then sends `init`, `layout`, the
// full frames and the endpoint status, and after that batched `update`s paced by the page:
// the next one goes out when the page says it drew the last (`drawn`), at most every
// MIN_UPDATE_INTERVAL_MS, so the update rate follows what the page can draw.
//
// Chart data travel as downsampled frames on a bucket grid (see src/metrics/view/chart-frames.ts):
// bucket k covers x ∈ [origin + k·dx, origin + (k+1)·dx); each series carries, per bucket,
// the line value (mean, or the smoothed value at the bucket's last point), and the min and
// max of the bucket (the envelope), so a one-point spike is never sampled away. A frame
// either replaces a chart (`start` = 0 with a new `rev`) or patches its tail from `start`.
import { arrayOf, hasFields, isBool, isInt, isNum, isObj, isRange, isStr, nullable, oneOf } from '../../base/validate';
import type { ExperienceWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';

export const METRICS_PROTOCOL_VERSION = 1;
/** WebviewPanel view type (also the serializer's key). */
export const METRICS_VIEW_TYPE = 'agentrl.metrics';
/** Shortest time between two `update`s (≤ 30 Hz): a fast page does not keep the extension busy. */
export const MIN_UPDATE_INTERVAL_MS = 33;
/** How long the extension waits for `drawn` before it posts anyway (a lost ack, a page without rAF). */
export const DRAWN_TIMEOUT_MS = 1000;

export const X_AXIS_MODES = ['step', 'wall', 'relative'] as const;
export type XAxisMode = (typeof X_AXIS_MODES)[number];

/** Each x axis mode, once: its toolbar label, the finest bucket width the extension downsamples
 *  to (a step is an integer; times go down to ~1 ms), and whether uPlot shows it as a date. */
export const X_AXES: Readonly<Record<XAxisMode, { label: UiStringKey; minDx: number; time: boolean }>> = {
  step: { label: 'xStep', minDx: 1, time: false },
  wall: { label: 'xWall', minDx: 2 ** -10, time: true },
  relative: { label: 'xRelative', minDx: 2 ** -10, time: false },
};

/** What the view and the status bar say about one relay endpoint. */
export type EndpointState = 'connecting' | 'backfilling' | 'live' | 'finished' | 'stale' | 'error' | 'stopped';

export interface EndpointStatus {
  id: string;
  name: string;
  /** ws:// URL, or the local directory a relay was started for. */
  target: string;
  kind: 'url' | 'local';
  state: EndpointState;
  /** Why (error text, "retrying in 3 s", …). */
  detail?: string;
  runs: string[];
  /** Points received from this endpoint (this session). */
  points: number;
}

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

// Run-time checks (options here, the webview's messages below).

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

export interface SeriesInfo {
  /** Store key: run, role, tag. */
  key: string;
  run: string;
  role: string;
  tag: string;
  /** Legend label (the run, plus the role when a chart holds several roles of one run). */
  label: string;
  /** Palette index (one colour per run, stable across charts). */
  color: number;
  dashed: boolean;
}

export interface ChartSpec {
  /** Chart id (the tag). */
  id: string;
  tag: string;
  /** Section: the tag's first path component (`rollout`, `eval`, `actor`, …). */
  group: string;
  pinned: boolean;
  /** Clicking a step opens the rollouts of that step. */
  drill: boolean;
  series: SeriesInfo[];
}

/** An event of a run drawn as a vertical line on its charts (an online-training commit). */
export interface RunMark {
  kind: 'commit';
  step: number;
  /** wall time, seconds since the epoch (for the wall-time and relative axes) */
  wallTime: number;
}

export interface RunSummary {
  run: string;
  roles: string[];
  /** Events to mark on the run's charts, in step order. */
  marks?: RunMark[];
  /** Seconds since epoch of the run's first point (origin of the relative-time axis). */
  start: number;
  points: number;
  experiences: number;
}

/** Per-bucket values of one series in a frame, for buckets [start, n). null: no data. */
export interface SeriesFrame {
  key: string;
  y: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  /** Absolute bucket indices (≥ start) where the line must break (missing data, NaN). */
  gaps: number[];
  /** The bucket means when `y` is smoothed (the hover shows both). */
  mean?: (number | null)[];
  /** Wall time (s) of each bucket's last point. */
  wallTime?: (number | null)[];
}

export interface ChartFrame {
  chart: string;
  /** Changes on every full rebuild; a patch applies only to the same rev. */
  rev: number;
  xAxis: XAxisMode;
  origin: number;
  dx: number;
  /** Buckets in the chart after this frame. */
  n: number;
  /** First bucket carried (0 = the whole chart). */
  start: number;
  series: SeriesFrame[];
  /** Points behind this chart (all series, full resolution). */
  points: number;
}

export interface RolloutRef {
  run: string;
  endpoint: string;
  source: string;
  table: string;
  id: number;
}

export interface RolloutRow extends RolloutRef {
  taskId: string | null;
  runId: number | null;
  modelVersion: number | null;
  reward: number | null;
  timestamp: string | null;
  /** How often the trainer has read it (absent: the buffer does not say). */
  consumed?: number | null;
  /** The parts of the reward (experience.metrics: accuracy, format_score, …). */
  metrics?: Record<string, number>;
  advantage?: number | null;
  /** What the buffer row says of its tensors (TRXP rows): response length, trained tokens, truncation, empty response. */
  responseTokens?: number;
  trainedTokens?: number;
  truncated?: boolean;
  emptyResponse?: boolean;
}

/**
 * Drilled rollouts as columns (row i is index i of every array): compact enough to send and
 * hold 10⁶ of them. Non-finite numbers are null.
 */
export interface RolloutColumns {
  /** Distinct (endpoint, source, table) of the rows; `origin[i]` indexes it. */
  origins: { endpoint: string; source: string; table: string }[];
  origin: number[];
  id: number[];
  /** Distinct task ids; `task[i]` indexes it, -1 = none. */
  tasks: (string | null)[];
  task: number[];
  runId: (number | null)[];
  modelVersion: (number | null)[];
  reward: (number | null)[];
  consumed: (number | null)[];
  advantage: (number | null)[];
  /** Response tokens, trained tokens, truncated (1 or 0); null: the row does not say. */
  responseTokens: (number | null)[];
  trainedTokens: (number | null)[];
  truncated: (number | null)[];
  /** One column per reward part, named in first-seen order. */
  parts: { name: string; values: (number | null)[] }[];
}

export interface RolloutMessage {
  role: string;
  content: string;
  /** Tool calls, names… as pretty JSON (display only). */
  extra?: string;
}

/** A field as the drawer shows it: a labelled value (a scalar, a list of them), or a group. */
export type FieldNode = { key: string; value?: string; children?: FieldNode[] };

export interface RolloutDetail {
  ref: RolloutRef;
  messages: RolloutMessage[];
  /** Other fields of the experience (reward, eid, info, metrics, tools…). */
  fields: FieldNode[];
}

/** Keys of the webview's user-visible strings, localized by the extension (vscode.l10n). */
export const UI_STRING_KEYS = [
  'title',
  'filterPlaceholder',
  'invalidFilter',
  'smoothing',
  'xAxis',
  'xStep',
  'xWall',
  'xRelative',
  'logScale',
  'band',
  'pinned',
  'noData',
  'connect',
  'resetZoom',
  'exportCsv',
  'exportJson',
  'exportPng',
  'points',
  'stateConnecting',
  'stateBackfilling',
  'stateLive',
  'stateStale',
  'stateError',
  'stateStopped',
  'stateFinished',
  'noEndpoints',
  'rolloutsTitle',
  'rolloutsNone',
  'rolloutsLoading',
  'rewardHistogram',
  'allBins',
  'task',
  'reward',
  'modelVersion',
  'close',
  'messages',
  'shownOf',
  'step',
  'min',
  'max',
  'smoothed',
  'wallTime',
  'startDemo',
  'commitMark',
  'advantage',
  'consumed',
  'groupTitle',
  'partsHistogram',
  'filterTasks',
  'tokens',
  'tokensTitle',
  'length',
  'trainedShort',
  'truncatedShort',
] as const;
export type UiStringKey = (typeof UI_STRING_KEYS)[number];
export type UiStrings = Record<UiStringKey, string>;

// ---- extension → webview -------------------------------------------------------------------

export interface InitMessage {
  type: 'init';
  protocol: number;
  strings: UiStrings;
  /** The token view's words (the drill-down's "Tokens"). */
  tokenStrings: TokenViewStrings;
  options: ViewOptions;
}
export interface LayoutMessage {
  type: 'layout';
  charts: ChartSpec[];
  runs: RunSummary[];
}
/** One flush: frames of every chart that changed, and the endpoint status when it changed. */
export interface UpdateMessage {
  type: 'update';
  /** Numbers the updates; the page answers `drawn` with it. */
  seq: number;
  frames: ChartFrame[];
  status?: EndpointStatus[];
}
/** The rollouts of a drill; sent again with the same request while its rows change (rewards arrive). */
export interface RolloutsMessage {
  type: 'rollouts';
  request: number;
  run: string;
  /** Steps (x range) clicked, and the model versions they map to. */
  x: [number, number];
  xAxis: XAxisMode;
  modelVersions: number[];
  /** Every matched row, ordered by task, then run; the webview lists the visible ones. */
  rows: RolloutColumns;
  /** The GRPO groups' health, worded by the extension: the step's line ("3 of 5 groups give no gradient · …"), each flagged group's flags. */
  health?: { line: string; groups: { task: string | null; modelVersion: number | null; flags: string[] }[] };
}
export interface RolloutMessageReply {
  type: 'rollout';
  request: number;
  detail?: RolloutDetail;
  error?: string;
}
/** One rollout's tokens (answer to `openTokens`): the token model, and what the view must say about it. */
export interface TokensMessage {
  type: 'tokens';
  request: number;
  ref: RolloutRef;
  experience?: ExperienceWire;
  /** Where the tokens and texts came from, what is missing and why (worded by the host). */
  notes?: string[];
  error?: string;
}
export interface OptionsMessage {
  type: 'options';
  options: ViewOptions;
}
export type HostMessage = InitMessage | LayoutMessage | UpdateMessage | RolloutsMessage | RolloutMessageReply | TokensMessage | OptionsMessage;

// ---- webview → extension -------------------------------------------------------------------

export interface ReadyMessage {
  type: 'ready';
  protocol: number;
}
/** The page drew update `seq` (and every one before it): the extension may post the next. */
export interface DrawnMessage {
  type: 'drawn';
  seq: number;
}
/** Chart plot widths (CSS px) and which charts are on screen (only those get frames). */
export interface ViewportMessage {
  type: 'viewport';
  charts: { id: string; width: number }[];
  visible: string[];
}
export interface SetOptionsMessage {
  type: 'setOptions';
  options: Partial<ViewOptions>;
}
export interface ZoomMessage {
  type: 'zoom';
  chart: string;
  /** x range, or null to reset. */
  range: [number, number] | null;
}
export interface DrillMessage {
  type: 'drill';
  request: number;
  chart: string;
  run: string;
  role: string;
  /** Bucket clicked: x ∈ [x0, x1). */
  x: [number, number];
}
export interface OpenRolloutMessage {
  type: 'openRollout';
  request: number;
  ref: RolloutRef;
}
/** The rollout's "Tokens": its tokens, masks and logprobs from the relay. */
export interface OpenTokensMessage {
  type: 'openTokens';
  request: number;
  ref: RolloutRef;
}
export interface ExportMessage {
  type: 'export';
  format: 'csv' | 'json';
  /** Series keys (full resolution). */
  series: string[];
}
export interface ExportPngMessage {
  type: 'exportPng';
  chart: string;
  /** data:image/png;base64,… rendered by the webview. */
  dataUrl: string;
}
export interface CommandMessage {
  type: 'command';
  /** connect: "Connect to Training Run…"; demo: "Start Demo Run". */
  command: 'connect' | 'demo';
}
export interface LogMessage {
  type: 'log';
  level: 'info' | 'warn' | 'error';
  message: string;
}
/** What the webview shows (answer to a `probe` request; used by tests and diagnostics). */
export interface RenderedMessage {
  type: 'rendered';
  request: number;
  charts: { id: string; visible: boolean; drawn: boolean; buckets: number; hi: number | null; lo: number | null }[];
  status: string;
}
export type WebviewMessage =
  | ReadyMessage
  | DrawnMessage
  | ViewportMessage
  | SetOptionsMessage
  | ZoomMessage
  | DrillMessage
  | OpenRolloutMessage
  | OpenTokensMessage
  | ExportMessage
  | ExportPngMessage
  | CommandMessage
  | LogMessage
  | RenderedMessage;

/** Host → webview request for a `rendered` answer. */
export interface ProbeMessage {
  type: 'probe';
  request: number;
}

// ---- run-time validation of what the webview sends -------------------------------------

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

const isRolloutRef = (v: unknown): v is RolloutRef => hasFields(v, { run: isStr, endpoint: isStr, source: isStr, table: isStr, id: isInt });
const isChartWidth = (c: unknown): c is { id: string; width: number } => hasFields(c, { id: isStr, width: isNum }) && c.width >= 0;
const isRenderedChart = (c: unknown): c is RenderedMessage['charts'][number] =>
  hasFields(c, { id: isStr, visible: isBool, drawn: isBool, buckets: isInt, hi: nullable(isNum), lo: nullable(isNum) });

/** Validates a message from the webview; undefined when it is not one of ours. */
export function parseWebviewMessage(v: unknown): WebviewMessage | undefined {
  if (!isObj(v) || !isStr(v.type)) return undefined;
  switch (v.type) {
    case 'ready':
      return hasFields(v, { type: oneOf(['ready']), protocol: isInt }) ? v : undefined;
    case 'drawn':
      return hasFields(v, { type: oneOf(['drawn']), seq: isInt }) ? v : undefined;
    case 'viewport':
      return hasFields(v, { type: oneOf(['viewport']), charts: arrayOf(isChartWidth), visible: arrayOf(isStr) }) ? v : undefined;
    case 'setOptions':
      return { type: 'setOptions', options: sanitizeOptions(v.options) };
    case 'zoom':
      return hasFields(v, { type: oneOf(['zoom']), chart: isStr, range: nullable(isRange) }) ? v : undefined;
    case 'drill':
      return hasFields(v, { type: oneOf(['drill']), request: isInt, chart: isStr, run: isStr, role: isStr, x: isRange }) ? v : undefined;
    case 'openRollout':
      return hasFields(v, { type: oneOf(['openRollout']), request: isInt, ref: isRolloutRef }) ? v : undefined;
    case 'openTokens':
      return hasFields(v, { type: oneOf(['openTokens']), request: isInt, ref: isRolloutRef }) ? v : undefined;
    case 'export':
      return hasFields(v, { type: oneOf(['export']), format: oneOf(['csv', 'json']), series: arrayOf(isStr) }) ? v : undefined;
    case 'exportPng':
      return hasFields(v, { type: oneOf(['exportPng']), chart: isStr, dataUrl: isStr }) && v.dataUrl.startsWith('data:image/png;base64,') ? v : undefined;
    case 'command':
      return hasFields(v, { type: oneOf(['command']), command: oneOf(['connect', 'demo']) }) ? v : undefined;
    case 'log':
      return hasFields(v, { type: oneOf(['log']), level: oneOf(['info', 'warn', 'error']), message: isStr }) ? v : undefined;
    case 'rendered':
      return hasFields(v, { type: oneOf(['rendered']), request: isInt, charts: arrayOf(isRenderedChart), status: isStr }) ? v : undefined;
    default:
      return undefined;
  }
}

// ---- frames: applying them on the receiving side ----------------------------------------

/** A chart's data as the webview holds it: dense per-bucket arrays for buckets [0, n). */
export interface SeriesData {
  y: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  /** Bucket means when y is smoothed; empty when it is not. */
  mean: (number | null)[];
  wallTime: (number | null)[];
  gaps: Set<number>;
}

export interface ChartData {
  rev: number;
  xAxis: XAxisMode;
  origin: number;
  dx: number;
  n: number;
  points: number;
  series: Map<string, SeriesData>;
}

/**
 * Applies a frame to a chart's data. Returns the new data, or undefined when the frame is a
 * patch for another rev (the extension then sends a full frame: it never relies on a patch landing).
 */
export function applyFrame(prev: ChartData | undefined, f: ChartFrame): ChartData | undefined {
  let d: ChartData;
  if (f.start === 0 || !prev || prev.rev !== f.rev) {
    if (f.start !== 0) return undefined;
    d = { rev: f.rev, xAxis: f.xAxis, origin: f.origin, dx: f.dx, n: f.n, points: f.points, series: new Map() };
  } else {
    d = prev;
    d.n = f.n;
    d.points = f.points;
  }
  for (const s of f.series) {
    let cur = d.series.get(s.key);
    if (!cur) {
      cur = { y: [], lo: [], hi: [], mean: [], wallTime: [], gaps: new Set() };
      d.series.set(s.key, cur);
    }
    if (f.start === 0) {
      // A full frame: take its arrays as they are (they were just deserialized).
      cur.y = s.y;
      cur.lo = s.lo;
      cur.hi = s.hi;
      cur.mean = s.mean ?? [];
      cur.wallTime = s.wallTime ?? [];
    } else {
      for (const [arr, add] of [
        [cur.y, s.y],
        [cur.lo, s.lo],
        [cur.hi, s.hi],
        [cur.mean, s.mean ?? []],
        [cur.wallTime, s.wallTime ?? []],
      ] as const) {
        // Pad (a series first seen in a patch) or cut back to the patch start, then append.
        while (arr.length < f.start) arr.push(null);
        arr.length = f.start;
        for (let i = 0; i < add.length; i++) arr.push(add[i]);
      }
    }
    for (const g of cur.gaps) if (g >= f.start) cur.gaps.delete(g);
    for (const g of s.gaps) cur.gaps.add(g);
  }
  return d;
}
