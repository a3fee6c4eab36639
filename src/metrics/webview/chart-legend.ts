// The two legends of a chart card, apart from the chart itself: the hover legend under the
// plot (the bucket under the pointer: each run's value, smoothed value, min/max envelope and
// wall time) and the key of run colours shown when several runs overlay.
import type { ChartData, SeriesInfo } from '../protocol/frames';
import type { UiStrings } from '../protocol/ui-strings';
import { fmtBucket, fmtTogether, fmtWall } from './format';
import { Cell, hiCol, lineCol, loCol } from './plot-data';
import { Theme, seriesColor } from './theme';

/** What the hover legend reads at one x position. */
export interface LegendPoint {
  data: ChartData;
  aligned: Cell[][];
  /** x position in `aligned`, and the bucket it came from. */
  idx: number;
  bucket: number;
  smoothing: boolean;
}

function swatch(t: Theme, info: SeriesInfo): HTMLElement {
  const sw = document.createElement('span');
  sw.className = 'swatch';
  sw.style.background = seriesColor(t, info.color);
  return sw;
}

function span(className: string, text: string): HTMLElement {
  const el = document.createElement('span');
  el.className = className;
  el.textContent = text;
  return el;
}

export class ChartLegend {
  /** The hover legend. */
  readonly el: HTMLElement;
  /** The run key. */
  readonly keyEl: HTMLElement;

  constructor(private readonly strings: UiStrings) {
    this.el = document.createElement('div');
    this.el.className = 'legend';
    this.keyEl = document.createElement('div');
    this.keyEl.className = 'run-key';
  }

  clear(): void {
    this.el.replaceChildren();
  }

  /** The values at the pointer's bucket. */
  show(series: readonly SeriesInfo[], t: Theme, p: LegendPoint): void {
    const s = this.strings;
    const { data: d, aligned, idx, bucket: k } = p;
    const head = document.createElement('div');
    head.className = 'x';
    head.textContent = fmtBucket(d.xAxis, d.origin + k * d.dx, d.dx, s.step);
    const rows: HTMLElement[] = [head];
    series.forEach((info, i) => {
      const y = aligned[lineCol(i)]?.[idx];
      const hi = aligned[hiCol(i)]?.[idx];
      const lo = aligned[loCol(i)]?.[idx];
      if (y === undefined && hi === undefined) return;
      const sd = d.series.get(info.key);
      const row = document.createElement('div');
      row.className = 'row';
      const label = document.createElement('span');
      label.textContent = info.label;
      // The value (bucket mean), then the smoothed line's value when smoothing is on.
      const raw = p.smoothing ? sd?.mean[k] : y;
      // one format for the row's numbers: a smoothed 0.24731 beside a raw 0.25 read as noise
      const [rawText, smoothText, loText, hiText] = fmtTogether([raw ?? null, p.smoothing ? (y ?? null) : null, lo ?? null, hi ?? null]);
      row.append(swatch(t, info), label, span('value', rawText));
      if (p.smoothing) row.append(span('smoothed', `${s.smoothed} ${smoothText}`));
      if (hi !== lo && hi != null && lo != null) row.append(span('envelope', `${s.min} ${loText} · ${s.max} ${hiText}`));
      const wall = sd?.wallTime[k];
      if (typeof wall === 'number') row.append(span('wall', `${s.wallTime} ${fmtWall(wall)}`));
      rows.push(row);
    });
    this.el.replaceChildren(...rows);
  }

  /** The runs' colours under the plot when several runs overlay. */
  showKey(series: readonly SeriesInfo[], t: Theme): void {
    if (series.length < 2) {
      this.keyEl.replaceChildren();
      return;
    }
    this.keyEl.replaceChildren(
      ...series.map((info) => {
        const item = document.createElement('span');
        item.className = 'item';
        const label = document.createElement('span');
        label.textContent = info.label;
        item.append(swatch(t, info), label);
        return item;
      }),
    );
  }
}
