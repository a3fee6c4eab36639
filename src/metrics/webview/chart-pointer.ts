// What the pointer does on a chart, apart from drawing it: hovering shows the legend, a
// drag along x zooms (the extension rebuilds the grid for the range), a double-click resets the
// zoom, a click (not a drag) on a step drills down to its rollouts.
import type uPlot from 'uplot';

/** Where the pointer is: the x position under it, and its y in CSS px over the plot. */
export interface PointerAt {
  idx: number;
  top: number;
  /** A y value's position (CSS px), to find the line nearest the pointer. */
  toPos: (v: number) => number;
}

/** What the pointer tells its card. */
export interface PointerEvents {
  hover(idx: number): void;
  leave(): void;
  zoom(range: [number, number] | null): void;
  click(at: PointerAt): void;
}

/** Narrower drags and longer click moves than this (CSS px) are neither zoom nor click. */
const MIN_DRAG_PX = 3;

/** uPlot hooks for hover and drag-to-zoom. */
export function pointerHooks(h: PointerEvents): uPlot.Hooks.Arrays {
  return {
    setCursor: [
      (u) => {
        const idx = u.cursor.idx;
        if (idx !== null && idx !== undefined) h.hover(idx);
      },
    ],
    setSelect: [
      (u) => {
        if (u.select.width < MIN_DRAG_PX) return;
        const a = u.posToVal(u.select.left, 'x');
        const b = u.posToVal(u.select.left + u.select.width, 'x');
        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        h.zoom([Math.min(a, b), Math.max(a, b)]);
      },
    ],
  };
}

/** Click, double-click and leave on the plot's overlay. */
export function attachPointer(u: uPlot, h: PointerEvents): void {
  let downX = NaN;
  u.over.addEventListener('mousedown', (e) => (downX = e.clientX));
  u.over.addEventListener('click', (e) => {
    // (Negated: no mousedown seen yet, NaN, is not a click either.)
    if (!(Math.abs(e.clientX - downX) < MIN_DRAG_PX)) return;
    const idx = u.cursor.idx;
    if (idx === null || idx === undefined) return;
    h.click({ idx, top: u.cursor.top ?? 0, toPos: (v) => u.valToPos(v, 'y') });
  });
  u.over.addEventListener('dblclick', () => h.zoom(null));
  u.over.addEventListener('mouseleave', () => h.leave());
}
