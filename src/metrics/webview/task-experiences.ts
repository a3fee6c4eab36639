// A task through training, in the Tasks view: its rollouts at two chosen model versions side by
// side (the best, the worst or the longest member of each), each with its reward, length,
// transcript and fields (the drill-down's transcript), its tokens and "Debug This Rollout"; or
// the rollouts behind a finding, side by side the same way.
import type { ExperienceRef, ExperienceViewDetail } from '../protocol/experience-rows';
import type { TasksStrings, TasksViewTable } from '../protocol/tasks-protocol';
import type { TokensMessage } from '../protocol/view-protocol';
import { fromWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';
import { TokenView } from '../../webview-ui/token-view/token-view';
import { transcript } from './drilldown';

/** What the rollouts pane needs from the page: reads through the extension (each returns its request number), and the debug hook. */
export interface ExperiencesPort {
  openRollout(ref: ExperienceRef): number;
  openTokens(ref: ExperienceRef): number;
  debug(ref: ExperienceRef): void;
}

/** Which member of a task's version to show. */
type Pick = 0 | 1 | 2; // best, worst, longest

export interface Column {
  ref: ExperienceRef;
  label: string;
}

const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

export class TaskExperiences {
  readonly el: HTMLElement = el('section', 'task-rollouts');
  private readonly controls = el('div', 'rollout-controls');
  private readonly columns = el('div', 'rollout-columns');
  private readonly tokensBox = el('div', 'rollout-tokens');
  private readonly waiting = new Map<number, HTMLElement>();
  private tokensRequest = 0;
  private tokenView: TokenView | undefined;

  constructor(
    private readonly s: () => TasksStrings,
    private readonly tokenStrings: TokenViewStrings,
    private readonly port: ExperiencesPort,
  ) {
    this.el.hidden = true;
    this.el.append(this.controls, this.columns, this.tokensBox);
  }

  /** A task's rollouts at two versions (first and last seen to start with). */
  showTask(t: TasksViewTable, task: string): void {
    const s = this.s();
    const row = t.report.tasks.find((x) => x.task === task);
    const versions = Object.keys(t.examples[task] ?? {})
      .map(Number)
      .sort((a, b) => a - b);
    if (!row || !versions.length) return;
    const select = (value: number) => {
      const sel = el('select');
      for (const v of versions) sel.append(Object.assign(el('option', undefined, String(v)), { value: String(v) }));
      sel.value = String(value);
      return sel;
    };
    const a = select(versions[0]);
    const b = select(versions[versions.length - 1]);
    const member = el('select');
    ([s.best, s.worst, s.longest] as const).forEach((label, i) => member.append(Object.assign(el('option', undefined, label), { value: String(i) })));
    const title = el('h3', undefined, s.taskTitle.replace('{0}', task));
    const refresh = () => {
      const pick = Number(member.value) as Pick;
      const col = (v: number): Column => {
        const id = t.examples[task][v][pick];
        const r = row.rewards[v];
        const len = t.lengths[task]?.[v];
        return {
          ref: { run: t.run, endpoint: t.endpoint, source: t.source, table: t.table, id },
          label: `${s.versionA} ${v} · #${id} · ${s.reward} ${fmt(r)}${len === undefined ? '' : ` · ${s.length} ${fmt(len)}`}`,
        };
      };
      this.showColumns([col(Number(a.value)), col(Number(b.value))]);
    };
    for (const c of [a, b, member]) c.addEventListener('change', refresh);
    const pickers = el('div', 'pickers');
    pickers.append(`${s.versionA} `, a, ` ${s.versionB} `, b, ' ', member);
    this.controls.replaceChildren(title, pickers);
    this.el.hidden = false;
    refresh();
  }

  /** Rollouts side by side under a title (a finding's examples). */
  showRows(title: string, cols: Column[]): void {
    this.controls.replaceChildren(el('h3', undefined, title));
    this.el.hidden = false;
    this.showColumns(cols);
  }

  private showColumns(cols: Column[]): void {
    this.waiting.clear();
    this.tokensBox.replaceChildren();
    this.columns.replaceChildren(
      ...cols.map((c) => {
        const box = el('div', 'rollout-column');
        const head = el('header');
        head.append(el('span', 'label', c.label));
        const tokens = el('button', 'open-tokens', this.s().tokens);
        tokens.addEventListener('click', () => {
          this.tokensBox.replaceChildren(el('p', 'loading', this.s().loading));
          this.tokensRequest = this.port.openTokens(c.ref);
        });
        const debug = el('button', 'debug-rollout', this.s().debugRollout);
        debug.addEventListener('click', () => this.port.debug(c.ref));
        head.append(tokens, debug);
        const body = el('div', 'rollout-body');
        body.append(el('p', 'loading', this.s().loading));
        box.append(head, body);
        this.waiting.set(this.port.openRollout(c.ref), body);
        return box;
      }),
    );
    this.el.scrollIntoView({ block: 'nearest' });
  }

  /** Whether a reply's request is one of this pane's. */
  owns(request: number): boolean {
    return this.waiting.has(request) || request === this.tokensRequest;
  }

  detail(request: number, d: ExperienceViewDetail | undefined, error: string | undefined): void {
    const body = this.waiting.get(request);
    if (!body) return;
    this.waiting.delete(request);
    body.replaceChildren(...(d ? transcript(d) : [el('p', 'error', error ?? '')]));
  }

  tokens(m: TokensMessage): void {
    if (m.request !== this.tokensRequest) return;
    if (!m.experience) {
      this.tokensBox.replaceChildren(el('p', 'error', m.error ?? ''));
      return;
    }
    this.tokenView ??= new TokenView({ strings: this.tokenStrings });
    this.tokensBox.replaceChildren(el('h3', undefined, `${this.s().tokens} · ${m.ref.table} #${m.ref.id}`), this.tokenView.element);
    this.tokenView.show(fromWire(m.experience), m.notes);
    this.tokensBox.scrollIntoView({ block: 'nearest' });
  }
}

export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2);
}
