// The trajectory model: what a rollout run leaves under .agentrl/runs/<id>/ and what the
// rollout views read. Written by the debugger / `agentrl rollout`; may be read by any view.
//   recording.jsonl     one RecordedCall per LLM call, appended as each call completes
//   trajectories.jsonl  one EpisodeTrajectory per finished episode (no timings: a replay of
//                       the run reproduces this file byte for byte)
//   summary.json        RolloutSummary, rewritten when the run ends (or is stopped)
//   forks/<episode>/    the original branch of an episode whose request was edited (a run
//                       folder of its own, plus fork.json and both branches' transcripts)
import type { SourceFrame } from './runner-protocol';

export { RUNS_DIR, RECORDING_FILE, TRAJECTORIES_FILE, SUMMARY_FILE } from '../../workspace-files/run-files';
export const FORKS_DIR = 'forks';
export const FORK_FILE = 'fork.json';
/** Readable transcripts of the two branches of a fork (for a side-by-side diff). */
export const FORK_ORIGINAL_TRANSCRIPT = 'original.transcript.md';
export const FORK_EDITED_TRANSCRIPT = 'edited.transcript.md';

/** fork.json: the edited episode of the parent run and the original branch beside it. */
export interface ForkInfo {
  /** The episode of the parent run (the edited branch, what the debugger ran). */
  episode: string;
  /** The episode id of the original branch in this fork's own run. */
  branchEpisode?: string;
  /** The first edited call: where the branches part. */
  at: { index: number; role?: string };
  /** How the original branch was made: calls before the fork point replayed from the
   *  parent's recording, the rest asked of the model without the edit. */
  status: RolloutSummary['status'] | 'skipped';
  message?: string;
  rewardOriginal: number | null;
  rewardEdited: number | null;
}

/** An OpenAI chat-completions request body (kept loose: upstreams add fields). */
export interface ChatCompletionRequest {
  model?: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
  [k: string]: unknown;
}
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [k: string]: unknown;
}
export interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}
export interface ChatCompletion {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices: {
    index?: number;
    message: ChatMessage;
    finish_reason?: string | null;
    logprobs?: { content?: { token: string; logprob: number }[] | null } | null;
    token_ids?: number[];
    [k: string]: unknown;
  }[];
  usage?: Usage;
  prompt_token_ids?: number[];
  [k: string]: unknown;
}
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [k: string]: unknown;
}

export type CallErrorKind = 'upstream' | 'timeout' | 'connection' | 'malformed' | 'divergence' | 'cancelled';
export interface CallError {
  kind: CallErrorKind;
  status: number;
  message: string;
}

export interface RecordedCall {
  episode: string;
  /** 0-based index of the call within its episode and role. */
  index: number;
  /** `auxiliary/<i>` for an auxiliary model's call (absent: the rollout model). */
  role?: string;
  /** The request as the workflow sent it. */
  request: ChatCompletionRequest;
  /** What went upstream, when the user edited the request. */
  sent?: ChatCompletionRequest;
  /** Upstream's reply (assembled from the chunks for a stream). */
  response?: ChatCompletion;
  /** Upstream's stream chunks, when the workflow asked for a stream. */
  chunks?: unknown[];
  /** What the workflow received, when the user edited the response. */
  delivered?: ChatCompletion;
  error?: CallError;
  stream: boolean;
  startedAt: string;
  latencyMs: number;
  stack: SourceFrame[];
}

export type TrajectoryTurn =
  | {
      type: 'llm';
      index: number;
      role?: string;
      request: ChatCompletionRequest;
      edited?: boolean;
      /** What went to the model when the request was edited (or carried an earlier edit). */
      sent?: ChatCompletionRequest;
      response?: ChatCompletion;
      error?: CallError;
      source?: SourceFrame;
    }
  | TrajectoryToolTurn;

/** A tool call the model asked for, with the result the workflow sent back. */
export interface TrajectoryToolTurn {
  type: 'tool';
  llmIndex: number;
  id: string;
  name: string;
  arguments: string;
  result?: unknown;
  error?: boolean;
  source?: SourceFrame;
}

export interface EpisodeTrajectory {
  episode: string;
  taskIndex: number;
  taskId: string;
  repeat: number;
  task: unknown;
  turns: TrajectoryTurn[];
  reward: number | null;
  success?: boolean | null;
  metrics: Record<string, number>;
  metadata: Record<string, unknown>;
  experiences: unknown[];
  error?: { phase: string; type: string; message: string };
}

export interface RolloutSummary {
  id: string;
  status: 'completed' | 'terminated' | 'failed';
  backbone: string;
  config?: string;
  replayOf?: string;
  startedAt: string;
  finishedAt: string;
  wallMs: number;
  episodes: number;
  errors: number;
  rewardMean: number | null;
  /** Mean reward per task id over its repeats (null when none scored). */
  rewardByTask: Record<string, number | null>;
  tokens: { prompt: number; completion: number; total: number };
  llmCalls: number;
  /** LLM calls whose tokens drift from the chat template's (retokenization drift), when any. */
  drift?: { calls: number; episodes: number };
  /** Spans of the returned experiences' action masks that train tokens no assistant generated. */
  maskWarnings?: { spans: number; episodes: number };
  /** LLM calls checked for drift and experiences whose mask was checked, when any. */
  tokenChecks?: { calls: number; experiences: number };
  /** Why no call or experience was checked against the chat template (no tokenizer with one here). */
  tokenChecksSkipped?: string;
  message?: string;
}
