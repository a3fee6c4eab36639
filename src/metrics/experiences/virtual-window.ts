// Which rows of a long list to put in the DOM: those in the scroll viewport plus a margin,
// with spacers standing in for the rest, so a list of 10⁶ rollouts costs as much as one
// screenful. Rows have a fixed height. Pure.

export interface WindowPlan {
  /** Rows [start, end) are rendered. */
  start: number;
  end: number;
  /** Heights (px) of the spacers above and below them. */
  before: number;
  after: number;
}

export function planWindow(count: number, scrollTop: number, viewport: number, rowHeight: number, overscan = 10): WindowPlan {
  const first = Math.max(0, Math.min(count, Math.floor(Math.max(0, scrollTop) / rowHeight) - overscan));
  const end = Math.max(first, Math.min(count, Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewport)) / rowHeight) + overscan));
  return { start: first, end, before: first * rowHeight, after: (count - end) * rowHeight };
}
