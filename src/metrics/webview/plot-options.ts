// The uPlot options of one chart card (series, envelope bands, axes, scales) from its spec,
// the theme and the view options: the look of a chart, kept apart from the card's DOM and
// its pointer handling.
import type uPlot from 'uplot';
import { ChartSpec } from '../protocol/frames';
import { UiStrings } from '../protocol/ui-strings';
import { ViewOptions, X_AXES, XAxisMode } from '../protocol/view-options';
import { yAxisSize } from './axis-size';
import { fmtDuration, fmtTick } from './format';
import { Theme, seriesColor, withAlpha } from './theme';
import { hiCol, loCol } from './plot-data';

export const PLOT_HEIGHT = 180;

const STEP_INCRS = [1, 2, 5].flatMap((m) => Array.from({ length: 10 }, (_, e) => m * 10 ** e)).sort((a, b) => a - b);

let measureCanvas: CanvasRenderingContext2D | undefined;
function measureCtx(): CanvasRenderingContext2D {
  return (measureCanvas ??= document.createElement('canvas').getContext('2d')!);
}

/** Per series: the line, then its max and min drawn faintly with the band between them filled. */
function plotSeries(spec: ChartSpec, t: Theme, o: ViewOptions, strings: UiStrings): { series: uPlot.Series[]; bands: uPlot.Band[] } {
  const series: uPlot.Series[] = [{}];
  const bands: uPlot.Band[] = [];
  spec.series.forEach((s, i) => {
    const c = seriesColor(t, s.color);
    const dash = s.dashed ? [6, 3] : undefined;
    series.push({ label: s.label, stroke: c, width: 1.75, dash, points: { show: false }, spanGaps: false });
    const faint = { stroke: withAlpha(c, 0.4), width: 1, points: { show: false }, spanGaps: false, show: o.band };
    series.push({ label: `${s.label} ${strings.max}`, ...faint }, { label: `${s.label} ${strings.min}`, ...faint });
    if (o.band) bands.push({ series: [hiCol(i), loCol(i)], fill: withAlpha(c, 0.14) });
  });
  return { series, bands };
}

function plotAxes(t: Theme, mode: XAxisMode): uPlot.Axis[] {
  const axis = (): uPlot.Axis => ({
    stroke: t.muted,
    font: t.font,
    grid: { stroke: t.grid, width: 1 },
    ticks: { stroke: t.grid, width: 1 },
  });
  const xAxis: uPlot.Axis = axis();
  if (mode === 'relative') xAxis.values = (_u, vals) => vals.map((v) => fmtDuration(v));
  if (mode === 'step') xAxis.values = (_u, vals) => vals.map((v) => (Math.abs(v) >= 1e5 ? `${Number((v / 1000).toPrecision(4))}k` : String(v)));
  // Steps are integers: no 0.5 / 1.5 ticks while a run has only a few steps.
  if (mode === 'step') xAxis.incrs = STEP_INCRS;
  // Sized to the widest label (minus signs, exponents), re-measured on every redraw.
  // (A canvas of our own: uPlot caches its context's font.)
  const ctx = measureCtx();
  const measure = (s: string) => {
    ctx.font = t.font;
    return ctx.measureText(s).width;
  };
  const yAxis: uPlot.Axis = {
    ...axis(),
    size: (_u, values) => yAxisSize(values, measure),
    values: (_u, vals) => vals.map((v) => fmtTick(v)),
  };
  return [xAxis, yAxis];
}

/** uPlot options for a chart of `width` CSS px; the card adds its hooks. */
export function plotOptions(spec: ChartSpec, t: Theme, o: ViewOptions, strings: UiStrings, mode: XAxisMode, width: number): uPlot.Options {
  const { series, bands } = plotSeries(spec, t, o, strings);
  return {
    width,
    height: PLOT_HEIGHT,
    series,
    bands,
    legend: { show: false },
    scales: { x: { time: X_AXES[mode].time }, y: { distr: o.logScale ? 3 : 1 } },
    axes: plotAxes(t, mode),
    cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
  };
}
