// The messages between the comparison view's extension side (src/eval/panel.ts) and its
// browser code (src/eval/webview/main.ts). Plain data: everything is computed on the extension
// side; the page only draws.
import type { TranscriptTurn } from '../../feature-api/rollouts';

/** One task's row in the view. */
export interface ComparisonRow {
  task: string;
  a: { mean: number | null; pass: number | null; failed: number };
  b: { mean: number | null; pass: number | null; failed: number };
  diff: number | null;
  regression: boolean;
  /** The reward parts of each model's first scored episode of the task. */
  partsA: Record<string, number>;
  partsB: Record<string, number>;
}

/** One model against the baseline, for the overview of a comparison of more than two. */
export interface OverviewRow {
  model: string;
  verdict: string;
  kind: string;
  meanDiff: number | null;
}

export interface ComparisonData {
  title: string;
  /** The saved comparison's folder: the page keeps it as its state, so the panel comes back
   *  after a reload. */
  dir: string;
  /** Every model of the comparison, the recorded baseline first. */
  models: string[];
  /** The pair shown: baseline `a`, compared model `b`. */
  a: string;
  b: string;
  /** Every other model against `a`. */
  overview: OverviewRow[];
  verdict: string;
  kind: string;
  interval: { lo: number; hi: number; level: number } | null;
  meanDiff: number | null;
  paired: number;
  tasks: number;
  failures: { a: number; b: number };
  rows: ComparisonRow[];
}

export interface PairRow {
  a?: TranscriptTurn;
  b?: TranscriptTurn;
  /** The two sides differ at this turn (one missing counts). */
  differs: boolean;
}

export const EVAL_VIEW_TYPE = 'agentrl.evalComparison';

/** The view's words, localized by the extension (the page has no vscode.l10n). */
export interface EvalStrings {
  task: string;
  mean: string;
  pass: string;
  diff: string;
  regressionsOnly: string;
  restsOn: string;
  failed: string;
  pickTask: string;
  turn: string;
  differs: string;
  noTranscript: string;
  baseline: string;
  compared: string;
  eachAgainst: string;
  /** The interval bar's axis: "{0}% interval of the reward difference, {1} − {2}" and "{0} better". */
  axis: string;
  better: string;
}

export type ToView = { type: 'comparison'; data: ComparisonData; strings: EvalStrings } | { type: 'pair'; task: string; a: string; b: string; rows: PairRow[] };

export type FromView = { type: 'ready' } | { type: 'openTask'; task: string } | { type: 'pick'; a: string; b: string };

/** What the page keeps with vscode.setState (and the panel serializer reads back). */
export interface ViewState {
  dir: string;
  a?: string;
  b?: string;
}

export type { TranscriptTurn };
