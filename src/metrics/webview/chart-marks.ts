// Vertical lines for a run's marked events (online-training commits) on a chart: one dashed
// line per mark at its x (its step, or its wall time on the time axes), labelled once at the
// top. Drawn in uPlot's draw hook, over the series, so a mark is visible at any zoom.
import type uPlot from 'uplot';
import type { RunMark } from '../protocol/frames';
import type { XAxisMode } from '../protocol/view-options';

/** What the marks hook reads from the page. */
export interface MarksPort {
  /** The marks of the runs plotted on this chart, with each run's first wall time. */
  marks(runs: readonly string[]): { mark: RunMark; start: number }[];
  label: string;
  color(): string;
}

/** Where a mark goes on an axis of this mode. */
function markX(mark: RunMark, mode: XAxisMode, start: number): number {
  return mode === 'step' ? mark.step : mode === 'wall' ? mark.wallTime : mark.wallTime - start;
}

export function marksHook(src: MarksPort, runs: readonly string[], mode: () => XAxisMode): uPlot.Hooks.Arrays {
  return {
    draw: [
      (u) => {
        const list = src.marks(runs);
        if (!list.length) return;
        const ctx = u.ctx;
        const { top, height, left, width } = u.bbox;
        ctx.save();
        ctx.strokeStyle = src.color();
        ctx.fillStyle = src.color();
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.font = `${10 * devicePixelRatio}px sans-serif`;
        let labelled = false;
        for (const { mark, start } of list) {
          const x = Math.round(u.valToPos(markX(mark, mode(), start), 'x', true));
          if (x < left || x > left + width) continue;
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          if (!labelled) ctx.fillText(src.label, x + 3 * devicePixelRatio, top + 10 * devicePixelRatio);
          labelled = true;
        }
        ctx.restore();
      },
    ],
  };
}
