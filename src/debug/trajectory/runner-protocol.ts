// The runner ⇄ extension wire protocol of the rollout debugger: JSON lines over a loopback
// TCP socket. The Python side (src/debug/runner/agentrl_runner/protocol.py) declares the same
// shapes; both ends check `protocol`. LLM calls do NOT travel here: they go over HTTP to the
// recording gateway, tagged with the headers below so the gateway can attribute them.

export const RUNNER_PROTOCOL_VERSION = 1;

/** The environment variable that gives the runner the session token (its hello carries it back).
 *  Never a command-line argument: any local user can read a process's command line. */
export const RUNNER_TOKEN_ENV = 'AGENTRL_RUNNER_TOKEN';

/** HTTP headers the runner's model clients add to every gateway request. */
export const HEADER_EPISODE = 'x-agentrl-episode';
/** base64(JSON SourceFrame[]), innermost user frame first. */
export const HEADER_STACK = 'x-agentrl-stack';
/** `auxiliary/<i>` on an auxiliary model's calls sent to the main gateway URL (the
 *  gateway's `/aux/<i>/v1` path says the same and wins); the rollout model's carry none. */
export const HEADER_ROLE = 'x-agentrl-role';

/** The role of an LLM call: undefined for the rollout model, `auxiliary/<i>` for
 *  explorer.auxiliary_models[i] (a judge, a teacher...). */
export type CallRole = `auxiliary/${number}` | undefined;
export const auxRole = (i: number): CallRole => `auxiliary/${i}`;
/** The aux index of a role, or undefined for the rollout model / anything unknown. */
export function auxIndex(role: string | undefined): number | undefined {
  const m = role ? /^auxiliary\/(\d+)$/.exec(role) : null;
  return m ? Number(m[1]) : undefined;
}

export interface SourceFrame {
  path: string;
  line: number;
  name?: string;
}

export type TaskSource =
  | { type: 'file'; path: string; split?: string; name?: string }
  | { type: 'hf'; path: string; name?: string; split: string }
  | { type: 'inline'; rows: unknown[] };

/** Everything the runner needs to run episodes, sent once in `start`. */
export interface RunnerPlan {
  /** Which workflow protocol to expect from the user's code. */
  kind: 'trinity' | 'astuner' | 'ajet';
  cwd: string;
  tasks: {
    source: TaskSource;
    /** First N rows, or explicit ids (matched against the id key, else row index). */
    count?: number;
    ids?: (string | number)[];
    /** Column holding a task id (default: `id`, `task_id`, else the row index). */
    idKey?: string;
    /** Experiences to replay, each on its task (instead of count / ids). */
    replayed?: ReplayedRow[];
  };
  repeat: number;
  /** `module->Class`, `path/file.py->Class`, dotted path, or a registry name. */
  workflow: string;
  workflowArgs: Record<string, unknown>;
  /** Trinity reward fn / ASTuner judge protocol / plain reward function, same spec forms. */
  reward?: string;
  rewardArgs: Record<string, unknown>;
  /** Trinity `format` keys (prompt_key, response_key, ...). */
  format: Record<string, unknown>;
  /** Sampling params passed to the workflow (Trinity rollout_args). */
  rolloutArgs: Record<string, unknown>;
  /** The gateway: what the workflow's clients talk to. */
  model: { baseUrl: string; apiKey: string; name: string };
  /** The whole resolved config (ASTuner ModelTuner.config, Trinity workflow access). */
  config: unknown;
  /** Seconds the runner's own clients wait for a reply (the gateway may hold a call). */
  clientTimeout: number;
  /** Index-aligned with the config's explorer.auxiliary_models: each is the gateway's
   *  `<gateway>/aux/<i>/v1`, which records the calls and forwards them to that model's endpoint. */
  auxiliaryModels?: { name: string; baseUrl: string; apiKey: string }[];
  /** Episodes run at once (default 1), as Trinity's explorer runners do; each sends its own
   *  episode header, so calls of concurrent episodes arrive interleaved. */
  concurrency?: number;
}

// ---- runner -> extension ----

export interface HelloMsg {
  type: 'hello';
  protocol: number;
  token: string;
  pid: number;
  python: string;
  executable: string;
  /** Present when the runner started debugpy: attach a child session here. */
  debugpy?: { host: string; port: number };
  /** Why debugpy is not used (not installed, not requested). */
  debugpyNote?: string;
}
export interface TasksMsg {
  type: 'tasks';
  count: number;
  ids: string[];
  /** Each replayed experience's task (by its key): its taskset row, or why the recorded first user message stands in. */
  replayedTasks?: ReplayedTask[];
}
/** How the runner found a replayed experience's task. */
export interface ReplayedTask {
  key: string;
  found: boolean;
  index: number | null;
  /** The taskset's length, when it was read. */
  rows: number | null;
  why: string | null;
  /** Not found: the recorded first user message that stands in for the task (null: the row keeps none). */
  standIn?: string | null;
}
/** An experience to replay: its task is the row at `index` (Trinity's task_index), else
 *  `fallback` (the recorded first user message), with `why` when the index is already known missing.
 *  Its episode is `Texp<key>#R0`. */
export interface ReplayedRow {
  key: string;
  index: number | null;
  fallback: Record<string, unknown>;
  why: string | null;
  /** The recorded first user message `fallback` holds (null: the row keeps none, the fallback is empty). */
  standIn: string | null;
}
export interface EpisodeStartMsg {
  type: 'episodeStart';
  episode: string;
  taskIndex: number;
  taskId: string;
  repeat: number;
  task: unknown;
}
export interface EpisodeEndMsg {
  type: 'episodeEnd';
  episode: string;
  reward: number | null;
  success?: boolean | null;
  metrics: Record<string, number>;
  metadata: Record<string, unknown>;
  /** Experiences the workflow returned (reward, metrics, info, response text). */
  experiences: unknown[];
  /** The token ids and action masks of those experiences that have ids. */
  experienceTokens?: ExperienceTokens[];
  error?: ErrorInfo;
}
/** One experience's tokens as the workflow built them (Trinity's field meanings). */
export interface ExperienceTokens {
  /** Its index among the experiences the workflow returned. */
  index: number;
  tokens: number[];
  promptLength: number | null;
  /** 1 = trained; Trinity keeps it for the response tokens only. */
  actionMask: number[] | null;
  /** The engine's logprobs of the response tokens (absent from older runners). */
  logprobs?: number[] | null;
  messages?: unknown;
  tools?: unknown;
}
export interface ErrorInfo {
  phase: 'workflow' | 'judge' | 'import' | 'tasks' | 'runner';
  type: string;
  message: string;
  traceback: SourceFrame[];
  /** The formatted Python traceback. */
  text: string;
}
/** The runner paused on an error and waits for `resume` with the same id. */
export interface ExceptionMsg {
  type: 'exception';
  id: number;
  episode?: string;
  error: ErrorInfo;
}
/** Sent before episodeEnd: the runner waits for `resume` so the debugger may stop on the reward. */
export interface RewardMsg {
  type: 'reward';
  id: number;
  episode: string;
  reward: number | null;
  /** The workflow raised (its episodeEnd will carry the error). */
  failed?: boolean;
  /** What the episode returned, as in episodeEnd: shown while stopped on the reward. */
  experiences?: unknown[];
  experienceTokens?: ExperienceTokens[];
}
export interface OutputMsg {
  type: 'output';
  category: 'stdout' | 'stderr';
  text: string;
  episode?: string;
  source?: SourceFrame;
}
/** Top-level functions of the workflow module, so tool-call frames can open the tool. */
export interface SymbolsMsg {
  type: 'symbols';
  functions: Record<string, SourceFrame>;
}
export interface DoneMsg {
  type: 'done';
}
export type RunnerMessage = HelloMsg | TasksMsg | EpisodeStartMsg | EpisodeEndMsg | ExceptionMsg | RewardMsg | OutputMsg | SymbolsMsg | DoneMsg;

// ---- extension -> runner ----

export interface StartMsg {
  type: 'start';
  plan: RunnerPlan;
}
export interface ResumeMsg {
  type: 'resume';
  id: number;
}
export interface StopMsg {
  type: 'stop';
}
export type ExtensionMessage = StartMsg | ResumeMsg | StopMsg;

/** Splits a byte stream into JSON-line messages; bad lines go to `onBad`. Bytes are kept
 *  until their line is complete (a chunk may end inside a multi-byte character) and only a
 *  new chunk is searched for the end of the line, so a 30 MB message costs one pass. */
export class JsonLineDecoder<T> {
  private pending: Buffer[] = [];
  constructor(
    private readonly onMessage: (m: T) => void,
    private readonly onBad: (line: string, err: unknown) => void = () => undefined,
  ) {}
  push(chunk: string | Buffer): void {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let nl: number;
    while ((nl = rest.indexOf(10)) >= 0) {
      const tail = rest.subarray(0, nl);
      const bytes = this.pending.length ? Buffer.concat([...this.pending, tail]) : tail;
      this.pending = [];
      rest = rest.subarray(nl + 1);
      this.line(bytes.toString('utf8').trim());
    }
    if (rest.length) this.pending.push(rest);
  }
  private line(line: string): void {
    if (!line) return;
    let msg: T;
    try {
      msg = JSON.parse(line) as T;
    } catch (e) {
      this.onBad(line, e);
      return;
    }
    this.onMessage(msg);
  }
}

export function encodeLine(m: ExtensionMessage | RunnerMessage): string {
  return JSON.stringify(m) + '\n';
}

export function decodeStackHeader(value: string | string[] | undefined): SourceFrame[] {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return [];
  try {
    const frames = JSON.parse(Buffer.from(v, 'base64').toString('utf8')) as unknown;
    return Array.isArray(frames)
      ? (frames as unknown[]).filter((f): f is SourceFrame => !!f && typeof (f as SourceFrame).path === 'string' && typeof (f as SourceFrame).line === 'number')
      : [];
  } catch {
    return [];
  }
}
