// The health of a drilled step's GRPO groups (src/tokens/group-health.ts): the rows grouped the
// way the advantage is computed (task, model version), the groups that teach nothing flagged —
// equal rewards, truncated, empty, nothing trained — and the step's line above the rollout list,
// worded here with the extension's l10n. What a row does not say (a buffer without tensors, an
// older relay) is not counted as a flag. Pure.
import type { L10n } from '../../base/l10n';
import { type GroupMember, groupHealth, stepHealth } from '../../tokens/group-health';
import { describeGroupFlag } from '../../tokens/strings';
import type { ExperienceViewRow } from '../protocol/experience-rows';
import type { DrillExperiencesMessage } from '../protocol/view-protocol';

type DrillHealth = NonNullable<DrillExperiencesMessage['health']>;

/** A group member as much as a row tells (NaN: unknown). */
export function memberOfRow(r: ExperienceViewRow): GroupMember {
  return {
    taskId: r.taskId ?? '',
    runId: r.runId ?? undefined,
    modelVersion: r.modelVersion,
    reward: r.reward !== null && Number.isFinite(r.reward) ? r.reward : null,
    responseTokens: r.responseTokens ?? NaN,
    trainedTokens: r.trainedTokens ?? NaN,
    meanAdvantage: r.advantage ?? NaN,
    maxAbsAdvantage: NaN,
    truncated: r.truncated === true,
    emptyResponse: r.emptyResponse === true,
  };
}

export function drillHealth(rows: readonly ExperienceViewRow[], l10n: L10n): DrillHealth | undefined {
  if (!rows.length) return undefined;
  const groups = groupHealth(rows.map(memberOfRow));
  const h = stepHealth(groups);
  return {
    line: l10n.t(
      '{0} of {1} groups give no gradient · {2} of {3} responses truncated · {4} empty · {5} with nothing trained',
      h.noGradientGroups,
      h.groups,
      h.truncated,
      h.experiences,
      h.empty,
      h.nothingTrained,
    ),
    groups: groups
      .filter((g) => g.flags.length)
      .map((g) => ({
        task: g.members[0].taskId === '' ? null : g.taskId,
        modelVersion: g.modelVersion,
        flags: g.flags.map((f) => describeGroupFlag(f, l10n)),
      })),
  };
}
