// The drill-down pane: the rollouts behind a clicked step — histograms of the reward and of
// its parts whose bins filter the list, a task filter, the (virtual) list of rollouts, the open
// rollout's GRPO group side by side, and its messages. The extension sends the drill again while
// its rows change (rewards arriving): the open pane then refreshes in place, keeping the
// filters, the scroll position and the open rollout.
import type { ExperienceViewDetail, ExperienceRef, ExperienceViewRow, FieldNode } from '../protocol/experience-rows';
import type { UiStrings } from '../protocol/ui-strings';
import type { DrillExperiencesMessage, RescoredMessage, TokensMessage } from '../protocol/view-protocol';
import { fromWire } from '../../tokens/experience-wire';
import type { TokenViewStrings } from '../../tokens/view-strings';
import { TokenView } from '../../webview-ui/token-view/token-view';
import { rowAt } from '../experiences/columns';
import { ExperienceFilter, ExperienceTable } from '../experiences/table';
import { fmtBucket } from './format';
import { groupView } from './group-view';
import { partsHistogram, rewardHistogram } from './histograms';
import { ExperienceList } from './experience-list';
import { rescoreView } from './rescore-view';

/** What the user asks of the drill-down beyond reading it: replay an experience, re-score steps (`ask`: edit the range first). */
export type DrillAction = { type: 'debug'; ref: ExperienceRef } | { type: 'rescore'; endpoint: string; steps: [number, number]; ask: boolean };

export class DrillPane {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly titleEl: HTMLElement;
  private readonly charts: HTMLElement;
  private readonly info: HTMLElement;
  private readonly healthEl: HTMLElement;
  private readonly filterInput: HTMLInputElement;
  private readonly list: ExperienceList;
  private readonly groupBox: HTMLElement;
  private readonly detailBox: HTMLElement;
  private readonly tokensBox: HTMLElement;
  private readonly rescoreBar: HTMLElement;
  private readonly rescoreBox: HTMLElement;
  private tokenView: TokenView | undefined;
  private msg: DrillExperiencesMessage | undefined;
  private table: ExperienceTable | undefined;
  private filter: ExperienceFilter = {};
  /** The open rollout, by identity (its index moves when the drill refreshes). */
  private opened: { endpoint: string; source: string; id: number } | undefined;

  constructor(
    private readonly strings: UiStrings,
    /** The user opened a rollout of the list (its messages are asked for). */
    private readonly open: (row: ExperienceViewRow) => void,
    private readonly tokenStrings: TokenViewStrings,
    /** The user asked for a rollout's tokens. */
    private readonly openTokens: (ref: ExperienceRef) => void,
    private readonly act: (a: DrillAction) => void,
  ) {
    const s = strings;
    this.el = document.createElement('aside');
    this.el.className = 'drill';
    this.el.hidden = true;
    const head = document.createElement('header');
    this.titleEl = document.createElement('span');
    this.titleEl.className = 'title';
    const close = document.createElement('button');
    close.textContent = '✕';
    close.title = s.close;
    close.setAttribute('aria-label', s.close);
    close.addEventListener('click', () => (this.el.hidden = true));
    head.append(this.titleEl, close);
    this.body = document.createElement('div');
    this.body.className = 'body';
    this.charts = document.createElement('div');
    this.info = document.createElement('div');
    this.info.className = 'shown';
    this.healthEl = document.createElement('div');
    this.healthEl.className = 'health';
    this.filterInput = document.createElement('input');
    this.filterInput.className = 'task-filter';
    this.filterInput.placeholder = s.filterTasks;
    this.filterInput.setAttribute('aria-label', s.filterTasks);
    this.filterInput.addEventListener('input', () => this.setFilter({ ...this.filter, text: this.filterInput.value }));
    this.list = new ExperienceList(s, (i) => this.openRow(i));
    this.groupBox = document.createElement('div');
    this.detailBox = document.createElement('div');
    this.detailBox.className = 'detail';
    this.tokensBox = document.createElement('div');
    this.tokensBox.className = 'tokens';
    this.rescoreBar = document.createElement('div');
    this.rescoreBar.className = 'rescore-bar';
    for (const [label, ask] of [
      [s.rescoreStep, false],
      [s.rescoreRange, true],
    ] as const) {
      const b = document.createElement('button');
      b.className = ask ? 'rescore-range' : 'rescore-step';
      b.textContent = label;
      b.addEventListener('click', () => this.rescore(ask));
      this.rescoreBar.append(b);
    }
    this.rescoreBox = document.createElement('div');
    this.rescoreBox.className = 'rescore';
    this.el.append(head, this.body);
  }

  loading(run: string): void {
    this.el.hidden = false;
    this.titleEl.textContent = `${this.strings.experiencesTitle} · ${run}`;
    this.body.textContent = this.strings.rolloutsLoading;
  }

  show(m: DrillExperiencesMessage): void {
    const refresh = this.msg?.request === m.request && this.table !== undefined;
    if (refresh && this.el.hidden) return; // closed by the user: a live refresh does not reopen it
    this.msg = m;
    this.table = new ExperienceTable(m.rows);
    const s = this.strings;
    const where = fmtBucket(m.xAxis, m.x[0], m.x[1] - m.x[0], s.step);
    this.titleEl.textContent = `${s.experiencesTitle} · ${m.run} · ${where} · ${s.modelVersion} ${m.modelVersions.join(', ') || '–'}`;
    if (!refresh) {
      this.filter = {};
      this.opened = undefined;
      this.filterInput.value = '';
      this.detailBox.replaceChildren();
      this.tokensBox.replaceChildren();
      this.rescoreBox.replaceChildren();
    }
    this.el.hidden = false;
    if (!this.table.size) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = s.rolloutsNone;
      this.body.replaceChildren(p);
      return;
    }
    if (!this.body.contains(this.list.el))
      this.body.replaceChildren(
        this.charts,
        this.rescoreBar,
        this.rescoreBox,
        this.filterInput,
        this.healthEl,
        this.info,
        this.list.el,
        this.groupBox,
        this.detailBox,
        this.tokensBox,
      );
    this.healthEl.textContent = m.health?.line ?? '';
    this.healthEl.hidden = !m.health;
    this.update(!refresh);
    this.renderGroup();
  }

  /** The drill's steps as the buffer numbers them (its model versions; else its x range). */
  private steps(): [number, number] {
    const m = this.msg!;
    const v = m.modelVersions;
    if (v.length) return [Math.min(...v), Math.max(...v)];
    return [Math.floor(m.x[0]), Math.max(Math.floor(m.x[0]), Math.ceil(m.x[1]) - 1)];
  }

  private rescore(ask: boolean): void {
    const o = this.table?.cols.origins[0];
    if (!o) return;
    this.rescoreBox.replaceChildren(Object.assign(document.createElement('p'), { className: 'loading', textContent: this.strings.rescoreRunning }));
    this.act({ type: 'rescore', endpoint: o.endpoint, steps: this.steps(), ask });
  }

  /** The re-score's answer (or why not). */
  rescored(m: RescoredMessage): void {
    if (m.result) this.rescoreBox.replaceChildren(rescoreView(m.result, this.strings));
    else
      this.rescoreBox.replaceChildren(
        Object.assign(document.createElement('p'), { className: m.error ? 'error' : 'empty', textContent: m.error ?? this.strings.rescoreCancelled }),
      );
  }

  /** The "Debug This Rollout" button of an experience. */
  private debugButton(ref: ExperienceRef): HTMLButtonElement {
    const b = document.createElement('button');
    b.className = 'debug-rollout';
    b.textContent = this.strings.debugRollout;
    b.title = this.strings.debugRolloutHint;
    b.addEventListener('click', () => this.act({ type: 'debug', ref }));
    return b;
  }

  private setFilter(f: ExperienceFilter): void {
    this.filter = f;
    this.update(true);
  }

  /** Re-filters the list and redraws the histograms and the count. */
  private update(top: boolean): void {
    const t = this.table!;
    const s = this.strings;
    const view = t.filter(this.filter);
    const charts: HTMLElement[] = [];
    const rh = t.rewardHistogram();
    if (rh)
      charts.push(
        ...rewardHistogram(rh, this.filter.rewardBin, s, (bin) =>
          this.setFilter({ ...this.filter, rewardBin: this.filter.rewardBin === bin ? undefined : bin }),
        ),
      );
    const ph = t.partsHistogram();
    if (ph) {
      const sel = this.filter.part;
      charts.push(
        ...partsHistogram(ph, sel, s, (name, bin) =>
          this.setFilter({ ...this.filter, part: sel?.name === name && sel.bin === bin ? undefined : { name, bin } }),
        ),
      );
    }
    this.charts.replaceChildren(...charts);
    this.info.textContent = s.shownOf.replace('{0}', String(view.length)).replace('{1}', String(t.size));
    if (this.filter.rewardBin !== undefined || this.filter.part) {
      const all = document.createElement('button');
      all.className = 'link';
      all.textContent = s.allBins;
      all.addEventListener('click', () => this.setFilter({ text: this.filter.text }));
      this.info.append(' ', all);
    }
    this.list.set(t, view, top);
  }

  private openRow(i: number): void {
    const t = this.table!;
    const o = t.cols.origins[t.cols.origin[i]];
    this.opened = { endpoint: o.endpoint, source: o.source, id: t.cols.id[i] };
    this.renderGroup();
    this.open(rowAt(t.cols, this.msg!.run, i));
  }

  /** The open rollout's group (and its mark in the list), from the current rows. */
  private renderGroup(): void {
    const t = this.table;
    const i = t && this.opened ? t.indexOf(this.opened, this.opened.id) : -1;
    this.list.open(i);
    if (i < 0) {
      this.groupBox.replaceChildren();
      return;
    }
    const g = t!.group(i);
    const flags = this.msg?.health?.groups.find((h) => h.task === g.task && h.modelVersion === g.modelVersion)?.flags;
    this.groupBox.replaceChildren(groupView(t!, g, i, this.strings, (j) => this.openRow(j), flags));
  }

  /** One rollout's messages (or the error reading them). */
  detail(d: ExperienceViewDetail | undefined, error: string | undefined): void {
    const s = this.strings;
    const out: HTMLElement[] = [];
    const h = document.createElement('h3');
    h.textContent = d ? `${s.messages} · ${d.ref.table} #${d.ref.id}` : s.messages;
    if (d) {
      const ref = d.ref;
      const tokens = document.createElement('button');
      tokens.className = 'open-tokens';
      tokens.textContent = s.tokens;
      tokens.addEventListener('click', () => {
        this.tokensBox.replaceChildren(
          this.tokensHeading(ref),
          Object.assign(document.createElement('p'), { className: 'loading', textContent: s.rolloutsLoading }),
        );
        this.openTokens(ref);
      });
      h.append(' ', tokens, ' ', this.debugButton(ref));
    }
    out.push(h);
    if (error || !d) {
      const p = document.createElement('p');
      p.className = 'error';
      p.textContent = error ?? '';
      out.push(p);
    } else {
      out.push(...transcript(d));
    }
    this.detailBox.replaceChildren(...out);
    this.tokensBox.replaceChildren();
  }

  private tokensHeading(ref: ExperienceRef): HTMLElement {
    const h = document.createElement('h3');
    h.textContent = this.strings.tokensTitle.replace('{0}', `${ref.table} #${ref.id}`);
    h.append(' ', this.debugButton(ref));
    return h;
  }

  /** One rollout's tokens in the token view (or why not). */
  tokens(m: TokensMessage): void {
    const out: HTMLElement[] = [this.tokensHeading(m.ref)];
    if (!m.experience) {
      const p = document.createElement('p');
      p.className = 'error';
      p.textContent = m.error ?? '';
      out.push(p);
      this.tokensBox.replaceChildren(...out);
      return;
    }
    this.tokenView ??= new TokenView({ strings: this.tokenStrings });
    out.push(this.tokenView.element);
    const e = fromWire(m.experience);
    if (!e.texts && e.responseText !== undefined) {
      // No tokenizer: the ids above, and the experience's own response text.
      const pre = document.createElement('pre');
      pre.className = 'response-text';
      pre.textContent = e.responseText;
      out.push(pre);
    }
    this.tokensBox.replaceChildren(...out);
    this.tokenView.show(e, m.notes, m.marks);
    this.tokensBox.scrollIntoView({ block: 'nearest' });
  }
}

/** One rollout's messages, then its other fields (the drill-down's and the Tasks view's transcript). */
export function transcript(d: ExperienceViewDetail): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const m of d.messages) {
    const div = document.createElement('div');
    div.className = `message role-${m.role.replace(/[^a-z_-]/gi, '')}`;
    const role = document.createElement('div');
    role.className = 'role';
    role.textContent = m.role;
    const content = document.createElement('pre');
    content.textContent = m.content;
    div.append(role, content);
    if (m.extra) {
      const extra = document.createElement('pre');
      extra.className = 'extra';
      extra.textContent = m.extra;
      div.append(extra);
    }
    out.push(div);
  }
  out.push(fieldList(d.fields, 0));
  return out;
}

/** Groups with more entries than this start folded (a tool schema); smaller ones open (an eid). */
const OPEN_UP_TO = 8;

/** Labelled values; an object or a list as a foldable group of its own fields. */
function fieldList(nodes: readonly FieldNode[], depth: number): HTMLElement {
  const dl = document.createElement('dl');
  dl.className = 'fields';
  for (const n of nodes) {
    const dt = document.createElement('dt');
    dt.textContent = n.key;
    const dd = document.createElement('dd');
    if (n.children) {
      const group = document.createElement('details');
      group.open = depth < 2 && n.children.length <= OPEN_UP_TO;
      const summary = document.createElement('summary');
      summary.textContent = n.children.map((c) => c.key).join(', ');
      group.append(summary, fieldList(n.children, depth + 1));
      dd.append(group);
    } else dd.textContent = n.value ?? '';
    dl.append(dt, dd);
  }
  return dl;
}
