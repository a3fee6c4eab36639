// The rollout debugger's headless runs as other features see them: the model comparison
// (src/eval) runs a workflow's tasks against each model and re-scores recorded runs through
// this interface. src/cli.ts (and the extension) hand it the debugger's implementation, so the
// comparison never imports the debugger's internals and every call is recorded as in a debug run.

/** One model endpoint (any OpenAI-compatible server). */
export interface ModelEndpoint {
  baseUrl: string;
  /** Model name to request (default: the endpoint's own). */
  name?: string;
  /** Environment variable holding the API key. */
  apiKeyEnv?: string;
  /** Seconds before a call counts as stalled. */
  timeout?: number;
  /** MB of one reply's body before its call fails (default 32). */
  maxReplyMB?: number;
}

export interface RolloutRequest {
  /** Trinity-RFT / ASTuner / AgentJet YAML. */
  config: string;
  /** The workflow's working directory (and the workspace). */
  cwd: string;
  /** First N tasks of the config's taskset. */
  tasks: number;
  repeat: number;
  /** Episodes at once (default: the config's runner count). */
  concurrency?: number;
  split?: string;
  workflow?: string;
  python?: string;
  model: ModelEndpoint;
  /** Where the run is saved (a run folder like .agentrl/runs/<id>/). */
  runDir: string;
  env?: Record<string, string | undefined>;
  /** Aborting ends the run as a debug session's Stop does: the episodes so far are kept and
   *  saved, the outcome's status is 'terminated'. */
  signal?: AbortSignal;
}

/** One finished episode, as the comparison needs it. */
export interface EpisodeOutcome {
  episode: string;
  taskId: string;
  repeat: number;
  /** null: the episode failed or gave no reward. */
  reward: number | null;
  /** The reward's named parts (Trinity's metrics: accuracy, format…). */
  parts: Record<string, number>;
  error?: { phase: string; type: string; message: string };
}

export type RolloutOutcome =
  | { ok: true; runDir: string; status: 'completed' | 'terminated' | 'failed'; message?: string; episodes: EpisodeOutcome[]; llmCalls: number }
  | { ok: false; message: string };

export interface RescoreRequest {
  config: string;
  cwd: string;
  python?: string;
  /** A recorded run folder (a debug run or one model's run of a comparison). */
  runDir: string;
  /** Reward spec overriding the config's (module->Class, dotted path, registry name). */
  reward?: string;
  env?: Record<string, string | undefined>;
  /** Seconds one episode's reward may take, and the whole run's re-score (defaults 60, 1800). */
  limits?: { itemSeconds?: number; runSeconds?: number };
}

export type RescoreOutcome = { ok: true; episodes: EpisodeOutcome[] } | { ok: false; message: string };

/** Buffer rows of a training run re-scored by replaying each through the workspace's workflow and reward. */
export interface BufferRescoreRequest {
  config: string;
  cwd: string;
  python?: string;
  /** A Trinity job directory or a relay URL. */
  fromJob: string;
  /** The rows' model versions, inclusive (the drill-down's steps). */
  versions: [number, number];
  concurrency?: number;
  env?: Record<string, string | undefined>;
  /** Seconds one row's replay (its workflow and reward) may take, and the whole re-score (defaults 60, 1800). */
  limits?: { itemSeconds?: number; runSeconds?: number };
}

/** One buffer row, recorded vs now. */
export interface BufferRowOutcome {
  id: string;
  /** The explorer step (eid.batch), else the model version. */
  step: number | null;
  modelVersion: number | null;
  taskIndex: number | null;
  /** The task's identity for GRPO groups (task_index, else eid.task). */
  task: string | null;
  recorded: number | null;
  /** null: the row could not be replayed, or its replay gave no reward. */
  now: number | null;
  /** Why `now` is null or not comparable: unreadable row, divergence, workflow error. */
  error: string | null;
}

export type BufferRescoreOutcome = { ok: true; rows: BufferRowOutcome[] } | { ok: false; message: string };

/** One step of a recorded episode as text, for a side-by-side view. */
export interface TranscriptTurn {
  kind: 'system' | 'user' | 'assistant' | 'tool' | 'reward' | 'error';
  text: string;
}

export interface RolloutService {
  /** Runs the tasks against one model, recording every call; resolves when the run has ended. */
  run(request: RolloutRequest, onEpisode?: (e: EpisodeOutcome) => void): Promise<RolloutOutcome>;
  /** The episodes of a recorded run, as they were scored then. */
  recorded(runDir: string): EpisodeOutcome[];
  /** The episodes of a recorded run re-scored with the workspace's current reward function:
   *  no model, no gateway; only the reward runs. */
  rescore(request: RescoreRequest): Promise<RescoreOutcome>;
  /** Buffer rows of a training run replayed and re-scored (absent where no relay reader is wired). */
  rescoreBuffer?(request: BufferRescoreRequest): Promise<BufferRescoreOutcome>;
  /** A recorded episode turn by turn (undefined: no such episode in the run). */
  transcript(runDir: string, episode: string): TranscriptTurn[] | undefined;
}
