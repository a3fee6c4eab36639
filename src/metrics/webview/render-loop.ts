// Draws dirty charts in animation frames, at most FRAME_BUDGET_MS of drawing per frame,
// round robin: 20 charts patched at 10 Hz are spread over the frames between updates
// instead of stalling one frame.
import type { ChartCard } from './chart';

/** Drawing time per animation frame before the rest waits for the next one. */
const FRAME_BUDGET_MS = 6;

export class RenderLoop {
  private pending = false;
  private cursor = 0;

  constructor(
    private readonly cards: () => ChartCard[],
    private readonly onError: (card: ChartCard, e: Error) => void,
  ) {}

  request(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      if (this.drawSome()) this.request();
    });
  }

  /** Draws until the budget is spent; true when some charts wait for the next frame. */
  private drawSome(): boolean {
    const cards = this.cards();
    const t0 = performance.now();
    for (let i = 0; i < cards.length; i++) {
      const c = cards[(this.cursor + i) % cards.length];
      if (!c.dirty || !c.visible) continue;
      if (performance.now() - t0 > FRAME_BUDGET_MS) {
        this.cursor = (this.cursor + i) % cards.length;
        return true;
      }
      try {
        c.render();
      } catch (e) {
        this.onError(c, e as Error);
      }
    }
    return false;
  }
}
