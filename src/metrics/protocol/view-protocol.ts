// The metrics view's extension ↔ webview protocol: the ONE module both sides import (the
// extension host in src/metrics, the browser code in src/metrics/webview). Plain JSON messages
// through webview.postMessage. The webview starts with `ready`; the extension posts nothing
// before it (vscode-pull-request-github's handshake), then sends `init`, `layout`, the
// full frames and the endpoint status, and after that batched `update`s paced by the page:
// the next one goes out when the page says it drew the last (`drawn`), at most every
// MIN_UPDATE_INTERVAL_MS, so the update rate follows what the page can draw.
// What else crosses (the options, the chart frames, the buffer rows, the UI strings) is in the
// modules beside this one: view-options.ts, frames.ts, experience-rows.ts, ui-strings.ts.
import { arrayOf, hasFields, isBool, isInt, isNum, isObj, isRange, isStr, nullable, oneOf } from '../../base/validate';
import type { ExperienceWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';
import type { TokenMarks } from '../../webview-ui/token-view/marks';
import type { ExperienceColumns, ExperienceRef, ExperienceViewDetail } from './experience-rows';
import { type TasksHostMessage, type TasksWebviewMessage, parseTasksWebviewMessage } from './tasks-protocol';
import type { ChartFrame, ChartSpec, RunSummary } from './frames';
import type { RescoreResult } from './rescore';
import type { UiStrings } from './ui-strings';
import { sanitizeOptions, type ViewOptions, type XAxisMode } from './view-options';
import { type PipelineHostMessage, type PipelineWebviewMessage, parsePipelineMessage } from './pipeline-protocol';

export const METRICS_PROTOCOL_VERSION = 1;
/** WebviewPanel view type (also the serializer's key). */
export const METRICS_VIEW_TYPE = 'agentrl.metrics';
/** Shortest time between two `update`s (≤ 30 Hz): a fast page does not keep the extension busy. */
export const MIN_UPDATE_INTERVAL_MS = 33;
/** How long the extension waits for `drawn` before it posts anyway (a lost ack, a page without rAF). */
export const DRAWN_TIMEOUT_MS = 1000;

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
export interface DrillExperiencesMessage {
  type: 'rollouts';
  request: number;
  run: string;
  /** Steps (x range) clicked, and the model versions they map to. */
  x: [number, number];
  xAxis: XAxisMode;
  modelVersions: number[];
  /** Every matched row, ordered by task, then run; the webview lists the visible ones. */
  rows: ExperienceColumns;
  /** The GRPO groups' health, worded by the extension: the step's line ("3 of 5 groups give no gradient · …"), each flagged group's flags. */
  health?: { line: string; groups: { task: string | null; modelVersion: number | null; flags: string[] }[] };
}
export interface ExperienceMessageReply {
  type: 'rollout';
  request: number;
  detail?: ExperienceViewDetail;
  error?: string;
}
/** One rollout's tokens (answer to `openTokens`): the token model, and what the view must say about it. */
export interface TokensMessage {
  type: 'tokens';
  request: number;
  ref: ExperienceRef;
  experience?: ExperienceWire;
  /** Where the tokens and texts came from, what is missing and why (worded by the host). */
  notes?: string[];
  /** The turns (labelled by the view) and mask warnings, when the chat template locates them. */
  marks?: TokenMarks;
  error?: string;
}
/** A re-score's answer (to `rescore`): the rows recorded vs now, or why not; neither: cancelled. */
export interface RescoredMessage {
  type: 'rescored';
  request: number;
  result?: RescoreResult;
  error?: string;
}
export interface OptionsMessage {
  type: 'options';
  options: ViewOptions;
}
export type HostMessage =
  | InitMessage
  | LayoutMessage
  | UpdateMessage
  | DrillExperiencesMessage
  | ExperienceMessageReply
  | TokensMessage
  | RescoredMessage
  | OptionsMessage
  // other views' messages, each in a protocol file of its own
  | PipelineHostMessage
  | TasksHostMessage;

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
export interface OpenExperienceMessage {
  type: 'openRollout';
  request: number;
  ref: ExperienceRef;
}
/** The rollout's "Tokens": its tokens, masks and logprobs from the relay. */
export interface OpenTokensMessage {
  type: 'openTokens';
  request: number;
  ref: ExperienceRef;
}
/** "Debug This Rollout": replay the experience in a debug session. */
export interface DebugExperienceMessage {
  type: 'debugRollout';
  ref: ExperienceRef;
}
/** "Re-score": the current reward over the experiences of steps [a, b] of the endpoint's run (`ask`: the user edits the range first). */
export interface RescoreMessage {
  type: 'rescore';
  request: number;
  endpoint: string;
  steps: [number, number];
  ask: boolean;
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
  | OpenExperienceMessage
  | OpenTokensMessage
  | DebugExperienceMessage
  | RescoreMessage
  | ExportMessage
  | ExportPngMessage
  | CommandMessage
  | LogMessage
  | RenderedMessage
  | PipelineWebviewMessage
  | TasksWebviewMessage;

/** Host → webview request for a `rendered` answer. */
export interface ProbeMessage {
  type: 'probe';
  request: number;
}

// ---- run-time validation of what the webview sends -------------------------------------

const isExperienceRef = (v: unknown): v is ExperienceRef => hasFields(v, { run: isStr, endpoint: isStr, source: isStr, table: isStr, id: isInt });
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
      return hasFields(v, { type: oneOf(['openRollout']), request: isInt, ref: isExperienceRef }) ? v : undefined;
    case 'openTokens':
      return hasFields(v, { type: oneOf(['openTokens']), request: isInt, ref: isExperienceRef }) ? v : undefined;
    case 'debugRollout':
      return hasFields(v, { type: oneOf(['debugRollout']), ref: isExperienceRef }) ? v : undefined;
    case 'rescore':
      return hasFields(v, { type: oneOf(['rescore']), request: isInt, endpoint: isStr, steps: isRange, ask: isBool }) ? v : undefined;
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
      return parsePipelineMessage(v) ?? parseTasksWebviewMessage(v);
  }
}
