// Which charts the view shows: one chart per tag, runs overlaid; sections by the tag's first
// path component in Trinity-RFT's order (rollout/, eval/, actor/, critic/, …); a pinned row
// with what people watch first (reward / accuracy means, eval scores, pg and KL loss,
// response length). Pure.
import type { ChartSpec, SeriesInfo } from '../protocol/frames';

export interface SeriesRef {
  key: string;
  run: string;
  role: string;
  tag: string;
}

/** Pinned tags, in the order of the pinned row. */
const PINNED: RegExp[] = [
  /^rollout\/[^/]*(reward|accuracy)[^/]*\/mean$/,
  /^critic\/(rewards|score)\/mean$/,
  // `mean@N`; TensorBoard writers store it as `mean_N` (they replace characters outside [-/\w.]).
  /^(eval|bench)\/.+\/[^/]*(reward|accuracy|score)[^/]*\/mean[@_]\d+(\/mean)?$/,
  /^actor\/pg_loss$/,
  /^actor\/kl_loss$/,
  /^response_length\/mean$/,
];

const GROUP_ORDER = [
  'rollout',
  'eval',
  'bench',
  'actor',
  'critic',
  'response_length',
  'prompt_length',
  'experience_pipeline',
  'sample',
  'time',
  'timing_per_token_ms',
  'perf',
];

/** Tags whose steps lead to rollouts (click → drill-down). */
const DRILL = /^rollout\/|^critic\/(rewards|score)\/|^experience_pipeline\/group_advantages\/reward/;

export function pinnedRank(tag: string): number {
  return PINNED.findIndex((r) => r.test(tag));
}

export function groupOf(tag: string): string {
  const i = tag.indexOf('/');
  return i < 0 ? '' : tag.slice(0, i);
}

function groupRank(g: string): number {
  const i = GROUP_ORDER.indexOf(g);
  return i < 0 ? GROUP_ORDER.length : i;
}

const collator = new Intl.Collator('en', { numeric: true });

/** Chart specs for a set of series: pinned charts first, then sections in order. */
export function layoutCharts(series: SeriesRef[]): ChartSpec[] {
  const runs = [...new Set(series.map((s) => s.run))].sort(collator.compare);
  const byTag = new Map<string, SeriesRef[]>();
  for (const s of series) {
    const l = byTag.get(s.tag);
    if (l) l.push(s);
    else byTag.set(s.tag, [s]);
  }
  const charts: ChartSpec[] = [];
  for (const [tag, list] of byTag) {
    list.sort((a, b) => collator.compare(a.run, b.run) || collator.compare(a.role, b.role));
    const rolesPerRun = new Map<string, string[]>();
    for (const s of list) rolesPerRun.set(s.run, [...(rolesPerRun.get(s.run) ?? []), s.role]);
    const infos: SeriesInfo[] = list.map((s) => {
      const roles = rolesPerRun.get(s.run)!;
      return {
        key: s.key,
        run: s.run,
        role: s.role,
        tag: s.tag,
        label: roles.length > 1 ? `${s.run} (${s.role})` : s.run,
        color: runs.indexOf(s.run),
        dashed: roles.indexOf(s.role) > 0,
      };
    });
    const pinned = pinnedRank(tag) >= 0;
    charts.push({ id: tag, tag, group: groupOf(tag), pinned, drill: DRILL.test(tag), series: infos });
  }
  charts.sort((a, b) => {
    if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
    if (a.pinned) return pinnedRank(a.tag) - pinnedRank(b.tag) || collator.compare(a.tag, b.tag);
    return groupRank(a.group) - groupRank(b.group) || collator.compare(a.group, b.group) || collator.compare(a.tag, b.tag);
  });
  return charts;
}

/** The tag whose latest value the status bar shows (the run's reward), best first. */
const REWARD_TAGS: RegExp[] = [
  /^rollout\/reward\/mean$/,
  /^rollout\/accuracy\/mean$/,
  /^critic\/rewards\/mean$/,
  /^critic\/score\/mean$/,
  /^rollout\/[^/]*(reward|accuracy)[^/]*\/mean$/,
];

export function rewardTagRank(tag: string): number {
  return REWARD_TAGS.findIndex((r) => r.test(tag));
}
