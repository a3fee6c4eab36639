// The Tasks view: which tasks of the run learn. Per experience source: the counts per class on
// top (each a filter), the evidence of reward hacking (evidence, not proof: each finding with its
// numbers and the rollouts behind it), then one row per task — its mean reward by model version
// as a sparkline, the first version that solved it, the last it was seen at, its class, reward
// gain and length change — sortable. A row or a finding opens its rollouts side by side
// (task-experiences.ts). The tables come from the extension as the relay folds them, live.
import type { TaskRow } from '../../tasks/task-classes';
import type { TasksStrings, TasksTableMessage, TasksViewTable } from '../protocol/tasks-protocol';
import type { ExperienceViewDetail } from '../protocol/experience-rows';
import type { TokensMessage } from '../protocol/view-protocol';
import type { TokenViewStrings } from '../../tokens/view-strings';
import { type ExperiencesPort, TaskExperiences, fmt } from './task-experiences';
import { saveState, savedState } from './webview-api';

const CLASSES = ['learned', 'never', 'always', 'forgotten', 'flaky'] as const;
type Sort = 'task' | 'gain' | 'flip' | 'length';

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const SVG = 'http://www.w3.org/2000/svg';

/** A task's mean reward by version as a line, on the run's reward range, with the "solved" threshold dashed. */
function sparkline(row: TaskRow, lo: number, hi: number, threshold: number | null): SVGSVGElement {
  const w = 120;
  const h = 22;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(h));
  svg.classList.add('spark');
  const vs = Object.keys(row.rewards)
    .map(Number)
    .sort((a, b) => a - b);
  const y = (r: number) => (hi > lo ? h - 2 - ((r - lo) / (hi - lo)) * (h - 4) : h / 2);
  const x = (i: number) => (vs.length > 1 ? 1 + (i * (w - 2)) / (vs.length - 1) : w / 2);
  if (threshold !== null) {
    const t = document.createElementNS(SVG, 'line');
    Object.entries({ x1: 0, x2: w, y1: y(threshold), y2: y(threshold), class: 'threshold' }).forEach(([k, v]) => t.setAttribute(k, String(v)));
    svg.append(t);
  }
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', vs.map((v, i) => `${x(i).toFixed(1)},${y(row.rewards[v]).toFixed(1)}`).join(' '));
  svg.append(line);
  const title = document.createElementNS(SVG, 'title');
  title.textContent = vs.map((v) => `${v}: ${fmt(row.rewards[v])}`).join('  ');
  svg.append(title);
  return svg;
}

function sorted(tasks: TaskRow[], by: Sort): TaskRow[] {
  const out = [...tasks];
  const cmp = (a: TaskRow, b: TaskRow) => a.task.localeCompare(b.task, 'en', { numeric: true });
  if (by === 'gain') out.sort((a, b) => b.gain - a.gain || cmp(a, b));
  else if (by === 'flip') out.sort((a, b) => (a.flipped ?? Infinity) - (b.flipped ?? Infinity) || cmp(a, b));
  else if (by === 'length') out.sort((a, b) => (b.length_change ?? -Infinity) - (a.length_change ?? -Infinity) || cmp(a, b));
  else out.sort(cmp);
  return out;
}

export class TasksPane {
  readonly el: HTMLElement = el('section', 'tasks-view');
  private readonly body = el('div', 'tasks-body');
  private readonly rollouts: TaskExperiences;
  private strings: TasksStrings | undefined;
  private last: TasksTableMessage | undefined;
  // Kept across reloads of the webview.
  private filter: string = savedState()?.tasks?.filter ?? 'all';
  private sort: Sort = (savedState()?.tasks?.sort as Sort | undefined) ?? 'task';
  private selected: string | undefined;

  constructor(tokenStrings: TokenViewStrings, port: ExperiencesPort) {
    this.rollouts = new TaskExperiences(() => this.strings!, tokenStrings, port);
    this.el.append(this.body, this.rollouts.el);
  }

  /** The tables, as the relays folded them (again each few seconds while the view is shown). */
  show(m: TasksTableMessage): void {
    this.strings = m.strings;
    this.last = m;
    this.render();
  }

  owns(request: number): boolean {
    return this.rollouts.owns(request);
  }

  detail(request: number, d: ExperienceViewDetail | undefined, error: string | undefined): void {
    this.rollouts.detail(request, d, error);
  }

  tokens(m: TokensMessage): void {
    this.rollouts.tokens(m);
  }

  private keep(): void {
    saveState({ tasks: { filter: this.filter, sort: this.sort } });
    this.render();
  }

  private render(): void {
    const m = this.last!;
    const s = m.strings;
    const out: HTMLElement[] = [el('h2', undefined, s.tasksTitle)];
    for (const e of m.errors) out.push(el('p', 'error', e));
    if (!m.tables.length) out.push(el('p', 'empty', s.noTable));
    for (const t of m.tables) out.push(this.table(t, s));
    this.body.replaceChildren(...out);
  }

  private table(t: TasksViewTable, s: TasksStrings): HTMLElement {
    const r = t.report;
    const box = el('div', 'tasks-table');
    box.dataset.source = t.source;
    if (r.versions) {
      const summary = s.summary
        .replace('{0}', String(r.tasks.length))
        .replace('{1}', String(r.versions[0]))
        .replace('{2}', String(r.versions[1]))
        .replace('{3}', fmt(r.threshold))
        .replace('{4}', String(r.experiences));
      box.append(el('p', 'summary', `${t.run} · ${t.table} — ${summary}`));
    }
    const sk = r.skipped;
    if (sk.no_task || sk.no_version || sk.no_reward)
      box.append(el('p', 'note', s.skipped.replace('{0}', String(sk.no_task)).replace('{1}', String(sk.no_version)).replace('{2}', String(sk.no_reward))));
    if (r.versions_out_of_order) box.append(el('p', 'note', s.outOfOrder.replace('{0}', String(r.versions_out_of_order))));
    if (r.identity === 'eid.task') box.append(el('p', 'note', s.identityEid));
    if (r.identity === 'mixed') box.append(el('p', 'note', s.identityMixed));

    // Counts per class: each a filter.
    const counts = el('div', 'class-counts');
    const chip = (id: string, label: string, n: number) => {
      const b = el('button', `class-chip class-${id}`, `${label} ${n}`);
      b.dataset.class = id;
      b.setAttribute('aria-pressed', String(this.filter === id));
      b.addEventListener('click', () => {
        this.filter = id;
        this.keep();
      });
      counts.append(b);
    };
    chip('all', s.all, r.tasks.length);
    for (const c of CLASSES) chip(c, s[c], r.counts[c]);
    const sortSel = el('select', 'task-sort');
    for (const [v, label] of [
      ['task', s.sortTask],
      ['gain', s.sortGain],
      ['flip', s.sortFlip],
      ['length', s.sortLength],
    ] as const)
      sortSel.append(Object.assign(el('option', undefined, label), { value: v }));
    sortSel.value = this.sort;
    sortSel.addEventListener('change', () => {
      this.sort = sortSel.value as Sort;
      this.keep();
    });
    const sortLabel = el('label', 'sort');
    sortLabel.append(`${s.sortBy} `, sortSel);
    counts.append(sortLabel);
    box.append(counts, this.findings(t, s));

    const table = el('table', 'tasks');
    const head = el('tr');
    for (const h of [s.task, s.rewardByVersion, s.firstSolved, s.lastSeen, s.class, s.gain, s.lengthChange]) head.append(el('th', undefined, h));
    table.append(head);
    const means = r.tasks.flatMap((x) => Object.values(x.rewards));
    const lo = means.length ? Math.min(...means) : 0;
    const hi = means.length ? Math.max(...means) : 0;
    for (const row of sorted(r.tasks, this.sort)) {
      if (this.filter !== 'all' && row.class !== this.filter) continue;
      const tr = el('tr', `task-row class-${row.class}`);
      tr.dataset.task = row.task;
      if (row.task === this.selected) tr.classList.add('selected');
      const spark = el('td');
      spark.append(sparkline(row, lo, hi, r.threshold));
      tr.append(el('td', 'task', row.task), spark);
      tr.append(el('td', 'num', row.first_solved === null ? '–' : String(row.first_solved)), el('td', 'num', String(row.last_seen)));
      tr.append(el('td', 'class', s[row.class]), el('td', 'num', fmt(row.gain)), el('td', 'num', fmt(row.length_change)));
      tr.addEventListener('click', () => {
        this.selected = row.task;
        for (const x of table.querySelectorAll('tr.selected')) x.classList.remove('selected');
        tr.classList.add('selected');
        this.rollouts.showTask(t, row.task);
      });
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  private findings(t: TasksViewTable, s: TasksStrings): HTMLElement {
    const box = el('div', 'findings');
    box.append(el('h3', undefined, s.evidenceTitle));
    const r = t.report;
    if (!r.findings.length) box.append(el('p', 'no-evidence', s.noEvidence));
    for (const f of r.findings) {
      const item = el('div', `finding finding-${f.kind}`);
      item.dataset.kind = f.kind;
      item.append(el('div', 'kind', s[f.kind]), el('div', 'detail', f.detail));
      const open = el('button', 'finding-rollouts', `${s.exampleRows} (${f.examples.length})`);
      open.addEventListener('click', () =>
        this.rollouts.showRows(
          `${s[f.kind]} · ${s.evidenceTitle}`,
          f.examples.map((id) => ({ ref: { run: t.run, endpoint: t.endpoint, source: t.source, table: t.table, id }, label: `#${id}` })),
        ),
      );
      item.append(open);
      box.append(item);
    }
    for (const n of r.not_checked) box.append(el('p', 'not-checked', s.notChecked.replace('{0}', s[n.kind]).replace('{1}', n.why)));
    return box;
  }
}
