// The result of replaying one experience (`agentrl rollout --from-job … --id N --json`, the
// debug session's last words): recorded vs recomputed reward and parts, the calls, the first
// divergence, how the task was found. Pure.
import type { L10n } from '../../base/l10n';
import { isTiming, type RecordedExperience } from './recorded';

/** How the runner found the task (its `tasks` message). */
export interface ReplayedTask {
  found: boolean;
  index: number | null;
  /** The taskset's length, when it was read. */
  rows: number | null;
  why: string | null;
  /** Not found: the recorded first user message standing in for the task (null: none). */
  standIn?: string | null;
}

/** What the replayed episode gave. */
export interface ReplayedEpisode {
  reward: number | null;
  metrics: Record<string, number>;
  experiences: unknown[];
  error?: { phase: string; type: string; message: string };
}

export interface RowReplayLogView {
  calls: number;
  divergedAt: { call: number; diff: string; message?: string } | null;
  liveFrom?: number | null;
  slot: { index: number; of: number } | null;
  unchecked: string[];
}

/** The JSON of `agentrl rollout --from-job DIR --id N --json`. */
export interface RowReplayResult {
  id: string;
  task_index: number | null;
  model_version: number | null;
  recorded_reward: number | null;
  reward: number | null;
  /** Each part (a numeric metric of the experience): [recorded, now]; null where one side has none. */
  reward_parts: Record<string, [number | null, number | null]>;
  /** LLM calls the workflow made. */
  calls: number;
  diverged_at: null | { call: number; diff: string };
  /** The call from which a live model answered, after the divergence (null: none did). */
  live_from: number | null;
  /** Where the task came from: the taskset row (found) or the recorded first user message. */
  task: { found: boolean; rows: number | null; why: string | null; stand_in: string | null; config: 'workspace' | 'job'; config_why: string };
  /** The slot of a group-sampling call the recorded member answered. */
  slot: { index: number; of: number } | null;
  /** What the request check could not compare. */
  unchecked: string[];
  /** The workflow or the reward raised. */
  error: string | null;
  /** recorded_reward equals reward, every part too, and nothing diverged. */
  same: boolean;
}

/** Equal within float32 rounding (a reward may pass through a float32 tensor on its way to the buffer). */
export function sameNumber(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return a === b || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

function rewardOf(e: unknown): number | null {
  const r = e && typeof e === 'object' ? (e as { reward?: unknown }).reward : undefined;
  return typeof r === 'number' && Number.isFinite(r) ? r : null;
}

function metricsOf(e: unknown): Record<string, number> | undefined {
  const m = e && typeof e === 'object' ? (e as { metrics?: unknown }).metrics : undefined;
  if (!m || typeof m !== 'object') return undefined;
  return Object.fromEntries(Object.entries(m as Record<string, unknown>).filter((kv): kv is [string, number] => typeof kv[1] === 'number'));
}

export function rowReplayResult(
  x: RecordedExperience,
  log: RowReplayLogView,
  ep: ReplayedEpisode | undefined,
  task: ReplayedTask | undefined,
  config: { from: 'workspace' | 'job'; why: string },
): RowReplayResult {
  // A group-sampling call: the recorded member's slot is the experience to compare.
  const member = log.slot && ep?.experiences[log.slot.index];
  const reward = member ? rewardOf(member) : (ep?.reward ?? null);
  const nowParts = (member ? metricsOf(member) : undefined) ?? ep?.metrics ?? {};
  const parts: Record<string, [number | null, number | null]> = {};
  for (const k of new Set([...Object.keys(x.parts), ...Object.keys(nowParts)].filter((n) => !isTiming(n))))
    parts[k] = [x.parts[k] ?? null, nowParts[k] ?? null];
  const diverged = log.divergedAt ? { call: log.divergedAt.call, diff: log.divergedAt.diff } : null;
  const error = ep?.error ? `${ep.error.phase} error ${ep.error.type}: ${ep.error.message}` : ep ? null : 'the episode did not run';
  const same = !diverged && !error && sameNumber(x.reward, reward) && Object.values(parts).every(([a, b]) => sameNumber(a, b));
  return {
    id: x.id,
    task_index: x.taskIndex,
    model_version: x.modelVersion,
    recorded_reward: x.reward,
    reward,
    reward_parts: parts,
    calls: log.calls,
    diverged_at: diverged,
    live_from: log.liveFrom ?? null,
    task: {
      found: task?.found ?? false,
      rows: task?.rows ?? null,
      why: task?.why ?? null,
      stand_in: task && !task.found ? (task.standIn ?? null) : null,
      config: config.from,
      config_why: config.why,
    },
    slot: log.slot,
    unchecked: log.unchecked,
    error,
    same,
  };
}

const show = (v: number | null) => (v === null ? '–' : String(v));

/** The side-by-side lines: reward, then each part. */
export function comparisonLines(r: RowReplayResult, l10n: L10n): string[] {
  const lines = [l10n.t('Experience {0}: recorded reward {1} · now {2}', r.id, show(r.recorded_reward), show(r.reward))];
  for (const [k, [a, b]] of Object.entries(r.reward_parts)) lines.push(`  ${k}: ${show(a)} → ${show(b)}${sameNumber(a, b) ? '' : '  ≠'}`);
  return lines;
}

/** The finding when the reward (or a part) differs; undefined when it is the same. */
export function rewardFinding(r: RowReplayResult, l10n: L10n): string | undefined {
  if (r.diverged_at) return l10n.t('The replay diverged at LLM call {0}: the reward of this run is not comparable to the recorded one.', r.diverged_at.call);
  if (r.error) return l10n.t('The replay ended with an error: {0}', r.error);
  if (r.same) return undefined;
  const at = r.model_version === null ? '' : l10n.t(' at model version {0}', r.model_version);
  const parts = Object.entries(r.reward_parts)
    .filter(([, [a, b]]) => !sameNumber(a, b))
    .map(([k, [a, b]]) => `${k} ${show(a)} → ${show(b)}`);
  return (
    l10n.t('Your reward function now gives {0}; training recorded {1}{2}.', show(r.reward), show(r.recorded_reward), at) +
    (parts.length ? ' ' + l10n.t('Parts that differ: {0}.', parts.join(', ')) : '')
  );
}
