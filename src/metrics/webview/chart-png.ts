// A chart card as a PNG (title, plot, key of runs) on the theme's background: what the
// card's PNG button exports.
import type uPlot from 'uplot';
import type { ChartSpec } from '../protocol/frames';
import { Theme, seriesColor } from './theme';

/** A data: URL of the chart's PNG. */
export function chartPng(u: uPlot, spec: ChartSpec, t: Theme): string {
  const dpr = devicePixelRatio;
  const src = u.ctx.canvas;
  const pad = 12 * dpr;
  const titleH = 22 * dpr;
  const c = document.createElement('canvas');
  c.width = src.width + 2 * pad;
  c.height = src.height + titleH + 2 * pad + 18 * dpr;
  const g = c.getContext('2d')!;
  g.fillStyle = t.background;
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = t.foreground;
  g.font = `${13 * dpr}px ${t.font.replace(/^\S+\s/, '')}`;
  g.fillText(spec.tag, pad, pad + 14 * dpr);
  g.drawImage(src, pad, pad + titleH);
  let x = pad;
  const y = pad + titleH + src.height + 14 * dpr;
  for (const s of spec.series) {
    g.fillStyle = seriesColor(t, s.color);
    g.fillRect(x, y - 9 * dpr, 10 * dpr, 10 * dpr);
    g.fillStyle = t.foreground;
    g.fillText(s.label, x + 14 * dpr, y);
    x += g.measureText(s.label).width + 30 * dpr;
  }
  return c.toDataURL('image/png');
}
