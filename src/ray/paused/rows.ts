// The Ray view's row of a paused task, under its job: name and file:line, breakpoint or
// post-mortem, its address, since when. Pure: the text goes through the `l10n` passed in.
import type { L10n } from '../../base/l10n';
import { age } from '../cluster/cluster-model';
import type { PausedTask } from './paused';

export interface PausedRow {
  type: 'paused';
  id: string;
  label: string;
  description: string;
  tooltip: string;
  task: PausedTask;
  job: string;
}

export function pausedRow(t: PausedTask, job: string, now: number, l10n: L10n): PausedRow {
  const file = t.file ? t.file.split('/').pop() : undefined;
  const where = file ? `${file}${t.line !== null ? `:${t.line}` : ''}` : l10n.t('an unknown line');
  const why = t.post_mortem ? l10n.t('post-mortem') : t.post_mortem === false ? l10n.t('breakpoint') : l10n.t('paused');
  const since = t.seen_at ?? t.since;
  return {
    type: 'paused',
    id: `${job}:paused:${t.worker_id}:${t.port}`,
    label: l10n.t('{0} paused at {1}', t.name, where),
    description: [why, t.ip, since !== null ? l10n.t('since {0}', age(now - since)) : ''].filter(Boolean).join(' · '),
    tooltip: [
      `${t.name} (${why})`,
      t.file ? `${t.file}${t.line !== null ? `:${t.line}` : ''}` : (t.stack_error ?? ''),
      l10n.t('node {0} · {1}:{2} · pid {3}', t.node?.slice(0, 8) ?? '?', t.ip, String(t.port), String(t.pid ?? '?')),
    ]
      .filter(Boolean)
      .join('\n'),
    task: t,
    job,
  };
}
