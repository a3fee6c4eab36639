// The Pipeline view's messages between the extension and the metrics webview (beside
// view-protocol.ts, which joins them into its unions): where a training run's time goes, worded
// by the extension (src/metrics/view/pipeline-feed.ts), drawn by the webview
// (src/metrics/webview/pipeline-pane.ts), and Ray's timeline read through the relay in slices.
import { arrayOf, hasFields, isInt, isNum, isObj, isStr, nullable, oneOf, optional } from '../../base/validate';

/** The Pipeline view's words, localized by the extension and sent once after `init`. */
export const PIPELINE_STRING_KEYS = [
  'viewCharts',
  'viewPipeline',
  'run',
  'windowFrom',
  'windowTo',
  'windowAll',
  'trainer',
  'explorer',
  'idle',
  'stepsPerHour',
  'tokensPerSecond',
  'gpus',
  'gpuHours',
  'evidence',
  'advice',
  'missing',
  'notes',
  'noTimings',
  'openAt',
  'applyFix',
  'defaulted',
  'fits',
  'doesNotFit',
  'timeline',
  'timelineLoad',
  'timelineHint',
  'timelineNone',
  'timelineRemote',
  'stepsAxis',
  'changes',
] as const;
export type PipelineStrings = Record<(typeof PIPELINE_STRING_KEYS)[number], string> & {
  /** Each part of a role's wall time, by part id (wait_experience, compute, …). */
  parts: Record<string, string>;
};

/** One role's parts at each bar (a bar is one step, or the mean of a few when there are many). */
export interface RoleBars {
  /** Part ids, in drawing order (bottom up). */
  parts: string[];
  /** values[part index][bar index]: seconds, null where the tag says nothing. */
  values: (number | null)[][];
}

export interface PipelineAdvice {
  key: string;
  now: string;
  suggest: string;
  defaulted: boolean;
  /** The GPUs the config declares leave room (undefined: not a GPU question). */
  fits?: boolean;
  /** The config engine found no new error with the suggestion applied: offer a quick fix. */
  fix?: boolean;
}

export interface PipelineViewData {
  run: string;
  /** Runs with timings (the view's run picker). */
  runs: string[];
  /** The window the shares are over, as asked ([first, last] logged when not asked). */
  window: { from: number | null; to: number | null };
  steps: [number, number] | null;
  bottleneck: string;
  verdict: string;
  /** "At step N the bottleneck moved from … to …", oldest first. */
  changes: string[];
  /** The numbers the verdict rests on; a click shows `tags` in the charts. */
  evidence: { label: string; value: string; tags: string[] }[];
  advice: PipelineAdvice[];
  /** Why there is no advice with values (no config copy), worded. */
  configNote?: string;
  /** What is missing and which setting turns it on, worded. */
  missing: string[];
  /** Bad values, steps out of order, a role missing, timings not understood: worded. */
  notes: string[];
  /** Each role's share of its wall time per part over the window (null: absent). */
  shares: { trainer: Record<string, number | null>; explorer: Record<string, number | null> };
  /** Idle share of each role over the window (waiting on the other), null when unknown. */
  idle: { trainer: number | null; explorer: number | null };
  throughput: { stepsPerHour: number | null; tokensPerSecond: number | null };
  gpu: { explorer: number; trainer: number | null; hours: { trainer: Record<string, number>; explorer: Record<string, number> } } | null;
  bars: { steps: number[]; trainer: RoleBars; explorer: RoleBars };
}

/** One window of Ray's timeline: per-actor lanes and the complete events in it. */
export interface TimelineSlice {
  /** µs since the file's first event. */
  from: number;
  to: number;
  /** The whole file's span (µs since its first event). */
  span: number;
  /** The first event's time, µs since the epoch (Ray's clock). */
  origin?: number;
  /** Where each explorer step ended (µs since the first event), from the run's metrics. */
  steps?: { step: number; at: number }[];
  lanes: string[];
  /** Columns: lane index, start (µs since the first event), duration (µs), name index. */
  lane: number[];
  start: number[];
  dur: number[];
  name: number[];
  names: string[];
  /** Events in the window beyond what the slice carries (the smallest were left out). */
  dropped: number;
  /** Corrupt or truncated parts of the file, worded (the rest is shown). */
  problems: string[];
}

// ---- extension → webview -------------------------------------------------------------------

export interface PipelineStringsMessage {
  type: 'pipelineStrings';
  strings: PipelineStrings;
}
export interface PipelineMessage {
  type: 'pipeline';
  data: PipelineViewData | null;
}
export interface TimelineMessage {
  type: 'timeline';
  request: number;
  slice?: TimelineSlice;
  error?: string;
}
export type PipelineHostMessage = PipelineStringsMessage | PipelineMessage | TimelineMessage;

// ---- webview → extension -------------------------------------------------------------------

/** The Pipeline view is shown (or hidden), for this run and window of steps. */
export interface PipelineViewMessage {
  type: 'pipelineView';
  visible: boolean;
  run?: string;
  from?: number | null;
  to?: number | null;
}
/** Open the run's config at `key`; with `value`, apply it (the quick fix). */
export interface OpenConfigKeyMessage {
  type: 'openConfigKey';
  run: string;
  key: string;
  value?: string;
}
/** A window of Ray's timeline (µs since its first event; both null: the start). */
export interface TimelineRequestMessage {
  type: 'timelineRequest';
  request: number;
  run: string;
  from: number | null;
  to: number | null;
}
export type PipelineWebviewMessage = PipelineViewMessage | OpenConfigKeyMessage | TimelineRequestMessage;

const isStep = (v: unknown): v is number | null | undefined => v === undefined || v === null || (isInt(v) && v >= 0);

/** Validates a Pipeline message from the webview; undefined when it is not one. */
export function parsePipelineMessage(v: unknown): PipelineWebviewMessage | undefined {
  if (!isObj(v)) return undefined;
  switch (v.type) {
    case 'pipelineView':
      return hasFields(v, { type: oneOf(['pipelineView']), visible: (x): x is boolean => typeof x === 'boolean', run: optional(isStr) }) &&
        isStep(v.from) &&
        isStep(v.to)
        ? v
        : undefined;
    case 'openConfigKey':
      return hasFields(v, { type: oneOf(['openConfigKey']), run: isStr, key: isStr, value: optional(isStr) }) && /^[A-Za-z0-9_.]+$/.test(v.key) ? v : undefined;
    case 'timelineRequest':
      return hasFields(v, { type: oneOf(['timelineRequest']), request: isInt, run: isStr, from: nullable(isNum), to: nullable(isNum) }) ? v : undefined;
    default:
      return undefined;
  }
}

/** A problem of the timeline file as the relay reports it (its sources/ray-timeline.ts). */
export interface TimelineProblemWire {
  kind: string;
  count: number;
}
const isProblem = (v: unknown): v is TimelineProblemWire => hasFields(v, { kind: isStr, count: isInt });

/** Checks a relay's window: its columns line up (the answer is not trusted blindly). */
export function isTimelineWindow(v: unknown): v is Omit<TimelineSlice, 'problems'> & { problems: TimelineProblemWire[] } {
  if (!hasFields(v, { from: isNum, to: isNum, span: isNum, lanes: arrayOf(isStr), names: arrayOf(isStr), dropped: isInt, problems: arrayOf(isProblem) }))
    return false;
  const o = v as unknown as TimelineSlice;
  const cols = [o.lane, o.start, o.dur, o.name];
  return cols.every((c) => Array.isArray(c) && c.length === o.lane.length && c.every((x) => isNum(x)));
}
