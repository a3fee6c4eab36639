// GRPO group health: a step's experiences grouped the way the advantage is computed — same task,
// same model version (Trinity-RFT groups by the experience id's batch and task; its SQL buffer
// keeps task_id and model_version as columns) — and the groups that teach nothing flagged. A group
// whose rewards are all equal has a zero standard deviation, so every member's advantage is
// (r - mean) / (std + eps) = 0: it costs a rollout per member and contributes no gradient.
// Truncated, empty and never-trained members are flagged too, and a step's shares become series a
// relay can emit next to the reward curve.
import { summarize, type TokenExperience } from './experience';

/** One experience of a step, as much as a buffer row's summary tells. */
export interface GroupMember {
  taskId: string;
  runId?: number | string;
  modelVersion?: number | null;
  reward: number | null;
  /** The reward's parts (the experience's numeric metrics: accuracy, format…). */
  rewardParts?: Record<string, number>;
  responseTokens: number;
  trainedTokens: number;
  /** Mean advantage over the trained tokens; NaN when the row has none. */
  meanAdvantage: number;
  /** Largest |advantage| over the trained tokens; NaN when the row has none. */
  maxAbsAdvantage: number;
  truncated: boolean;
  emptyResponse: boolean;
}

export type GroupFlag =
  /** All rewards equal (or all advantages zero): no gradient. */
  | { kind: 'no-gradient'; size: number; reward: number | null; why: 'equal-rewards' | 'zero-advantages' }
  | { kind: 'truncated'; count: number; size: number }
  | { kind: 'empty'; count: number; size: number }
  | { kind: 'nothing-trained'; count: number; size: number };

export interface GroupReport {
  key: string;
  taskId: string;
  modelVersion: number | null;
  members: GroupMember[];
  rewardMean: number;
  /** Unbiased (n - 1), as torch.std in Trinity's GRPO advantage; NaN for one member. */
  rewardStd: number;
  flags: GroupFlag[];
}

/** Advantages this small are zero (Trinity's epsilon is 1e-6). */
const ZERO_ADVANTAGE = 1e-6;

const groupKey = (m: GroupMember): string => `${m.taskId}\u0000${m.modelVersion ?? ''}`;

function stats(rewards: number[]): { mean: number; std: number } {
  const n = rewards.length;
  if (!n) return { mean: NaN, std: NaN };
  const mean = rewards.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, std: NaN };
  const v = rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, std: Math.sqrt(v) };
}

function flagsOf(members: GroupMember[], std: number): GroupFlag[] {
  const size = members.length;
  const flags: GroupFlag[] = [];
  const rewards = members.map((m) => m.reward).filter((r): r is number => r !== null && Number.isFinite(r));
  const withAdv = members.filter((m) => Number.isFinite(m.maxAbsAdvantage));
  if (size >= 2 && rewards.length === size && std === 0) {
    flags.push({ kind: 'no-gradient', size, reward: rewards[0], why: 'equal-rewards' });
  } else if (size >= 1 && withAdv.length === size && withAdv.every((m) => m.maxAbsAdvantage <= ZERO_ADVANTAGE)) {
    flags.push({ kind: 'no-gradient', size, reward: rewards.length === size && std === 0 ? rewards[0] : null, why: 'zero-advantages' });
  }
  const count = (p: (m: GroupMember) => boolean): number => members.filter(p).length;
  const truncated = count((m) => m.truncated);
  if (truncated) flags.push({ kind: 'truncated', count: truncated, size });
  const empty = count((m) => m.emptyResponse);
  if (empty) flags.push({ kind: 'empty', count: empty, size });
  const untrained = count((m) => m.trainedTokens === 0);
  if (untrained) flags.push({ kind: 'nothing-trained', count: untrained, size });
  return flags;
}

/** What a buffer row says besides its tensors. */
export interface RowFacts {
  taskId: string;
  runId?: number | string;
  modelVersion?: number | null;
  reward: number | null;
  rewardParts?: Record<string, number>;
}

/** A group member from a decoded experience and its row. */
export function memberOf(e: TokenExperience, row: RowFacts): GroupMember {
  const s = summarize(e);
  let maxAbs = NaN;
  if (e.advantages) {
    maxAbs = 0;
    for (let i = 0; i < e.ids.length; i++) if (e.trained[i] && Number.isFinite(e.advantages[i])) maxAbs = Math.max(maxAbs, Math.abs(e.advantages[i]));
  }
  return {
    ...row,
    responseTokens: s.responseTokens,
    trainedTokens: s.trainedTokens,
    meanAdvantage: s.meanAdvantage,
    maxAbsAdvantage: maxAbs,
    truncated: s.truncated,
    emptyResponse: s.emptyResponse,
  };
}

/** The step's experiences by GRPO group, in first-seen order, each with its flags. */
export function groupHealth(members: readonly GroupMember[]): GroupReport[] {
  const groups = new Map<string, GroupMember[]>();
  for (const m of members) {
    const k = groupKey(m);
    const g = groups.get(k);
    if (g) g.push(m);
    else groups.set(k, [m]);
  }
  return [...groups].map(([key, ms]) => {
    const rewards = ms.map((m) => m.reward).filter((r): r is number => r !== null && Number.isFinite(r));
    const { mean, std } = stats(rewards);
    return { key, taskId: ms[0].taskId, modelVersion: ms[0].modelVersion ?? null, members: ms, rewardMean: mean, rewardStd: std, flags: flagsOf(ms, std) };
  });
}

/** A step's health: counts, and shares (0…1) a relay emits as series. */
export interface StepHealth {
  groups: number;
  experiences: number;
  noGradientGroups: number;
  truncated: number;
  empty: number;
  nothingTrained: number;
  /** Series name → share (0…1), the names a chart shows next to rollout/accuracy. */
  series: Record<StepSeries, number>;
}

export const STEP_SERIES = ['rollout/no_gradient_groups', 'rollout/truncated', 'rollout/empty', 'rollout/nothing_trained'] as const;
export type StepSeries = (typeof STEP_SERIES)[number];

export function stepHealth(groups: readonly GroupReport[]): StepHealth {
  let experiences = 0;
  let noGradientGroups = 0;
  let truncated = 0;
  let empty = 0;
  let nothingTrained = 0;
  for (const g of groups) {
    experiences += g.members.length;
    if (g.flags.some((f) => f.kind === 'no-gradient')) noGradientGroups++;
    for (const m of g.members) {
      if (m.truncated) truncated++;
      if (m.emptyResponse) empty++;
      if (m.trainedTokens === 0) nothingTrained++;
    }
  }
  const share = (n: number, of: number): number => (of ? n / of : 0);
  return {
    groups: groups.length,
    experiences,
    noGradientGroups,
    truncated,
    empty,
    nothingTrained,
    series: {
      'rollout/no_gradient_groups': share(noGradientGroups, groups.length),
      'rollout/truncated': share(truncated, experiences),
      'rollout/empty': share(empty, experiences),
      'rollout/nothing_trained': share(nothingTrained, experiences),
    },
  };
}
