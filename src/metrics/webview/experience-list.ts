// The list of drilled rollouts, virtual: only the rows in the scroll viewport (plus a margin)
// are in the DOM, spacer rows stand for the others (planWindow), so a million rows scroll
// like forty. Columns: task, run, reward, one per reward part, advantage and consumed when the
// buffer has them, model version, id.
import type { UiStrings } from '../protocol/ui-strings';
import type { ExperienceTable } from '../experiences/table';
import { planWindow } from '../experiences/virtual-window';
import { fmtNum } from './format';

/** Fixed row height (px), also set in metrics.css (table.rollouts tr). */
const ROW_HEIGHT = 22;
const OVERSCAN = 40;

type Cell = (i: number) => string;

export class ExperienceList {
  readonly el: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly body: HTMLTableSectionElement;
  private t: ExperienceTable | undefined;
  private view: Uint32Array = new Uint32Array(0);
  private cells: Cell[] = [];
  private opened = -1;
  private frame = 0;

  constructor(
    private readonly s: UiStrings,
    private readonly onOpen: (i: number) => void,
  ) {
    this.el = document.createElement('div');
    this.el.className = 'rollout-list';
    this.table = document.createElement('table');
    this.table.className = 'rollouts';
    this.body = this.table.createTBody();
    this.el.append(this.table);
    this.el.addEventListener('scroll', () => {
      if (!this.frame) {
        this.frame = requestAnimationFrame(() => {
          this.frame = 0;
          this.render();
        });
      }
    });
  }

  /** Shows `view` (row indices of `t`); keeps the scroll position unless `top`. */
  set(t: ExperienceTable, view: Uint32Array, top: boolean): void {
    const columnsChanged = t.cols.parts.map((p) => p.name).join('\u0000') !== this.t?.cols.parts.map((p) => p.name).join('\u0000');
    this.t = t;
    this.view = view;
    if (columnsChanged || !this.cells.length) this.header(t);
    if (top) this.el.scrollTop = 0;
    this.render();
  }

  /** Marks row i as the open one. */
  open(i: number): void {
    this.opened = i;
    for (const tr of this.body.querySelectorAll<HTMLElement>('tr.rollout')) tr.classList.toggle('open', Number(tr.dataset.index) === i);
  }

  private header(t: ExperienceTable): void {
    const c = t.cols;
    const num =
      (col: readonly (number | null)[]): Cell =>
      (i) =>
        fmtNum(col[i]);
    const cols: [string, Cell][] = [
      [this.s.task, (i) => (c.task[i] < 0 ? '–' : (c.tasks[c.task[i]] ?? '–'))],
      ['#', (i) => String(c.runId[i] ?? '–')],
      [this.s.reward, num(c.reward)],
      ...c.parts.map((p): [string, Cell] => [p.name, num(p.values)]),
    ];
    if (c.advantage.some((v) => v !== null)) cols.push([this.s.advantage, num(c.advantage)]);
    if (c.consumed.some((v) => v !== null)) cols.push([this.s.consumed, (i) => String(c.consumed[i] ?? '–')]);
    cols.push([this.s.modelVersion, (i) => String(c.modelVersion[i] ?? '–')], ['id', (i) => String(c.id[i])]);
    this.cells = cols.map(([, f]) => f);
    this.table.tHead?.remove();
    const head = this.table.createTHead().insertRow();
    for (const [name] of cols) {
      const th = document.createElement('th');
      th.textContent = name;
      head.append(th);
    }
  }

  private spacer(height: number): HTMLTableRowElement {
    const tr = document.createElement('tr');
    tr.className = 'spacer';
    tr.style.height = `${height}px`;
    const td = tr.insertCell();
    td.colSpan = this.cells.length;
    return tr;
  }

  /** Puts the rows in view into the DOM (and only those). */
  render(): void {
    // Before the first layout the list is as tall as its header: assume a screenful.
    const p = planWindow(this.view.length, this.el.scrollTop, Math.max(this.el.clientHeight, 400), ROW_HEIGHT, OVERSCAN);
    const rows: HTMLTableRowElement[] = [];
    if (p.before) rows.push(this.spacer(p.before));
    for (let k = p.start; k < p.end; k++) {
      const i = this.view[k];
      const tr = document.createElement('tr');
      tr.className = 'rollout' + (i === this.opened ? ' open' : '');
      tr.tabIndex = 0;
      tr.dataset.index = String(i);
      tr.dataset.id = String(this.t!.cols.id[i]);
      for (const cell of this.cells) tr.insertCell().textContent = cell(i);
      const open = () => this.onOpen(i);
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', (e) => e.key === 'Enter' && open());
      rows.push(tr);
    }
    if (p.after) rows.push(this.spacer(p.after));
    this.body.replaceChildren(...rows);
  }
}
