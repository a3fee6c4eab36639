// The debugger's headless runs offered to other features (RolloutService in
// src/feature-api/rollouts.ts): a run of a workflow's tasks against one model, the same native
// runtime and recording gateway as `agentrl rollout`, never stopping; the episodes of a recorded
// run; and a re-score of a recorded run with the current reward function, which runs only the
// reward in Python (`python -m agentrl_runner --rescore`): no runtime, no gateway, no model.
import * as fs from 'fs';
import * as path from 'path';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import { rescoreBuffer } from './buffer-rescore';
import type {
  BufferRescoreOutcome,
  BufferRescoreRequest,
  EpisodeOutcome,
  RescoreOutcome,
  RescoreRequest,
  RolloutOutcome,
  RolloutRequest,
  RolloutService,
  TranscriptTurn,
} from '../feature-api/rollouts';
import { silentLogger } from '../base/log';
import { prepareLaunch } from './dap/launch';
import { runRescoreProcess, type RescoreProcessResult } from './rescore-process';
import { readEpisodes } from './results/run-store';
import { buildPlan } from './runtime/plan';
import type { Episode } from './runtime/episode';
import type { ChatMessage, EpisodeTrajectory } from './trajectory/trajectory';
import { toolCallText } from './results/transcript';

/** The folder holding the runner package: dist/runner next to the bundle, src/debug/runner
 *  when run from the compiled sources (out/). */
export function findRunnerDir(from = __dirname): string | undefined {
  return [path.join(from, 'runner'), path.join(from, '..', '..', '..', 'src', 'debug', 'runner')].find((d) =>
    fs.existsSync(path.join(d, 'agentrl_runner', '__main__.py')),
  );
}

const numericParts = (m: Record<string, unknown> | undefined): Record<string, number> =>
  Object.fromEntries(Object.entries(m ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));

function outcomeOf(ep: Pick<EpisodeTrajectory, 'episode' | 'taskId' | 'repeat' | 'reward' | 'metrics' | 'error'>): EpisodeOutcome {
  return {
    episode: ep.episode,
    taskId: String(ep.taskId),
    repeat: ep.repeat,
    reward: ep.error ? null : typeof ep.reward === 'number' && Number.isFinite(ep.reward) ? ep.reward : null,
    parts: numericParts(ep.metrics),
    ...(ep.error ? { error: { phase: ep.error.phase, type: ep.error.type, message: ep.error.message } } : {}),
  };
}

const liveOutcome = (ep: Episode): EpisodeOutcome =>
  outcomeOf({ episode: ep.id, taskId: ep.taskId, repeat: ep.repeat, reward: ep.reward ?? null, metrics: ep.metrics ?? {}, error: ep.error });

/** The text the workflow got back last: what a reward function scores. */
export function finalResponse(ep: EpisodeTrajectory): string {
  for (let i = ep.turns.length - 1; i >= 0; i--) {
    const t = ep.turns[i];
    if (t.type !== 'llm' || (t.role ?? '') !== '' || !t.response) continue;
    const c = t.response.choices[0]?.message?.content;
    return typeof c === 'string' ? c : '';
  }
  return '';
}

function messageText(m: ChatMessage): string {
  const c = m.content;
  const text =
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? c.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('\n')
        : '';
  const calls = (m.tool_calls ?? []).map((t) => toolCallText(t.function.name, t.function.arguments));
  return [text, ...calls].filter(Boolean).join('\n');
}

const turnKind = (role: string): TranscriptTurn['kind'] => (role === 'system' || role === 'user' || role === 'assistant' || role === 'tool' ? role : 'user');

/** An episode as the turns a reader compares: the messages each call added, each reply, each
 *  tool result, then the reward (with its parts) or the error. */
function transcriptTurns(ep: EpisodeTrajectory): TranscriptTurn[] {
  const out: TranscriptTurn[] = [];
  let seen = 0;
  for (const t of ep.turns) {
    if (t.type === 'tool') {
      out.push({ kind: 'tool', text: `${toolCallText(t.name, t.arguments)} → ${typeof t.result === 'string' ? t.result : JSON.stringify(t.result)}` });
      continue;
    }
    if ((t.role ?? '') !== '') continue;
    const msgs = t.request.messages ?? [];
    // Tool results arrive as tool turns already; the request repeats the history.
    for (const m of msgs.slice(seen)) if (m.role !== 'tool' && m.role !== 'assistant') out.push({ kind: turnKind(m.role), text: messageText(m) });
    seen = msgs.length + 1;
    const reply = t.response?.choices[0]?.message;
    if (reply) out.push({ kind: 'assistant', text: messageText(reply) });
    else if (t.error) out.push({ kind: 'error', text: `${t.error.kind}: ${t.error.message}` });
  }
  if (ep.error) out.push({ kind: 'error', text: `${ep.error.phase} error ${ep.error.type}: ${ep.error.message}` });
  const parts = Object.entries(numericParts(ep.metrics)).map(([k, v]) => `${k} ${v}`);
  out.push({ kind: 'reward', text: `${ep.reward ?? '—'}${parts.length ? ` (${parts.join(', ')})` : ''}` });
  return out;
}

export class DebugRolloutService implements RolloutService {
  /** `experiences`: the relay's reader of a training run's rows (`rescoreBuffer` needs it). */
  constructor(
    private readonly checker: ConfigChecker,
    private readonly runnerDir: string,
    private readonly experiences?: ExperienceReader,
  ) {}

  rescoreBuffer(req: BufferRescoreRequest): Promise<BufferRescoreOutcome> {
    if (!this.experiences) return Promise.resolve({ ok: false, message: 'Re-scoring buffer rows needs the relay reader, which this host does not have.' });
    return rescoreBuffer(this.checker, this.runnerDir, this.experiences, req);
  }

  async run(req: RolloutRequest, onEpisode?: (e: EpisodeOutcome) => void): Promise<RolloutOutcome> {
    const prepared = await prepareLaunch(
      {
        config: req.config,
        cwd: req.cwd,
        workspaceRoot: req.cwd,
        tasks: req.tasks,
        repeat: req.repeat,
        concurrency: req.concurrency,
        split: req.split,
        workflow: req.workflow,
        python: req.python,
        model: { ...req.model },
        record: true,
      },
      { checker: this.checker, logger: silentLogger, runnerDir: this.runnerDir, env: req.env, runDir: req.runDir },
    );
    if (!prepared.ok) return { ok: false, message: prepared.message };
    const rt = prepared.run;
    rt.disableStops(); // headless: record errors, never stop
    const episodes: EpisodeOutcome[] = [];
    rt.on('episodeEnded', (ep) => {
      const o = liveOutcome(ep);
      episodes.push(o);
      onEpisode?.(o);
    });
    const ended = new Promise<void>((r) => rt.once('ended', () => r()));
    try {
      await rt.start();
    } catch (e) {
      return { ok: false, message: (e as Error).message };
    }
    // Listened to once started: a runtime ends cleanly only after start() has set it up.
    const stop = () => void rt.terminate();
    if (req.signal?.aborted) stop();
    else req.signal?.addEventListener('abort', stop, { once: true });
    await ended;
    req.signal?.removeEventListener('abort', stop);
    const s = rt.summary;
    return {
      ok: true,
      runDir: rt.runDir ?? req.runDir,
      status: s?.status ?? 'failed',
      ...(s?.message ? { message: s.message } : {}),
      episodes,
      llmCalls: s?.llmCalls ?? 0,
    };
  }

  transcript(runDir: string, episode: string): TranscriptTurn[] | undefined {
    const ep = readEpisodes(runDir).find((e) => e.episode === episode);
    return ep ? transcriptTurns(ep) : undefined;
  }

  recorded(runDir: string): EpisodeOutcome[] {
    return readEpisodes(runDir).map(outcomeOf);
  }

  async rescore(req: RescoreRequest): Promise<RescoreOutcome> {
    const configPath = path.resolve(req.cwd, req.config);
    let reward = req.reward;
    let rewardArgs: Record<string, unknown> = {};
    let format: Record<string, unknown> = {};
    try {
      const checked = await this.checker.check(configPath);
      const planned = buildPlan({ config: configPath, cwd: req.cwd }, checked.kind, checked.resolved, configPath);
      if (planned.plan) {
        reward ??= planned.plan.reward;
        rewardArgs = planned.plan.rewardArgs;
        format = planned.plan.format;
      }
    } catch (e) {
      return { ok: false, message: `Could not read ${configPath}: ${(e as Error).message}` };
    }
    if (!reward)
      return {
        ok: false,
        message: `${path.basename(configPath)} names no reward function to re-score with (set the taskset's default_reward_fn_type, or pass one)`,
      };
    const recorded = readEpisodes(req.runDir);
    if (!recorded.length) return { ok: false, message: `No recorded episodes in ${req.runDir}` };
    const scorable = recorded.filter((ep) => !ep.error);
    const request = { cwd: req.cwd, reward, rewardArgs, format, items: scorable.map((ep) => ({ task: ep.task, response: finalResponse(ep) })) };
    const result = await this.runRescore(request, req);
    if (!result.ok) return result;
    const byEpisode = new Map(scorable.map((ep, i) => [ep.episode, result.scores[i]]));
    return {
      ok: true,
      episodes: recorded.map((ep) => {
        const s = byEpisode.get(ep.episode);
        const base = outcomeOf(ep);
        if (!s) return base;
        return { ...base, reward: s.reward, parts: s.parts, ...(s.error ? { error: { phase: 'judge', type: 'RewardError', message: s.error } } : {}) };
      }),
    };
  }

  private runRescore(request: { items: readonly unknown[] } & Record<string, unknown>, req: RescoreRequest): Promise<RescoreProcessResult> {
    const env = { ...(req.env ?? process.env) };
    env.PYTHONPATH = [this.runnerDir, env.PYTHONPATH].filter(Boolean).join(path.delimiter);
    const python = req.python ?? (process.platform === 'win32' ? 'python' : 'python3');
    return runRescoreProcess({ python, cwd: req.cwd, env, request, limits: req.limits });
  }
}
