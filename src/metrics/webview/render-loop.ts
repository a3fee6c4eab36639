// Draws dirty charts in animation frames and tells the extension when an update is on screen.
// The cards an update brought new data for (the live tail) are drawn first, in the next
// animation frame, within LIVE_BUDGET_MS; then the `drawn` ack goes out, and the extension posts
// the next update (update-feed.ts: the page paces the updates). Other dirty cards (a restyle,
// cards scrolled into view, a big layout) are drawn round robin within FRAME_BUDGET_MS per
// frame, so many cards at once are spread over frames instead of stalling one.
// Cards without a plot yet (a run opening, a restyle, cards back from far off screen) are built
// within the wider BUILD_BUDGET_MS: each animation frame that draws ends in a commit, and
// without a GPU Chromium's compositor then copies out every canvas on screen that was ever drawn,
// changed or not (Canvas2DResourceProvider::ProduceCanvasResource, ~0.4 ms a chart here, once per
// drawn canvas per commit in a trace). Opening a run built its 48 cards one a frame: 48 frame
// intervals and ~700 canvas copies (quadratic in the cards), 1.3 s after the data was there.
import type { ChartCard } from './chart';

/** Drawing time per animation frame for an update's cards (the rest waits for the next frame). */
const LIVE_BUDGET_MS = 12;
/** Drawing time per animation frame for other dirty cards. */
const FRAME_BUDGET_MS = 6;
/** Building time per animation frame for cards without a plot (at most a long task: input still gets through). */
const BUILD_BUDGET_MS = 50;

export class RenderLoop {
  private pending = false;
  private cursor = 0;
  /** Cards with new data from updates, not drawn yet (insertion order: oldest update first). */
  private readonly live = new Set<ChartCard>();
  /** The newest update whose cards are not all drawn yet. */
  private unacked: number | undefined;

  constructor(
    private readonly cards: () => ChartCard[],
    private readonly onError: (card: ChartCard, e: Error) => void,
    /** Update `seq` and all before it are drawn. */
    private readonly drawn: (seq: number) => void,
  ) {}

  /** An update was applied to these cards: they are drawn next frame, then `seq` is acked. */
  update(seq: number | undefined, cards: (ChartCard | undefined)[]): void {
    for (const c of cards) if (c) this.live.add(c);
    if (seq !== undefined) this.unacked = seq;
    this.request();
  }

  request(): void {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      const more = this.drawSome();
      if (!this.live.size && this.unacked !== undefined) {
        const seq = this.unacked;
        this.unacked = undefined;
        // After the microtasks this frame queued (uPlot's), when the frame's drawing is done.
        queueMicrotask(() => this.drawn(seq));
      }
      if (more) this.request();
    });
  }

  /** Draws the live cards, then the others, until the budgets are spent; true when some wait. */
  private drawSome(): boolean {
    const t0 = performance.now();
    const cards = this.cards();
    // Every width this frame may use is read before any card draws (one layout at most).
    for (const c of this.live) if (c.dirty && c.visible) c.measure();
    for (const c of cards) if (c.dirty && c.visible) c.measure();
    for (const c of this.live) {
      if (performance.now() - t0 > (c.built ? LIVE_BUDGET_MS : BUILD_BUDGET_MS)) return true;
      this.live.delete(c);
      // (A card a layout removed since is no longer connected.)
      if (c.dirty && c.visible && c.el.isConnected) this.draw(c);
    }
    for (let i = 0; i < cards.length; i++) {
      const c = cards[(this.cursor + i) % cards.length];
      if (!c.dirty || !c.visible) continue;
      if (performance.now() - t0 > (c.built ? FRAME_BUDGET_MS : BUILD_BUDGET_MS)) {
        this.cursor = (this.cursor + i) % cards.length;
        return true;
      }
      this.draw(c);
    }
    return false;
  }

  private draw(c: ChartCard): void {
    try {
      c.render();
    } catch (e) {
      this.onError(c, e as Error);
    }
  }
}
