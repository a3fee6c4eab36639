// The drill-down's re-score: the step's (or range's) buffer rows scored again by the workspace's
// current reward code — per experience the recorded reward and the one now, the group
// advantages both give — with the rows whose reward changed first and those whose advantage
// flips sign marked. DOM only.
import type { RescoreResult } from '../protocol/rescore';
import type { UiStrings } from '../protocol/ui-strings';
import { changed, flipped } from '../replay/rescore-result';
import { fmtNum } from './format';

/** Rows listed at most (the counts cover all of them). */
const MAX_ROWS = 500;

export function rescoreView(r: RescoreResult, s: UiStrings): HTMLElement {
  const box = document.createElement('div');
  box.className = 'rescore-result';
  const summary = document.createElement('p');
  summary.className = 'rescore-summary';
  summary.textContent = s.rescoreSummary
    .replace('{0}', String(r.steps[0]))
    .replace('{1}', String(r.steps[1]))
    .replace('{2}', String(r.changed))
    .replace('{3}', String(r.rows.length))
    .replace('{4}', String(r.flips));
  summary.dataset.changed = String(r.changed);
  summary.dataset.flips = String(r.flips);
  box.append(summary);
  if (!r.rows.length) return box;
  const table = document.createElement('table');
  table.className = 'rescore-rows';
  const head = document.createElement('tr');
  for (const h of ['#', s.step, s.task, s.rescoreRecorded, s.rescoreNow, s.rescoreAdvantages, s.rescoreError]) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  table.append(head);
  const rows = [...r.rows].sort((a, b) => Number(changed(b)) - Number(changed(a)) || Number(flipped(b)) - Number(flipped(a)) || a.id - b.id);
  for (const row of rows.slice(0, MAX_ROWS)) {
    const tr = document.createElement('tr');
    tr.dataset.id = String(row.id);
    tr.className = [changed(row) ? 'changed' : '', flipped(row) ? 'flipped' : '', row.error ? 'failed' : ''].filter(Boolean).join(' ');
    const adv = `${fmtNum(row.advantage_recorded)} → ${fmtNum(row.advantage_now)}${flipped(row) ? ' ⇅' : ''}`;
    for (const v of [String(row.id), fmtNum(row.step), fmtNum(row.task_index), fmtNum(row.recorded), fmtNum(row.now), adv, row.error ?? '']) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.append(td);
    }
    table.append(tr);
  }
  box.append(table);
  return box;
}
