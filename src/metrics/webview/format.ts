// Number, time and x-axis labels of the metrics view.
import type { XAxisMode } from '../protocol/view-options';

export function fmtNum(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return v.toExponential(3);
  return Number(v.toPrecision(5)).toString();
}

/** A y-axis tick: uPlot picks round values, so the shortest exact form reads best ("0.0005",
 *  "2e-5", "1.5e+7"), never fmtNum's fixed "5.000e-4". */
export function fmtTick(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const r = Number(v.toPrecision(6)); // float noise of the increments: 0.30000000000000004
  const a = Math.abs(r);
  if (a === 0) return '0';
  if (a >= 1e-4 && a < 1e6) return String(r);
  return r.toExponential();
}

/** Numbers read side by side (a value, its smoothed value, the bucket's min and max): the same
 *  decimals for all, 4 significant digits of the largest ("0.2500 · smoothed 0.2473", not
 *  "0.25 · smoothed 0.24731"); very large or small magnitudes as fmtNum writes them. */
export function fmtTogether(values: readonly (number | null | undefined)[]): string[] {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const big = finite.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  if (big >= 1e6 || (big > 0 && big < 1e-3)) return values.map(fmtNum);
  const decimals = big === 0 ? 0 : Math.min(6, Math.max(0, 3 - Math.floor(Math.log10(big))));
  return values.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(decimals) : fmtNum(v)));
}

export function fmtDuration(seconds: number): string {
  const s = Math.abs(seconds);
  const sign = seconds < 0 ? '-' : '';
  if (s < 60) return `${sign}${Number(s.toPrecision(3))}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${sign}${m}m${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${sign}${h}h${String(m % 60).padStart(2, '0')}m`;
  return `${sign}${Math.floor(h / 24)}d${String(h % 24).padStart(2, '0')}h`;
}

export function fmtWall(seconds: number): string {
  const d = new Date(seconds * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Label of a bucket [x, x + dx) for the hover legend. */
export function fmtBucket(mode: XAxisMode, x: number, dx: number, stepWord: string): string {
  if (mode === 'step') return dx <= 1 ? `${stepWord} ${x}` : `${stepWord} ${x}–${x + dx - 1}`;
  if (mode === 'wall') return fmtWall(x);
  return fmtDuration(x);
}

/** A CSS width that holds `text` in the input's font: wide (CJK) characters count twice, plus
 *  the padding and the search field's clear button. */
export function textWidth(text: string): string {
  let ch = 0;
  for (const c of text) ch += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(c) ? 2 : 1;
  return `calc(${ch}ch + 3em)`;
}
