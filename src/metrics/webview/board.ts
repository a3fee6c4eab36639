// The charts on the page: one card per chart spec, grouped in collapsible sections (the
// pinned row first, then the extension's order), the tag filter, and which cards are on screen
// (an IntersectionObserver): the extension computes frames only for those, at the plot widths
// reported here. Cards a layout adds are measured at once (the observer's first answer comes
// a frame later): frames the extension sent with the layout are drawn in the next animation frame.
import type { ChartData, ChartFrame, ChartSpec } from '../protocol/frames';
import { applyFrame } from '../protocol/frames';
import { CardEvent, CardPort, ChartCard } from './chart';
import { saveState, savedState } from './webview-api';

/** What the board tells the page: its cards' events, and its own. */
export type BoardEvent =
  | CardEvent
  /** Plot widths and the charts on screen (debounced). */
  | { type: 'viewport'; charts: { id: string; width: number }[]; visible: string[] }
  /** The tag filter is not a valid regular expression (it filters nothing). */
  | { type: 'invalidFilter'; bad: boolean }
  /** Cards changed: draw them in the next animation frame. */
  | { type: 'render' };

/** Quiet time before the viewport is reported (resizes and scrolls come in bursts). */
const VIEWPORT_DEBOUNCE_MS = 60;
/** The observer's margin: cards this close to the window count as on screen. */
const MARGIN_PX = 300;
/**
 * Cards farther than this from the window give their plot back (in window heights): the
 * renderer's memory then follows the window, not the number of tags (a canvas costs several
 * copies of its pixels). Wider than MARGIN_PX, so scrolling to and fro does not rebuild plots.
 */
const KEEP_MARGIN = '100%';

export class ChartBoard {
  readonly el: HTMLElement = document.createElement('main');
  private readonly cards = new Map<string, ChartCard>();
  private readonly data = new Map<string, ChartData>();
  private readonly sections = new Map<string, HTMLElement>();
  private readonly onScreen = new Set<string>();
  private readonly collapsed = new Set<string>(savedState()?.collapsed ?? []);
  private readonly observer: IntersectionObserver;
  private readonly keeper: IntersectionObserver;
  private viewportTimer: number | undefined;
  /** Cards a layout added, not yet measured. */
  private readonly added: ChartCard[] = [];
  private count = 0;

  constructor(
    private readonly port: CardPort,
    private readonly tell: (e: BoardEvent) => void,
  ) {
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { rootMargin: `${MARGIN_PX}px 0px` });
    this.keeper = new IntersectionObserver((entries) => this.onFar(entries), { rootMargin: `${KEEP_MARGIN} 0px` });
    new ResizeObserver(() => this.reportViewport()).observe(this.el);
  }

  get size(): number {
    return this.count;
  }

  allCards(): ChartCard[] {
    return [...this.cards.values()];
  }

  card(id: string): ChartCard | undefined {
    return this.cards.get(id);
  }

  /** Applies a frame; the card redraws at the next animation frame. */
  applyFrame(f: ChartFrame): void {
    const d = applyFrame(this.data.get(f.chart), f);
    if (!d) return;
    this.data.set(f.chart, d);
    this.cards.get(f.chart)?.setData(d);
  }

  /** Every chart has to be drawn afresh (theme or plot options changed). */
  restyle(): void {
    for (const c of this.cards.values()) c.restyle();
  }

  /** Shows the extension's charts (the next viewport report measures the cards it adds). */
  layout(specs: ChartSpec[]): void {
    this.count = specs.length;
    const added: ChartCard[] = [];
    const ids = new Set(specs.map((s) => s.id));
    for (const [id, c] of this.cards) {
      if (ids.has(id)) continue;
      this.observer.unobserve(c.el);
      this.keeper.unobserve(c.el);
      c.destroyPlot();
      c.el.remove();
      this.cards.delete(id);
      this.data.delete(id);
    }
    for (const spec of specs) {
      const key = spec.pinned ? '' : spec.group;
      const section = this.section(key, spec.pinned ? this.port.strings.pinned : spec.group || '…');
      let card = this.cards.get(spec.id);
      if (!card) {
        card = new ChartCard(spec, this.port, this.tell);
        this.cards.set(spec.id, card);
        added.push(card);
        const d = this.data.get(spec.id);
        if (d) card.setData(d);
        this.observer.observe(card.el);
        this.keeper.observe(card.el);
      } else card.setSpec(spec);
      const grid = section.querySelector('.grid')!;
      if (card.el.parentElement !== grid) grid.append(card.el);
    }
    // Keep the extension's order: pinned first, then sections in Trinity's order.
    const order = [...new Set(specs.map((s) => (s.pinned ? '' : s.group)))];
    this.el.replaceChildren(...order.map((k) => this.sections.get(k)!));
    for (const spec of specs) {
      const grid = this.sections.get(spec.pinned ? '' : spec.group)!.querySelector('.grid')!;
      grid.append(this.cards.get(spec.id)!.el);
    }
    this.added.push(...added);
  }

  /** Which new cards are on screen now (one layout pass), as the observer will say later. */
  private measure(): void {
    const bottom = window.innerHeight + MARGIN_PX;
    for (const c of this.added.splice(0)) {
      const r = c.el.getBoundingClientRect();
      if (r.height > 0 && r.bottom > -MARGIN_PX && r.top < bottom) this.onScreen.add(c.spec.id);
    }
  }

  private section(key: string, title: string): HTMLElement {
    let s = this.sections.get(key);
    if (s) return s;
    const d = document.createElement('details');
    d.className = key === '' ? 'section pinned' : 'section';
    d.dataset.group = key;
    d.open = !this.collapsed.has(key);
    const sum = document.createElement('summary');
    sum.textContent = title;
    const grid = document.createElement('div');
    grid.className = 'grid';
    d.append(sum, grid);
    d.addEventListener('toggle', () => {
      if (d.open) this.collapsed.delete(key);
      else this.collapsed.add(key);
      saveState({ collapsed: [...this.collapsed] });
      this.reportViewport();
    });
    s = d;
    this.sections.set(key, s);
    return s;
  }

  /** Hides the charts whose tag does not match (a regular expression; invalid ones hide nothing). */
  applyFilter(filter: string): void {
    let re: RegExp | undefined;
    let bad = false;
    try {
      re = filter ? new RegExp(filter, 'i') : undefined;
    } catch {
      bad = true;
    }
    this.tell({ type: 'invalidFilter', bad });
    for (const c of this.cards.values()) c.el.hidden = !!re && !re.test(c.spec.tag);
    for (const [, s] of this.sections) s.hidden = ![...s.querySelectorAll('.card')].some((c) => !(c as HTMLElement).hidden);
    this.reportViewport();
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) {
      const id = (e.target as HTMLElement).dataset.chart!;
      if (e.isIntersecting) this.onScreen.add(id);
      else this.onScreen.delete(id);
    }
    this.reportViewport();
  }

  private onFar(entries: IntersectionObserverEntry[]): void {
    for (const e of entries) if (!e.isIntersecting) this.cards.get((e.target as HTMLElement).dataset.chart!)?.release();
  }

  /** Tells the extension plot widths and which charts are on screen (debounced; at once after a layout added cards). */
  reportViewport(): void {
    if (this.added.length) {
      this.measure();
      if (this.viewportTimer !== undefined) window.clearTimeout(this.viewportTimer);
      this.viewportTimer = undefined;
      this.sendViewport();
      return;
    }
    if (this.viewportTimer !== undefined) return;
    this.viewportTimer = window.setTimeout(() => {
      this.viewportTimer = undefined;
      this.sendViewport();
    }, VIEWPORT_DEBOUNCE_MS);
  }

  private sendViewport(): void {
    const charts: { id: string; width: number }[] = [];
    const visible: string[] = [];
    for (const [id, c] of this.cards) {
      const shown = this.onScreen.has(id) && !c.el.hidden && !!c.el.closest('details[open]');
      if (shown && !c.visible) c.dirty = true;
      c.visible = shown;
      charts.push({ id, width: c.plotWidth() });
      if (shown) visible.push(id);
    }
    this.tell({ type: 'viewport', charts, visible });
    this.tell({ type: 'render' });
  }
}
