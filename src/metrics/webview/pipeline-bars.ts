// One role's stacked bars over steps on a canvas: each bar a step (or the mean of a few), each
// part of the role's wall time a band in its colour, bottom up; hovering a bar names its step
// and parts.
import type { RoleBars } from '../protocol/pipeline-protocol';

/** Colours per part (CSS); waiting parts are drawn muted so the idle time stands out as grey. */
export const PART_COLORS: Record<string, string> = {
  wait_experience: 'var(--vscode-disabledForeground, #888)',
  compute: 'var(--vscode-charts-blue, #3794ff)',
  sync_weight: 'var(--vscode-charts-orange, #d18616)',
  checkpoint: 'var(--vscode-charts-purple, #b180d7)',
  generate: 'var(--vscode-charts-green, #89d185)',
  wait_stragglers: 'var(--vscode-charts-red, #f14c4c)',
  wait_sync: 'var(--vscode-disabledForeground, #888)',
  eval: 'var(--vscode-charts-yellow, #cca700)',
};

const HEIGHT = 120;

/** A CSS colour (variables resolved against the page). */
function resolve(el: HTMLElement, css: string): string {
  const m = /^var\((--[\w-]+),\s*([^)]+)\)$/.exec(css);
  if (!m) return css;
  return getComputedStyle(el).getPropertyValue(m[1]).trim() || m[2].trim();
}

export class RoleBarsChart {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly tip: HTMLElement;
  private data: { steps: number[]; bars: RoleBars } | undefined;

  constructor(
    title: string,
    private readonly partName: (p: string) => string,
    private readonly stepWord: () => string,
  ) {
    this.el = document.createElement('div');
    this.el.className = 'pipeline-bars';
    const h = document.createElement('div');
    h.className = 'pipeline-bars-title';
    h.textContent = title;
    this.canvas = document.createElement('canvas');
    this.canvas.height = HEIGHT;
    this.tip = document.createElement('div');
    this.tip.className = 'pipeline-tip';
    this.tip.hidden = true;
    this.el.append(h, this.canvas, this.tip);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true));
  }

  set(steps: number[], bars: RoleBars): void {
    this.data = { steps, bars };
    this.draw();
  }

  draw(): void {
    const d = this.data;
    const width = Math.max(200, this.el.clientWidth || 600);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = width * dpr;
    this.canvas.height = HEIGHT * dpr;
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${HEIGHT}px`;
    const g = this.canvas.getContext('2d');
    if (!g || !d) return;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, HEIGHT);
    const n = d.steps.length;
    if (!n) return;
    let max = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (const col of d.bars.values) s += col[i] ?? 0;
      max = Math.max(max, s);
    }
    if (max <= 0) return;
    const colors = d.bars.parts.map((p) => resolve(this.el, PART_COLORS[p] ?? '#888'));
    const w = width / n;
    for (let i = 0; i < n; i++) {
      let y = HEIGHT;
      d.bars.values.forEach((col, k) => {
        const v = col[i];
        if (!v || v <= 0) return;
        const h = (v / max) * (HEIGHT - 4);
        g.fillStyle = colors[k];
        g.fillRect(i * w, y - h, Math.max(1, w - (w > 3 ? 1 : 0)), h);
        y -= h;
      });
    }
  }

  private hover(e: MouseEvent): void {
    const d = this.data;
    if (!d || !d.steps.length) return;
    const r = this.canvas.getBoundingClientRect();
    const i = Math.min(d.steps.length - 1, Math.max(0, Math.floor(((e.clientX - r.left) / r.width) * d.steps.length)));
    const lines = [`${this.stepWord()} ${d.steps[i]}`];
    d.bars.parts.forEach((p, k) => {
      const v = d.bars.values[k][i];
      if (v !== null && v !== undefined) lines.push(`${this.partName(p)}: ${v.toFixed(2)} s`);
    });
    this.tip.textContent = lines.join('\n');
    this.tip.hidden = false;
    this.tip.style.left = `${Math.min(r.width - 160, e.clientX - r.left + 12)}px`;
  }
}
