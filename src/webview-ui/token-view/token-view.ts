// The token view: one experience (or one LLM call) as tokens, for any webview that shows one
// (the metrics drill-down, the debugger, the playground). A toolbar (search, lowest logprob,
// colour mode, copy as JSON), a summary line, and the tokens in a scroll area that draws only the
// lines on screen: the layout of every token is a typed array (layout.ts), the DOM holds a few
// dozen lines, so 32 k tokens scroll as smoothly as 300. Hover a token for its numbers. No
// inline styles or scripts (the webviews' CSP): colours are classes of token-view.css, positions
// are set through the CSSOM. Words come from the host (TokenViewStrings), localized there.
import { summarize, type TokenExperience, type TokenSummary, FLAG_PARTIAL, FLAG_SPECIAL } from '../../tokens/experience';
import { toTokensJson } from '../../tokens/token-json';
import { fillString, type TokenViewStrings } from '../../tokens/view-strings';
import { columns, endsLine, visibleToken } from '../../tokens/visible';
import { type ColourMode, colourClass, maxAbs } from './colour';
import { layoutTokens, type TokenLayout } from './layout';
import { findMatches, type Match } from './search';
import { MarkIndex, type TokenMarks } from './marks';
import { tooltipLines } from './tooltip';
import './token-view.css';

export interface TokenViewOptions {
  strings: TokenViewStrings;
  /** Receives "Copy as JSON"'s text (a webview posts it to the host's clipboard); default: the page's clipboard. */
  onCopy?: (json: string) => void;
  /** Lines drawn above and below the visible ones. */
  overscan?: number;
  colourMode?: ColourMode;
}

const h = <K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag);
  el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
};

/** Columns kept free right of the tokens for the turns' labels (token-view.css draws them there). */
const TURN_LABEL_COLUMNS = 20;

const fmt = (x: number, digits = 3): string => (Number.isFinite(x) ? String(Number(x.toFixed(digits))) : '–');

export class TokenView {
  readonly element: HTMLElement;
  private readonly s: TokenViewStrings;
  private readonly overscan: number;
  private readonly searchBox: HTMLInputElement;
  private readonly count: HTMLElement;
  private readonly modeSelect: HTMLSelectElement;
  private readonly summaryLine: HTMLElement;
  private readonly notesLine: HTMLElement;
  private readonly scroller: HTMLElement;
  private readonly sizer: HTMLElement;
  private readonly win: HTMLElement;
  private readonly tip: HTMLElement;
  private readonly resize: ResizeObserver;
  private e: TokenExperience | undefined;
  private summary: TokenSummary | undefined;
  private display: string[] = [];
  private widths = new Uint16Array(0);
  private breaks = new Uint8Array(0);
  private marks = new MarkIndex(0);
  private layout: TokenLayout | undefined;
  private cols = 0;
  private lineHeight = 18;
  private charWidth = 7.2;
  private mode: ColourMode;
  private maxAdv = 0;
  private matches: Match[] = [];
  private matchOf = new Map<number, number>();
  private current = -1;
  private focus = -1;
  private drawn: [number, number] = [-1, -1];
  private frame = 0;

  constructor(private readonly opts: TokenViewOptions) {
    this.s = opts.strings;
    this.overscan = opts.overscan ?? 20;
    this.mode = opts.colourMode ?? 'logprob';
    this.element = h('div', 'tv');
    const bar = h('div', 'tv-toolbar');
    this.searchBox = h('input', 'tv-search');
    this.searchBox.type = 'search';
    this.searchBox.placeholder = this.s.searchPlaceholder;
    this.searchBox.setAttribute('aria-label', this.s.searchPlaceholder);
    this.count = h('span', 'tv-count');
    const prev = this.button('‹', this.s.previousMatch, () => this.step(-1));
    const next = this.button('›', this.s.nextMatch, () => this.step(1));
    const lowest = this.button(this.s.lowest, this.s.lowest, () => this.jumpToLowest());
    lowest.classList.add('tv-lowest');
    const modeLabel = h('label', 'tv-mode', this.s.colourBy);
    this.modeSelect = h('select', 'tv-mode-select');
    for (const [value, label] of [
      ['logprob', this.s.byLogprob],
      ['mask', this.s.byMask],
      ['advantage', this.s.byAdvantage],
    ] as const) {
      const o = h('option', '', label);
      o.value = value;
      this.modeSelect.append(o);
    }
    this.modeSelect.value = this.mode;
    modeLabel.append(this.modeSelect);
    const copy = this.button(this.s.copyJson, this.s.copyJson, () => this.copy());
    copy.classList.add('tv-copy');
    bar.append(this.searchBox, this.count, prev, next, lowest, modeLabel, copy);
    this.summaryLine = h('div', 'tv-summary');
    this.notesLine = h('div', 'tv-notes');
    this.scroller = h('div', 'tv-scroll');
    this.scroller.tabIndex = 0;
    this.sizer = h('div', 'tv-sizer');
    this.win = h('div', 'tv-window');
    this.sizer.append(this.win);
    this.scroller.append(this.sizer);
    this.tip = h('div', 'tv-tip');
    this.tip.hidden = true;
    this.element.append(bar, this.summaryLine, this.notesLine, this.scroller, this.tip);

    this.searchBox.addEventListener('input', () => this.search(this.searchBox.value));
    this.searchBox.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') this.step(ev.shiftKey ? -1 : 1);
    });
    this.modeSelect.addEventListener('change', () => this.setColourMode(this.modeSelect.value as ColourMode));
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.win.addEventListener('mouseover', (ev) => this.hover(ev.target));
    this.win.addEventListener('mouseleave', () => (this.tip.hidden = true));
    this.resize = new ResizeObserver(() => this.relayout());
    this.resize.observe(this.scroller);
  }

  private button(text: string, title: string, run: () => void): HTMLButtonElement {
    const b = h('button', 'tv-button', text);
    b.title = title;
    b.setAttribute('aria-label', title);
    b.addEventListener('click', run);
    return b;
  }

  /** Shows `e` (notes: the host's words for where the tokens came from and what is missing;
   *  marks: its turns and warned spans, when the host knows them). */
  show(e: TokenExperience, notes: readonly string[] = [], marks?: TokenMarks): void {
    this.e = e;
    const n = e.ids.length;
    this.marks = new MarkIndex(n, marks);
    this.summary = summarize(e);
    this.maxAdv = maxAbs(e.advantages);
    this.display = new Array<string>(n);
    this.widths = new Uint16Array(n);
    this.breaks = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const d = visibleToken(e.texts, e.ids, i);
      this.display[i] = d;
      this.widths[i] = Math.min(65535, columns(d));
      this.breaks[i] = endsLine(e.texts, i) || this.marks.startsTurn(i + 1) ? 1 : 0;
    }
    this.matches = [];
    this.matchOf.clear();
    this.current = -1;
    this.focus = -1;
    this.searchBox.value = '';
    this.count.textContent = '';
    this.writeSummary(notes);
    this.measure();
    this.cols = 0;
    this.relayout();
  }

  private writeSummary(notes: readonly string[]): void {
    const s = this.summary;
    if (!s) return;
    const parts = [
      fillString(this.s.summaryTokens, s.tokens),
      fillString(this.s.summaryTrained, s.trainedTokens),
      fillString(this.s.summaryMeanLogprob, fmt(s.meanLogprob)),
    ];
    if (s.truncated) parts.push(this.s.truncated);
    if (s.emptyResponse) parts.push(this.s.emptyResponse);
    this.summaryLine.textContent = parts.join(' · ');
    this.summaryLine.classList.toggle('tv-warn', s.truncated || s.emptyResponse);
    this.notesLine.textContent = notes.join(' · ');
    this.notesLine.hidden = notes.length === 0;
  }

  /** Line height and character width of the token font, from a probe line. */
  private measure(): void {
    const probe = h('div', 'tv-line tv-probe');
    const span = h('span', 'tv-tok', 'MMMMMMMMMMMMMMMMMMMM');
    probe.append(span);
    this.win.append(probe);
    const r = span.getBoundingClientRect();
    if (r.width > 0) this.charWidth = r.width / 20;
    const lh = probe.getBoundingClientRect().height;
    if (lh > 0) this.lineHeight = lh;
    probe.remove();
  }

  private relayout(): void {
    const e = this.e;
    if (!e) return;
    // The turns' labels sit right of the tokens, in columns no token is laid into.
    const gutter = this.marks.hasTurns ? TURN_LABEL_COLUMNS : 0;
    const cols = Math.max(8, Math.floor((this.scroller.clientWidth - 16) / this.charWidth) - gutter);
    if (cols === this.cols && this.layout) return;
    const anchor = this.layout ? this.layout.lineStart[Math.min(this.layout.lines, Math.floor(this.scroller.scrollTop / this.lineHeight))] : 0;
    this.cols = cols;
    this.layout = layoutTokens(this.widths, this.breaks, e.promptLength, cols);
    this.sizer.style.height = `${this.layout.lines * this.lineHeight}px`;
    if (anchor > 0) this.scroller.scrollTop = this.layout.lineOf(anchor) * this.lineHeight;
    this.drawn = [-1, -1];
    this.draw();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  /** Draws the lines on screen (and `overscan` more each side), unless they are drawn already. */
  private draw(force = false): void {
    const e = this.e;
    const L = this.layout;
    if (!e || !L) return;
    const top = Math.floor(this.scroller.scrollTop / this.lineHeight);
    const visible = Math.ceil((this.scroller.clientHeight || 600) / this.lineHeight);
    const first = Math.max(0, top - this.overscan);
    const last = Math.min(L.lines, top + visible + this.overscan);
    // Scrolling within the drawn margin needs no new lines.
    const [a, b] = this.drawn;
    if (!force && a >= 0 && a <= Math.max(0, top - this.overscan / 2) && b >= Math.min(L.lines, top + visible + this.overscan / 2)) return;
    const frag = document.createDocumentFragment();
    for (let l = first; l < last; l++) {
      const line = h('div', e.promptLength > 0 && L.lineStart[l] === e.promptLength ? 'tv-line tv-response-start' : 'tv-line');
      for (let i = L.lineStart[l]; i < L.lineStart[l + 1]; i++) line.append(this.tokenSpan(i));
      frag.append(line);
    }
    this.win.replaceChildren(frag);
    this.tip.hidden = true; // its token may be gone or recoloured
    this.win.style.transform = `translateY(${first * this.lineHeight}px)`;
    this.drawn = [first, last];
  }

  private tokenSpan(i: number): HTMLSpanElement {
    const e = this.e as TokenExperience;
    let cls = `tv-tok ${colourClass(e, i, this.mode, this.maxAdv)}`;
    const flags = e.texts ? e.texts.flags[i] : 0;
    if (flags & FLAG_SPECIAL) cls += ' tv-special';
    if (flags & FLAG_PARTIAL) cls += ' tv-partial';
    if (i < e.promptLength) cls += ' tv-in-prompt';
    cls += this.marks.classes(i);
    const m = this.matchOf.get(i);
    if (m !== undefined) cls += m === this.current ? ' tv-match tv-current' : ' tv-match';
    if (i === this.focus) cls += ' tv-focus';
    const span = h('span', cls, this.display[i]);
    span.dataset.i = String(i);
    const label = this.marks.label(i, this.s);
    if (label !== undefined) span.dataset.turn = label;
    return span;
  }

  private hover(target: EventTarget | null): void {
    const el = target instanceof HTMLElement ? target.closest<HTMLElement>('.tv-tok') : null;
    const e = this.e;
    if (!el || !e || el.dataset.i === undefined) return;
    const i = Number(el.dataset.i);
    this.tip.replaceChildren(
      ...[...tooltipLines(e, i, this.s), ...this.marks.tooltip(i, this.s)].map(([k, v]) => {
        const row = h('div', 'tv-tip-row');
        row.append(h('span', 'tv-tip-key', k), h('span', 'tv-tip-value', v));
        return row;
      }),
    );
    this.tip.hidden = false;
    const r = el.getBoundingClientRect();
    const host = this.element.getBoundingClientRect();
    this.tip.style.left = `${Math.max(0, Math.min(r.left - host.left, host.width - 260))}px`;
    this.tip.style.top = `${r.bottom - host.top + 4}px`;
  }

  setColourMode(mode: ColourMode): void {
    this.mode = mode;
    this.modeSelect.value = mode;
    this.draw(true);
  }

  /** Finds `query` (text, or #id); the first match becomes current. Returns the match count. */
  search(query: string): number {
    const e = this.e;
    if (!e) return 0;
    this.matches = findMatches(e, query);
    this.matchOf.clear();
    this.matches.forEach(([a, b], k) => {
      for (let i = a; i <= b; i++) if (!this.matchOf.has(i)) this.matchOf.set(i, k);
    });
    this.current = this.matches.length ? 0 : -1;
    this.showCount(query);
    if (this.current >= 0) this.reveal(this.matches[0][0]);
    else this.draw(true);
    return this.matches.length;
  }

  private showCount(query: string): void {
    this.count.textContent =
      query.trim() === '' ? '' : this.matches.length ? fillString(this.s.matches, this.current + 1, this.matches.length) : this.s.noMatch;
  }

  private step(d: number): void {
    if (!this.matches.length) return;
    this.current = (this.current + d + this.matches.length) % this.matches.length;
    this.showCount(this.searchBox.value);
    this.reveal(this.matches[this.current][0]);
  }

  /** Scrolls token i into the middle of the view and outlines it; returns i (-1 when there is no logprob). */
  jumpToLowest(): number {
    const i = this.summary?.lowest ?? -1;
    if (i >= 0) {
      this.focus = i;
      this.reveal(i);
    }
    return i;
  }

  private reveal(i: number): void {
    const L = this.layout;
    if (!L) return;
    const line = L.lineOf(i);
    const y = line * this.lineHeight;
    const h = this.scroller.clientHeight;
    if (y < this.scroller.scrollTop || y > this.scroller.scrollTop + h - this.lineHeight) this.scroller.scrollTop = Math.max(0, y - h / 2);
    this.draw(true);
  }

  /** The JSON `agentrl tokens --json` prints for this experience. */
  json(): string {
    return this.e ? JSON.stringify(toTokensJson(this.e)) : '';
  }

  private copy(): void {
    const text = this.json();
    if (this.opts.onCopy) this.opts.onCopy(text);
    else void navigator.clipboard?.writeText(text);
    this.count.textContent = this.s.copied;
  }

  dispose(): void {
    this.resize.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.element.remove();
  }
}
