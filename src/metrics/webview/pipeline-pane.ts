// The Pipeline view in the webview: the verdict at the top with the numbers it rests on (a
// click shows their charts), when it changed, the config keys to change (a link opens the run's
// config at the key; "Apply" where the config engine accepts the value), each role's idle share
// over the chosen window, throughput and GPUs, the stacked bars per role, what is missing, and
// Ray's timeline. Everything is worded by the extension (pipeline-feed.ts); this only lays it out.
import type { PipelineStrings, PipelineViewData, TimelineMessage } from '../protocol/pipeline-protocol';
import { RoleBarsChart, PART_COLORS } from './pipeline-bars';
import { TimelineLanes } from './timeline-lanes';

/** What the pane tells its owner. */
export type PipelineEvent =
  | { type: 'window'; run: string | undefined; from: number | null; to: number | null }
  | { type: 'openKey'; run: string; key: string; value?: string }
  | { type: 'showCharts'; tags: string[] }
  | { type: 'timeline'; run: string; from: number | null; to: number | null };

const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : `${Math.round(v * 100)} %`);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export class PipelinePane {
  readonly el: HTMLElement;
  private readonly head = el('div', 'pipeline-head');
  private readonly body = el('div', 'pipeline-body');
  private readonly runSelect = el('select');
  private readonly fromInput = el('input');
  private readonly toInput = el('input');
  private readonly trainerBars: RoleBarsChart;
  private readonly explorerBars: RoleBarsChart;
  private readonly timelineBox = el('div', 'pipeline-timeline');
  private readonly timelineNote = el('div', 'pipeline-note');
  private readonly lanes: TimelineLanes;
  private data: PipelineViewData | null = null;
  private timelineAsked = false;

  constructor(
    private readonly s: PipelineStrings,
    private readonly tell: (e: PipelineEvent) => void,
  ) {
    this.el = el('div', 'pipeline');
    const controls = el('div', 'pipeline-controls');
    const runLabel = el('label', undefined, `${s.run} `);
    runLabel.append(this.runSelect);
    this.runSelect.addEventListener('change', () => this.windowChanged());
    for (const [input, word] of [
      [this.fromInput, s.windowFrom],
      [this.toInput, s.windowTo],
    ] as const) {
      input.type = 'number';
      input.min = '0';
      input.placeholder = s.windowAll;
      input.className = 'pipeline-step';
      input.setAttribute('aria-label', word);
      input.addEventListener('change', () => this.windowChanged());
    }
    const fromLabel = el('label', undefined, `${s.windowFrom} `);
    fromLabel.append(this.fromInput);
    const toLabel = el('label', undefined, ` ${s.windowTo} `);
    toLabel.append(this.toInput);
    controls.append(runLabel, fromLabel, toLabel);
    this.trainerBars = new RoleBarsChart(
      s.trainer,
      (p) => s.parts[p] ?? p,
      () => s.stepsAxis,
    );
    this.explorerBars = new RoleBarsChart(
      s.explorer,
      (p) => s.parts[p] ?? p,
      () => s.stepsAxis,
    );
    this.lanes = new TimelineLanes((from, to) => this.data && this.tell({ type: 'timeline', run: this.data.run, from, to }));
    const tlHead = el('h3', undefined, s.timeline);
    const tlButton = el('button', 'pipeline-timeline-load', s.timelineLoad);
    tlButton.addEventListener('click', () => {
      if (!this.data) return;
      this.tell({ type: 'timeline', run: this.data.run, from: null, to: null });
    });
    this.timelineBox.append(tlHead, tlButton, this.timelineNote, this.lanes.el);
    this.el.append(this.head, controls, this.body, this.timelineBox);
    this.render();
  }

  private windowChanged(): void {
    const num = (i: HTMLInputElement) => (i.value === '' ? null : Math.max(0, Math.floor(Number(i.value))));
    this.tell({ type: 'window', run: this.runSelect.value || undefined, from: num(this.fromInput), to: num(this.toInput) });
  }

  show(d: PipelineViewData | null): void {
    this.data = d;
    this.render();
  }

  /** Redraws the canvases (the pane became visible or resized). */
  redraw(): void {
    this.trainerBars.draw();
    this.explorerBars.draw();
    this.lanes.draw();
  }

  timeline(m: TimelineMessage): void {
    this.timelineNote.classList.toggle('error', m.error !== undefined);
    if (m.error !== undefined) this.timelineNote.textContent = this.s.timelineRemote.replace('{0}', m.error);
    else if (!m.slice) this.timelineNote.textContent = this.s.timelineNone;
    else {
      const p = m.slice.problems;
      this.timelineNote.textContent = [this.s.timelineHint, ...p].join('\n');
      this.timelineNote.classList.toggle('error', p.length > 0);
      this.lanes.set(m.slice);
    }
  }

  /** Events of the timeline drawn (the probe reads it). */
  get timelineEvents(): number {
    return this.lanes.drawnEvents;
  }

  private render(): void {
    const s = this.s;
    const d = this.data;
    this.head.replaceChildren();
    this.body.replaceChildren();
    if (!d) {
      this.head.append(el('div', 'pipeline-verdict', s.noTimings));
      this.timelineBox.hidden = true;
      return;
    }
    this.timelineBox.hidden = false;
    // Ray's timeline of the run, asked once (whether there is one, and how to turn it on if not).
    if (!this.timelineAsked) {
      this.timelineAsked = true;
      this.tell({ type: 'timeline', run: d.run, from: null, to: null });
    }
    // the run picker
    const runs = d.runs.join('\n');
    if (this.runSelect.dataset.runs !== runs) {
      this.runSelect.dataset.runs = runs;
      this.runSelect.replaceChildren(...d.runs.map((r) => Object.assign(el('option', undefined, r), { value: r })));
    }
    this.runSelect.value = d.run;
    // verdict, evidence, changes
    const verdict = el('div', `pipeline-verdict kind-${d.bottleneck}`, d.verdict);
    this.head.append(verdict);
    if (d.evidence.length) {
      const ev = el('div', 'pipeline-evidence');
      ev.append(el('span', 'pipeline-label', `${s.evidence}: `));
      for (const e of d.evidence) {
        const b = el('button', 'pipeline-evidence-item', `${e.label} ${e.value}`);
        b.title = e.tags.join(', ');
        b.disabled = e.tags.length === 0;
        b.addEventListener('click', () => this.tell({ type: 'showCharts', tags: e.tags }));
        ev.append(b);
      }
      this.head.append(ev);
    }
    if (d.changes.length) this.head.append(list(s.changes, d.changes, 'pipeline-changes'));
    if (d.advice.length || d.configNote) {
      const adv = el('div', 'pipeline-advice');
      adv.append(el('span', 'pipeline-label', `${s.advice}: `));
      for (const a of d.advice) {
        const item = el('span', 'pipeline-advice-item');
        const link = el('a', 'pipeline-key', `${a.key}: ${a.now}${a.defaulted ? ` ${s.defaulted}` : ''} → ${a.suggest}`);
        link.href = '#';
        link.title = s.openAt.replace('{0}', a.key);
        link.dataset.key = a.key;
        link.addEventListener('click', (e) => {
          e.preventDefault();
          this.tell({ type: 'openKey', run: d.run, key: a.key });
        });
        item.append(link);
        if (a.fits !== undefined) item.append(el('span', a.fits ? 'pipeline-fits' : 'pipeline-nofit', ` (${a.fits ? s.fits : s.doesNotFit})`));
        if (a.fix) {
          const fix = el('button', 'pipeline-fix', s.applyFix.replace('{0}', `${a.key} = ${a.suggest}`));
          fix.addEventListener('click', () => this.tell({ type: 'openKey', run: d.run, key: a.key, value: a.suggest }));
          item.append(' ', fix);
        }
        adv.append(item);
      }
      if (d.configNote) adv.append(el('div', 'pipeline-note', d.configNote));
      this.head.append(adv);
    }
    if (d.missing.length) this.head.append(list(s.missing, d.missing, 'pipeline-missing'));
    if (d.notes.length) this.head.append(list(s.notes, d.notes, 'pipeline-notes'));
    // shares, idle, throughput, GPUs
    const stats = el('div', 'pipeline-stats');
    for (const role of ['trainer', 'explorer'] as const) {
      const box = el('div', 'pipeline-role');
      box.append(el('div', 'pipeline-role-name', `${s[role]} · ${s.idle} ${pct(d.idle[role])}`));
      for (const [part, v] of Object.entries(d.shares[role])) {
        const row = el('div', 'pipeline-share');
        const sw = el('span', 'pipeline-swatch');
        sw.style.background = PART_COLORS[part] ?? '#888';
        row.append(sw, ` ${s.parts[part] ?? part} ${pct(v)}`);
        const h = d.gpu?.hours[role][part];
        if (h !== undefined) row.append(el('span', 'pipeline-gpuh', ` · ${h.toFixed(2)} ${s.gpuHours}`));
        box.append(row);
      }
      if (d.gpu) box.append(el('div', 'pipeline-gpus', `${s.gpus}: ${d.gpu[role] ?? '–'}`));
      stats.append(box);
    }
    const tput = el('div', 'pipeline-role');
    const t = d.throughput;
    tput.append(
      el('div', 'pipeline-share', `${t.stepsPerHour === null ? '–' : t.stepsPerHour.toFixed(1)} ${s.stepsPerHour}`),
      el('div', 'pipeline-share', `${t.tokensPerSecond === null ? '–' : t.tokensPerSecond.toFixed(0)} ${s.tokensPerSecond}`),
    );
    stats.append(tput);
    this.body.append(stats, this.trainerBars.el, this.explorerBars.el);
    this.trainerBars.set(d.bars.steps, d.bars.trainer);
    this.explorerBars.set(d.bars.steps, d.bars.explorer);
  }
}

function list(title: string, items: string[], cls: string): HTMLElement {
  const box = el('div', cls);
  box.append(el('span', 'pipeline-label', `${title}:`));
  const ul = el('ul');
  for (const i of items) ul.append(el('li', undefined, i));
  box.append(ul);
  return box;
}
