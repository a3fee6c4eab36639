// Polls one cluster without hammering its dashboard: at most one refresh in flight, a short
// interval while the view is visible, a long one while hidden, and exponential backoff while
// the dashboard fails. Pure timing logic: the refresh itself is a callback.

export interface PollerOptions {
  visibleMs?: number;
  hiddenMs?: number;
  maxBackoffMs?: number;
  /** Timer functions (tests). */
  setTimer?: (f: () => void, ms: number) => unknown;
  clearTimer?: (h: unknown) => void;
}

export class Poller {
  private timer: unknown;
  private inFlight = false;
  private visible = false;
  private failures = 0;
  private stopped = false;
  private again = false;
  /** Refreshes started (the bench reports requests per minute from the client's count). */
  refreshes = 0;

  constructor(
    private readonly refresh: () => Promise<void>,
    private readonly opts: PollerOptions = {},
  ) {}

  /** The delay before the next refresh in the current state. */
  nextDelay(): number {
    const base = this.visible ? (this.opts.visibleMs ?? 3000) : (this.opts.hiddenMs ?? 60_000);
    if (this.failures === 0) return base;
    return Math.min(this.opts.maxBackoffMs ?? 120_000, base * 2 ** Math.min(this.failures, 10));
  }

  get backingOff(): boolean {
    return this.failures > 0;
  }

  setVisible(v: boolean): void {
    const was = this.visible;
    this.visible = v;
    if (v && !was) this.now();
    else this.schedule();
  }

  /** Refresh as soon as possible (coalesced with one already in flight). */
  now(): void {
    if (this.stopped) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.clear();
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private clear() {
    if (this.timer !== undefined) (this.opts.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout)))(this.timer);
    this.timer = undefined;
  }

  private schedule() {
    if (this.stopped || this.inFlight) return;
    this.clear();
    this.timer = (this.opts.setTimer ?? ((f, ms) => setTimeout(f, ms)))(() => {
      this.timer = undefined;
      void this.run();
    }, this.nextDelay());
  }

  private async run() {
    if (this.inFlight || this.stopped) return;
    this.inFlight = true;
    this.refreshes++;
    try {
      await this.refresh();
      this.failures = 0;
    } catch {
      this.failures++;
    } finally {
      this.inFlight = false;
    }
    if (this.again) {
      this.again = false;
      void this.run();
    } else this.schedule();
  }
}
