// Full-resolution export of selected series (never the downsampled frames): CSV in
// TensorBoard's download layout plus run / role / tag columns, or JSON. Pure.
import type { MetricsStore } from '../store/store';

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Numbers as JSON-safe / CSV text: NaN and ±Infinity spelled out. */
function num(v: number): string {
  return Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

/** run,role,tag,step,wall_time,value — one line per point. */
export function exportCsv(store: MetricsStore, keys: string[]): string {
  const out = ['run,role,tag,step,wall_time,value'];
  for (const key of keys) {
    const s = store.get(key);
    const c = s && store.columns(key);
    if (!s || !c) continue;
    const prefix = `${csvField(s.run)},${csvField(s.role)},${csvField(s.tag)},`;
    for (let i = 0; i < c.length; i++) out.push(`${prefix}${num(c.step[i])},${num(c.wallTime[i])},${num(c.value[i])}`);
  }
  return out.join('\n') + '\n';
}

export interface ExportedSeries {
  run: string;
  role: string;
  tag: string;
  step: number[];
  wall_time: number[];
  /** Non-finite values as the strings "NaN", "Infinity", "-Infinity". */
  value: (number | string)[];
}

export function exportJson(store: MetricsStore, keys: string[]): string {
  const series: ExportedSeries[] = [];
  for (const key of keys) {
    const s = store.get(key);
    const c = s && store.columns(key);
    if (!s || !c) continue;
    series.push({
      run: s.run,
      role: s.role,
      tag: s.tag,
      step: Array.from(c.step.subarray(0, c.length)),
      wall_time: Array.from(c.wallTime.subarray(0, c.length)),
      value: Array.from(c.value.subarray(0, c.length), (v) => (Number.isFinite(v) ? v : num(v))),
    });
  }
  return JSON.stringify({ series }, null, 1) + '\n';
}
