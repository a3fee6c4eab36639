// What the host posts to the webview after the handshake: the layout when charts appear,
// frames of the visible charts, the endpoint status — batched, at most
// MAX_UPDATES_PER_SECOND times a second, and only while the webview is ready.
import { EndpointStatus, HostMessage, MAX_UPDATES_PER_SECOND } from '../../shared/metrics-protocol';
import type { MetricsStore } from '../store/store';
import type { ChartEngine } from './chart-engine';
import { layoutCharts } from './layout';
import type { RunMarks } from './run-marks';
import { runSummaries } from './run-summaries';

export class UpdateFeed {
  private ready = false;
  private layoutDirty = true;
  private statusDirty = true;
  private status: EndpointStatus[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private seriesCount = -1;
  private readonly taps = new Set<(m: HostMessage) => void>();
  /** Messages posted (tests and the bench read it). */
  readonly sent = { updates: 0, frames: 0, bytes: 0 };

  constructor(
    private readonly store: MetricsStore,
    private readonly engine: ChartEngine,
    private readonly send: (msg: HostMessage) => void,
    private readonly marks?: RunMarks,
  ) {}

  get isReady(): boolean {
    return this.ready;
  }

  /** The webview said `ready`: everything goes out afresh from now on. */
  start(): void {
    this.ready = true;
    this.layoutDirty = true;
    this.statusDirty = true;
    this.seriesCount = -1;
  }

  /** The webview went away: nothing is posted until it is ready again. */
  stop(): void {
    this.ready = false;
  }

  /** Series appeared or run summaries changed: the layout goes out with the next flush. */
  layoutChanged(): void {
    this.layoutDirty = true;
  }

  setStatus(status: EndpointStatus[]): void {
    this.status = status;
    this.statusDirty = true;
  }

  /** Flushes within the rate limit. */
  schedule(): void {
    if (!this.ready || this.timer) return;
    const wait = Math.max(0, this.lastFlush + 1000 / MAX_UPDATES_PER_SECOND - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  /** Posts what changed now (normally called by the ≤ 10 Hz timer). */
  flush(): void {
    if (!this.ready) return;
    this.lastFlush = Date.now();
    const count = this.store.list().length;
    if (this.layoutDirty || count !== this.seriesCount) {
      this.layoutDirty = false;
      this.seriesCount = count;
      const charts = layoutCharts(this.store.list());
      this.engine.setCharts(charts);
      this.post({ type: 'layout', charts, runs: runSummaries(this.store, this.marks) });
    }
    const frames = this.engine.collect();
    if (!frames.length && !this.statusDirty) return;
    const msg: HostMessage = { type: 'update', frames };
    if (this.statusDirty) {
      msg.status = this.status;
      this.statusDirty = false;
    }
    this.sent.updates++;
    this.sent.frames += frames.length;
    this.post(msg);
  }

  post(msg: HostMessage): void {
    this.send(msg);
    for (const t of this.taps) t(msg);
  }

  /** Observes what is posted to the webview (tests, diagnostics); returns the unsubscribe. */
  tap(cb: (m: HostMessage) => void): () => void {
    this.taps.add(cb);
    return () => this.taps.delete(cb);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
