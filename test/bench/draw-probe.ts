// Instruments the metrics webview page to report when each chart card has drawn, and how
// many points the drawn data stands for, without hooks in the product: a card's render
// writes its point count into the card header (`.card .meta`, "100,000 points") right before
// uPlot draws in the same animation frame (or its microtask), so a MutationObserver on those
// headers says which cards rendered, and a microtask queued after each animation-frame
// callback (after uPlot's) stamps the moment the drawing is done. It also notes when messages
// with frames arrive. Times are Date.now() of the page, the same machine clock as the bench
// process.
import type { Page } from 'playwright-core';

export interface DrawEvent {
  chart: string;
  /** Points the drawn data covers (the host's count for the chart, as the header shows it). */
  points: number;
  /** Date.now() when the drawing was done. */
  t: number;
  /** Work of the animation frame that drew it (ms, uPlot's microtask included) and how many cards it drew. */
  frameMs: number;
  inFrame: number;
}

// Page-side code as a string: the node build has no DOM types.
const PROBE = `(() => {
  const events = [];
  const arrivals = [];
  window.__draws = { events, arrivals };
  // Frames as they arrive (capture phase: before the view handles them).
  window.addEventListener('message', (e) => {
    const frames = e.data && Array.isArray(e.data.frames) ? e.data.frames : [];
    const x = (f) => (typeof f.origin === 'number' && typeof f.dx === 'number' && typeof f.n === 'number' ? [f.origin, f.origin + f.n * f.dx] : undefined);
    if (frames.length) arrivals.push({ t: Date.now(), frames: frames.map((f) => ({ chart: f.chart, points: f.points, x: x(f) })) });
  }, true);
  const pending = new Map();
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const meta = el && el.closest('.meta');
      const card = meta && meta.closest('.card');
      if (!card || !card.dataset.chart) continue;
      const digits = (meta.textContent || '').replace(/[^0-9]/g, '');
      pending.set(card.dataset.chart, digits ? Number(digits) : 0);
    }
  }).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) =>
    raf((t) => {
      const s = performance.now();
      cb(t);
      // Queued after the observer's delivery and uPlot's draw (both queued during cb).
      queueMicrotask(() => {
        if (!pending.size) return;
        const now = Date.now();
        const ms = performance.now() - s;
        for (const [chart, points] of pending) events.push({ chart, points, t: now, frameMs: ms, inFrame: pending.size });
        pending.clear();
      });
    });
})()`;

/** Installs the probe (before the data starts to flow). */
export async function instrumentDraws(page: Page): Promise<void> {
  await page.evaluate(PROBE);
}

/** The draw events since the last call. */
export function takeDraws(page: Page): Promise<DrawEvent[]> {
  return page.evaluate(() => (globalThis as unknown as { __draws: { events: DrawEvent[] } }).__draws.events.splice(0));
}

/** A message with frames as it reached the page: when, and each frame's chart and point count. */
export interface FrameArrival {
  t: number;
  /** x: the range of the chart's grid after this frame (origin … origin + n·dx), when the frame says. */
  frames: { chart: string; points: number; x?: [number, number] }[];
}

/** The frame arrivals since the last call. */
export function takeArrivals(page: Page): Promise<FrameArrival[]> {
  return page.evaluate(() => (globalThis as unknown as { __draws: { arrivals: FrameArrival[] } }).__draws.arrivals.splice(0));
}
