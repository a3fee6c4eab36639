// The report in words, in the reader's language (an injected L10n: vscode.l10n in the view,
// English in the CLI): the verdict sentence, the changes, the shares, the advice, what is missing.
import type { L10n } from '../base/l10n';
import type { Bottleneck, Evidence } from './analyze';
import type { DataProblem, PipelineReport } from './report';

const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : `${Math.round(v * 100)} %`);

function kindName(l10n: L10n, b: Bottleneck): string {
  switch (b) {
    case 'explorer':
      return l10n.t('the explorer');
    case 'trainer':
      return l10n.t('the trainer');
    case 'sync':
      return l10n.t('the weight sync');
    case 'stragglers':
      return l10n.t('stragglers');
    case 'checkpoint':
      return l10n.t('checkpoints');
    case 'eval':
      return l10n.t('evaluation');
    case 'balanced':
      return l10n.t('balanced');
    default:
      return l10n.t('unknown');
  }
}

const value = (e: Evidence[], part: Evidence['part']): number | null => e.find((x) => x.part === part)?.value ?? null;

/** The one sentence at the top: the bottleneck, since when, and the share it rests on. */
export function verdictSentence(l10n: L10n, r: PipelineReport): string {
  const since = String(r.since ?? r.steps?.[0] ?? 0);
  const e = r.evidence;
  switch (r.bottleneck) {
    case 'explorer':
      return l10n.t(
        'Since step {0} the trainer waits for experiences {1} of its time: the explorer is the bottleneck.',
        since,
        pct(value(e, 'wait_experience')),
      );
    case 'stragglers':
      return l10n.t(
        'Since step {0} the slowest task of a step takes {1}× the mean and the explorer waits on it {2} of its time: stragglers hold every step.',
        since,
        (value(e, 'tail_ratio') ?? r.tailRatio ?? 0).toFixed(1),
        pct(value(e, 'wait_stragglers')),
      );
    case 'trainer':
      return l10n.t(
        'Since step {0} the trainer computes {1} of its time and seldom waits for experiences: the trainer is the bottleneck.',
        since,
        pct(value(e, 'compute')),
      );
    case 'sync':
      return l10n.t("Since step {0} the weight sync takes {1} of the trainer's time: the sync is the bottleneck.", since, pct(value(e, 'sync_weight')));
    case 'checkpoint':
      return l10n.t("Since step {0} saving checkpoints takes {1} of the trainer's time: checkpoints are the bottleneck.", since, pct(value(e, 'checkpoint')));
    case 'eval':
      return l10n.t("Since step {0} evaluation takes {1} of the explorer's time: evaluation is the bottleneck.", since, pct(value(e, 'eval')));
    case 'balanced':
      return l10n.t('Since step {0} neither role waits long on the other: the pipeline is balanced.', since);
    default:
      return r.missing.length
        ? l10n.t('Not enough data to name a bottleneck: {0} is missing.', r.missing.map((m) => m.tag).join(', '))
        : l10n.t('Not enough data to name a bottleneck yet: no step has timings.');
  }
}

export function changeSentences(l10n: L10n, r: PipelineReport): string[] {
  return r.segments
    .slice(1)
    .map((s, i) =>
      l10n.t('At step {0} the bottleneck moved from {1} to {2}.', String(s.from), kindName(l10n, r.segments[i].bottleneck), kindName(l10n, s.bottleneck)),
    );
}

export function partName(l10n: L10n, part: string): string {
  switch (part) {
    case 'wait_experience':
      return l10n.t('waiting for experiences');
    case 'compute':
      return l10n.t('computing');
    case 'sync_weight':
      return l10n.t('weight sync');
    case 'checkpoint':
      return l10n.t('checkpoint');
    case 'generate':
      return l10n.t('generating');
    case 'wait_stragglers':
      return l10n.t('waiting for the slowest tasks');
    case 'wait_sync':
      return l10n.t('waiting on the sync');
    case 'eval':
      return l10n.t('eval');
    case 'tail_ratio':
      return l10n.t('slowest task / mean');
    default:
      return part;
  }
}

export function problemSentence(l10n: L10n, p: DataProblem): string {
  switch (p.kind) {
    case 'bad-values':
      return l10n.t('{0}: {1} negative or NaN values set aside.', p.subject, String(p.count));
    case 'out-of-order':
      return l10n.t('{0}: {1} points came out of step order (sorted by step).', p.subject, String(p.count));
    default:
      return l10n.t('No {0} timings in this window: that role is missing (its event files or log lines were not found).', p.subject);
  }
}

const num = (v: number | string | boolean | null): string => (v === null ? '–' : String(v));

/** The report as a terminal prints it. */
export function reportText(l10n: L10n, r: PipelineReport): string {
  const lines: string[] = [];
  lines.push(r.steps ? l10n.t('Steps {0}–{1}', String(r.steps[0]), String(r.steps[1])) : l10n.t('No steps with timings.'));
  lines.push(verdictSentence(l10n, r));
  lines.push(...changeSentences(l10n, r));
  for (const role of ['trainer', 'explorer'] as const) {
    const shares = r.shares[role] as Record<string, number | null>;
    const parts = Object.entries(shares).map(([p, v]) => `${partName(l10n, p)} ${pct(v)}`);
    lines.push(`${role === 'trainer' ? l10n.t('trainer') : l10n.t('explorer')}: ${parts.join(' · ')}`);
  }
  if (r.throughput.stepsPerHour !== null) lines.push(l10n.t('{0} train steps per hour', r.throughput.stepsPerHour.toFixed(1)));
  if (r.evidence.length)
    lines.push(
      l10n.t(
        'Evidence: {0}',
        r.evidence
          .map((e) => `${partName(l10n, e.part)} ${e.part === 'tail_ratio' ? `${e.value.toFixed(1)}×` : pct(e.value)} (${e.tags.join(', ')})`)
          .join('; '),
      ),
    );
  for (const a of r.advice) lines.push(l10n.t('Try {0}: {1} → {2}{3}', a.key, num(a.now), num(a.suggest), a.defaulted ? l10n.t(' (now the default)') : ''));
  if (r.configProblem) lines.push(l10n.t('No advice with values: {0}', r.configProblem));
  for (const m of r.missing) lines.push(l10n.t('Missing {0} ({1}): turn it on with {2}', m.tag, m.role, m.enable));
  if (r.other.length) lines.push(l10n.t('Other timings (not understood, shown as they are): {0}', r.other.join(', ')));
  for (const p of r.problems) lines.push(problemSentence(l10n, p));
  return `${lines.join('\n')}\n`;
}
