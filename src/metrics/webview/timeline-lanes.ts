// Ray's timeline as lanes, one per actor (or worker), on a canvas: the wheel zooms around the
// pointer, a drag pans, hovering an event names it with its duration; explorer steps are marked.
// The window drawn is asked of the extension (which reads it through the relay in slices): on
// each zoom or pan, once the user pauses, the new window is asked for.
import type { TimelineSlice } from '../protocol/pipeline-protocol';

const LANE_PX = 22;
const LABEL_PX = 180;
const ASK_MS = 200;

const fmtUs = (us: number): string => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : us >= 1e3 ? `${(us / 1e3).toFixed(1)} ms` : `${us.toFixed(0)} µs`);

export class TimelineLanes {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly tip: HTMLElement;
  private slice: TimelineSlice | undefined;
  /** The window shown (µs since the first event). */
  private view = { from: 0, to: 1 };
  private askTimer: number | undefined;
  private drag: { x: number; from: number; to: number } | undefined;

  constructor(private readonly ask: (from: number, to: number) => void) {
    this.el = document.createElement('div');
    this.el.className = 'timeline-lanes';
    this.canvas = document.createElement('canvas');
    this.tip = document.createElement('div');
    this.tip.className = 'pipeline-tip';
    this.tip.hidden = true;
    this.el.append(this.canvas, this.tip);
    this.canvas.addEventListener('wheel', (e) => this.zoom(e), { passive: false });
    this.canvas.addEventListener('mousedown', (e) => (this.drag = { x: e.clientX, ...this.view }));
    window.addEventListener('mouseup', () => (this.drag = undefined));
    this.canvas.addEventListener('mousemove', (e) => this.move(e));
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true));
  }

  /** A slice arrived: drawn in its window (the first one shows the whole span). */
  set(s: TimelineSlice): void {
    const first = !this.slice;
    this.slice = s;
    if (first) this.view = { from: s.from, to: Math.max(s.to, s.from + 1) };
    this.draw();
  }

  /** Events drawn now (tests and the probe). */
  get drawnEvents(): number {
    return this.slice?.lane.length ?? 0;
  }

  private plotWidth(): number {
    return Math.max(100, (this.el.clientWidth || 800) - LABEL_PX);
  }

  private xOf(us: number): number {
    return LABEL_PX + ((us - this.view.from) / (this.view.to - this.view.from)) * this.plotWidth();
  }

  draw(): void {
    const s = this.slice;
    if (!s) return;
    const width = LABEL_PX + this.plotWidth();
    const height = (s.lanes.length + 1) * LANE_PX;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = width * dpr;
    this.canvas.height = height * dpr;
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    const g = this.canvas.getContext('2d');
    if (!g) return;
    const css = getComputedStyle(this.el);
    const fg = css.getPropertyValue('--vscode-foreground').trim() || '#ccc';
    const muted = css.getPropertyValue('--vscode-disabledForeground').trim() || '#888';
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = '11px sans-serif';
    g.textBaseline = 'middle';
    s.lanes.forEach((name, i) => {
      g.fillStyle = fg;
      g.fillText(name.length > 28 ? `${name.slice(0, 27)}…` : name, 4, LANE_PX * (i + 1) - LANE_PX / 2);
      g.fillStyle = muted;
      g.fillRect(LABEL_PX, LANE_PX * (i + 1) - 0.5, this.plotWidth(), 0.5);
    });
    for (let i = 0; i < s.lane.length; i++) {
      const x0 = Math.max(LABEL_PX, this.xOf(s.start[i]));
      const x1 = Math.min(width, this.xOf(s.start[i] + s.dur[i]));
      if (x1 < LABEL_PX || x0 > width) continue;
      g.fillStyle = `hsl(${(s.name[i] * 47) % 360} 55% 55%)`;
      g.fillRect(x0, LANE_PX * s.lane[i] + 3, Math.max(1, x1 - x0), LANE_PX - 6);
    }
    // explorer steps, on the relay's clock
    g.fillStyle = muted;
    for (const m of s.steps ?? []) {
      const x = this.xOf(m.at);
      if (x < LABEL_PX || x > width) continue;
      g.fillRect(x, 0, 1, height - LANE_PX);
      g.fillText(String(m.step), x + 2, height - LANE_PX / 2);
    }
  }

  private zoom(e: WheelEvent): void {
    if (!this.slice) return;
    e.preventDefault();
    const r = this.canvas.getBoundingClientRect();
    const at = this.view.from + ((e.clientX - r.left - LABEL_PX) / this.plotWidth()) * (this.view.to - this.view.from);
    const k = e.deltaY > 0 ? 1.25 : 0.8;
    const from = at - (at - this.view.from) * k;
    const to = at + (this.view.to - at) * k;
    this.setView(from, to);
  }

  private setView(from: number, to: number): void {
    const span = this.slice?.span ?? to;
    const w = Math.max(10, Math.min(to - from, span || to - from));
    let a = Math.max(0, from);
    if (span > 0 && a + w > span) a = Math.max(0, span - w);
    this.view = { from: a, to: a + w };
    this.draw();
    window.clearTimeout(this.askTimer);
    this.askTimer = window.setTimeout(() => this.ask(this.view.from, this.view.to), ASK_MS);
  }

  private move(e: MouseEvent): void {
    const s = this.slice;
    if (!s) return;
    const r = this.canvas.getBoundingClientRect();
    if (this.drag) {
      const dx = ((e.clientX - this.drag.x) / this.plotWidth()) * (this.drag.to - this.drag.from);
      this.setView(this.drag.from - dx, this.drag.to - dx);
      return;
    }
    const x = e.clientX - r.left;
    const lane = Math.floor((e.clientY - r.top) / LANE_PX);
    const us = this.view.from + ((x - LABEL_PX) / this.plotWidth()) * (this.view.to - this.view.from);
    const slack = (3 / this.plotWidth()) * (this.view.to - this.view.from);
    let hit = -1;
    for (let i = 0; i < s.lane.length; i++) {
      if (s.lane[i] !== lane || us < s.start[i] - slack || us > s.start[i] + s.dur[i] + slack) continue;
      if (hit < 0 || s.dur[i] < s.dur[hit]) hit = i; // the innermost event
    }
    if (hit < 0) {
      this.tip.hidden = true;
      return;
    }
    this.tip.textContent = `${s.names[s.name[hit]]} · ${fmtUs(s.dur[hit])}\n${s.lanes[s.lane[hit]]}`;
    this.tip.hidden = false;
    this.tip.style.left = `${Math.min(r.width - 220, x + 12)}px`;
    this.tip.style.top = `${(lane + 1) * LANE_PX}px`;
  }
}
