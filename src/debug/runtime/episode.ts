// The live model of a rollout: episodes (one per task x repeat) and their turns. The DAP
// layer shows it; the trajectory written to disk is derived from it.
import { setTimeout as sleep } from 'timers/promises';
import type { EpisodeEndMsg, EpisodeStartMsg, ErrorInfo, ExperienceTokens, SourceFrame } from '../trajectory/runner-protocol';
import type { MessageEdit } from './edits';
import type { ChatCompletion, EpisodeTrajectory, RecordedCall, TrajectoryToolTurn, TrajectoryTurn } from '../trajectory/trajectory';

/** An LLM call as the debugger holds it: the recorded fields plus its live state. */
export interface LlmTurn extends Omit<RecordedCall, 'episode' | 'latencyMs'> {
  kind: 'llm';
  /** The user changed this call's request or reply while it was held: the episode forks here. */
  userEdited?: boolean;
  /** Earlier edits of this episode were applied to this request (it carried the original). */
  carried?: boolean;
  divergence?: { message: string; diff: string };
  /** Retokenization drift found on this call (described, one line each). */
  drift?: string[];
  state: 'pending' | 'inflight' | 'done' | 'error';
  latencyMs?: number;
}

export interface ToolTurn extends Omit<TrajectoryToolTurn, 'type'> {
  kind: 'tool';
  /** Position of the call in the reply's tool_calls. */
  callIndex: number;
  /** The role of the LLM call that asked for it (an auxiliary model's reply may too). */
  role?: string;
}

export interface ExceptionTurn {
  kind: 'exception';
  error: ErrorInfo;
}

export interface RewardTurn {
  kind: 'reward';
  reward: number | null;
}

export type EpisodeTurn = LlmTurn | ToolTurn | ExceptionTurn | RewardTurn;

export interface Episode
  extends
    Pick<EpisodeStartMsg, 'taskIndex' | 'taskId' | 'repeat' | 'task'>,
    Pick<EpisodeEndMsg, 'reward' | 'success' | 'metrics' | 'metadata' | 'experiences' | 'error'> {
  id: string;
  threadId: number;
  turns: EpisodeTurn[];
  llmCalls: number;
  /** Calls so far per role ('' = the rollout model, `auxiliary/<i>`): the next call's index. */
  callCounts: Record<string, number>;
  /** Message edits in force for the rest of the episode (edit = fork). */
  edits: MessageEdit[];
  /** The first call the user edited: where the original branch parts from the edited one. */
  forkAt?: { index: number; role?: string };
  status: 'running' | 'done' | 'error';
  startedAt: number;
  endedAt?: number;
  tokens: { prompt: number; completion: number };
  llmMs: number;
  /** The token ids and action masks of the experiences it returned (what training will see). */
  experienceTokens?: ExperienceTokens[];
  /** Action-mask warnings of the experiences it returned (described, one line each). */
  maskWarnings?: string[];
  /** LLM calls checked for drift and experiences whose mask was checked (a verdict each). */
  tokenChecks?: { calls: number; experiences: number };
}

export function newEpisode(init: Pick<Episode, 'id' | 'threadId' | 'taskIndex' | 'taskId' | 'repeat' | 'task'>): Episode {
  return {
    ...init,
    turns: [],
    llmCalls: 0,
    callCounts: {},
    edits: [],
    status: 'running',
    reward: null,
    metrics: {},
    metadata: {},
    experiences: [],
    startedAt: Date.now(),
    tokens: { prompt: 0, completion: 0 },
    llmMs: 0,
  };
}

/** The episodes of a run as the runner reports them, and what the gateway's calls are
 *  matched against: the episode a call names, else the one running. */
export class Episodes {
  readonly list: Episode[] = [];
  /** The episode last started and not yet ended: calls without an episode header go to it. */
  current?: Episode;
  /** Where the workflow's tools are defined (tool turns link to them). */
  symbols: Record<string, SourceFrame> = {};

  start(m: Omit<EpisodeStartMsg, 'type'>): Episode {
    const ep = newEpisode({ id: m.episode, threadId: this.list.length + 1, taskIndex: m.taskIndex, taskId: m.taskId, repeat: m.repeat, task: m.task });
    this.list.push(ep);
    this.current = ep;
    return ep;
  }

  /** Ends the episode `m` names with what the runner reported; undefined when none has that name. */
  end(m: Omit<EpisodeEndMsg, 'type'>): Episode | undefined {
    const ep = this.find(m.episode);
    if (!ep) return undefined;
    Object.assign(ep, {
      reward: m.reward,
      success: m.success,
      metrics: m.metrics ?? {},
      metadata: m.metadata ?? {},
      experiences: m.experiences ?? [],
      experienceTokens: m.experienceTokens,
      error: m.error,
      endedAt: Date.now(),
    });
    ep.status = m.error ? 'error' : 'done';
    if (this.current === ep) this.current = undefined;
    return ep;
  }

  find(id: string | undefined): Episode | undefined {
    return id === undefined ? undefined : this.list.find((e) => e.id === id);
  }

  byThread(threadId: number): Episode | undefined {
    return this.list.find((e) => e.threadId === threadId);
  }

  /** The episode a gateway call belongs to. The runner's episodeStart travels on another
   *  socket and may arrive after the call, so a named episode is waited for briefly. */
  async forCall(name: string | undefined): Promise<Episode | undefined> {
    if (!name) return this.current;
    for (let waited = 0; waited < 3000; waited += 10) {
      const ep = this.find(name);
      if (ep) return ep;
      await sleep(10);
    }
    return this.current;
  }
}

/** The reply the workflow actually got (edited or not). */
export const deliveredOf = (t: LlmTurn): ChatCompletion | undefined => t.delivered ?? t.response;

export function toolCallsOf(c: ChatCompletion | undefined) {
  return c?.choices?.[0]?.message?.tool_calls ?? [];
}

/** The episode as written to trajectories.jsonl: no timings, so a replay reproduces it exactly. */
export function toTrajectory(e: Episode): EpisodeTrajectory {
  const turns: TrajectoryTurn[] = [];
  for (const t of e.turns) {
    if (t.kind === 'llm') {
      turns.push({
        type: 'llm',
        index: t.index,
        ...(t.role ? { role: t.role } : {}),
        request: t.request,
        ...(t.sent ? { edited: true, sent: t.sent } : {}),
        ...(deliveredOf(t) ? { response: deliveredOf(t) } : {}),
        ...(t.error ? { error: t.error } : {}),
        ...(t.stack[0] ? { source: t.stack[0] } : {}),
      });
    } else if (t.kind === 'tool') {
      turns.push({
        type: 'tool',
        llmIndex: t.llmIndex,
        id: t.id,
        name: t.name,
        arguments: t.arguments,
        ...(t.result !== undefined ? { result: t.result } : {}),
        ...(t.error ? { error: true } : {}),
        ...(t.source ? { source: t.source } : {}),
      });
    }
  }
  return {
    episode: e.id,
    taskIndex: e.taskIndex,
    taskId: e.taskId,
    repeat: e.repeat,
    task: e.task,
    turns,
    reward: e.reward,
    ...(e.success !== undefined ? { success: e.success } : {}),
    metrics: e.metrics,
    metadata: e.metadata,
    experiences: e.experiences,
    ...(e.error ? { error: { phase: e.error.phase, type: e.error.type, message: e.error.message } } : {}),
  };
}
