// The drill-down's histograms: rewards (a bar per bin; a bin filters the list) and the reward
// parts stacked (one colour per part — accuracy, format_score… — in each bin; a segment filters
// the list to that part's bin). Counts come from ExperienceTable.
import type { UiStrings } from '../protocol/ui-strings';
import type { Histogram, StackedHistogram } from '../experiences/table';
import { fmtNum } from './format';

/** Colours of the parts, in order (theme variables). */
const PART_COLOURS = [
  '--vscode-charts-blue',
  '--vscode-charts-orange',
  '--vscode-charts-green',
  '--vscode-charts-purple',
  '--vscode-charts-red',
  '--vscode-charts-yellow',
];

function partColour(k: number): string {
  return `var(${PART_COLOURS[k % PART_COLOURS.length]})`;
}

function edges(lo: number, hi: number, bins: number, i: number): string {
  const w = (hi - lo) / bins;
  return `${fmtNum(lo + i * w)} – ${fmtNum(lo + (i + 1) * w)}`;
}

function axis(lo: number, hi: number, label: string): HTMLElement {
  const a = document.createElement('div');
  a.className = 'hist-axis';
  a.textContent = `${fmtNum(lo)} … ${fmtNum(hi)}  (${label})`;
  return a;
}

export function rewardHistogram(h: Histogram, selected: number | undefined, s: UiStrings, onBin: (bin: number) => void): HTMLElement[] {
  const el = document.createElement('div');
  el.className = 'histogram';
  el.setAttribute('aria-label', s.rewardHistogram);
  const max = Math.max(0, ...h.counts);
  h.counts.forEach((c, i) => {
    const bar = document.createElement('button');
    bar.className = 'bin' + (selected === i ? ' selected' : '');
    bar.dataset.bin = String(i);
    bar.title = `${s.reward} ${edges(h.lo, h.hi, h.counts.length, i)}: ${c}`;
    const fill = document.createElement('span');
    fill.style.height = `${max ? Math.max(c ? 4 : 0, (c / max) * 100) : 0}%`;
    bar.append(fill);
    bar.addEventListener('click', () => onBin(i));
    el.append(bar);
  });
  return [el, axis(h.lo, h.hi, s.rewardHistogram)];
}

export function partsHistogram(
  h: StackedHistogram,
  selected: { name: string; bin: number } | undefined,
  s: UiStrings,
  onPart: (name: string, bin: number) => void,
): HTMLElement[] {
  const el = document.createElement('div');
  el.className = 'parts-histogram';
  el.setAttribute('aria-label', s.partsHistogram);
  const bins = h.series[0]?.counts.length ?? 0;
  let max = 0;
  for (let i = 0; i < bins; i++)
    max = Math.max(
      max,
      h.series.reduce((a, p) => a + p.counts[i], 0),
    );
  for (let i = 0; i < bins; i++) {
    const bar = document.createElement('div');
    bar.className = 'pbin';
    h.series.forEach((p, k) => {
      const c = p.counts[i];
      if (!c) return;
      const seg = document.createElement('button');
      seg.className = 'part' + (selected?.name === p.name && selected.bin === i ? ' selected' : '');
      seg.style.height = `${(c / max) * 100}%`;
      seg.style.background = partColour(k);
      seg.title = `${p.name} ${edges(h.lo, h.hi, bins, i)}: ${c}`;
      seg.addEventListener('click', () => onPart(p.name, i));
      bar.append(seg);
    });
    el.append(bar);
  }
  const legend = document.createElement('div');
  legend.className = 'parts-legend';
  h.series.forEach((p, k) => {
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = partColour(k);
    item.append(swatch, p.name);
    legend.append(item);
  });
  return [el, axis(h.lo, h.hi, s.partsHistogram), legend];
}
