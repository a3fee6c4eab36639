// Width of a chart's y axis from the labels it draws: a fixed width clipped long labels
// ("−0.025" drew as "0.025"; exponents and long ticks lost their first characters).
// Pure, shared by the webview (uPlot's axis `size` callback) and its tests.

/** Tick length + gap between tick and label + a margin at the left edge (CSS px). */
export const AXIS_PAD = 14;
const AXIS_MIN = 32;

/**
 * The axis width that fits the widest label. `measure` returns a label's width in CSS px
 * (canvas measureText in the webview). Labels may be null (uPlot's first pass).
 */
export function yAxisSize(labels: readonly (string | null | undefined)[] | null | undefined, measure: (s: string) => number): number {
  let widest = 0;
  for (const l of labels ?? []) if (l) widest = Math.max(widest, measure(l));
  return Math.max(AXIS_MIN, Math.ceil(widest + AXIS_PAD));
}
