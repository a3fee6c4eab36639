// What the extension posts to the webview after the handshake: the layout when charts appear,
// frames of the visible charts, the endpoint status — batched, only while the webview is
// ready, and paced by the page: an update goes out as soon as there is something new and
// the page has drawn the previous one (its `drawn` ack), never closer than
// MIN_UPDATE_INTERVAL_MS, and after DRAWN_TIMEOUT_MS without an ack anyway. A slow page thus
// gets fewer, bigger updates instead of a queue, and a point waits for no fixed timer.
// An update with many full frames (a run opening: 49 charts, 1.7 MB of JSON) goes out as several
// messages of about MESSAGE_CELLS bucket values each, posted one after the other as they are
// built: the page draws the first charts while the others are still built, serialized and
// carried (one message of all took 0.3 s to build and 0.5 s to reach the page before any chart
// drew). Each message is an update with its own seq; the page acks the last one it drew.
import { DRAWN_TIMEOUT_MS, EndpointStatus, HostMessage, MIN_UPDATE_INTERVAL_MS } from '../protocol/view-protocol';
import type { MetricsStore } from '../store/store';
import type { ChartEngine } from './chart-engine';
import { layoutCharts } from './layout';
import type { RunMarks } from './run-marks';
import { runSummaries } from './run-summaries';

/** Bucket values per update message (~250 KB of JSON; a live update's patches stay far below). */
export const MESSAGE_CELLS = 16_000;

export class UpdateFeed {
  private ready = false;
  private layoutDirty = true;
  private statusDirty = true;
  private status: EndpointStatus[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  /** Something changed since the last flush. */
  private wanted = false;
  private seq = 0;
  /** The last update posted that the page has not yet said it drew. */
  private inFlight: { seq: number; at: number } | undefined;
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
    this.inFlight = undefined; // a new page: it will not ack what the old one got
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

  /**
   * Flushes when the page has drawn the last update (or it timed out), no sooner than the
   * floor interval after the last flush, and at the earliest in the next macrotask, so the
   * series of one relay batch go out together.
   */
  schedule(): void {
    if (!this.ready) return;
    this.wanted = true;
    if (this.timer) return;
    const due = this.inFlight ? this.inFlight.at + DRAWN_TIMEOUT_MS : this.lastFlush + MIN_UPDATE_INTERVAL_MS;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.inFlight = undefined; // timed out: the ack was lost, or the page draws no more
        this.flush();
      },
      Math.max(0, due - Date.now()),
    );
  }

  /** The page drew update `seq`: what changed since goes out now (within the floor interval). */
  drawn(seq: number): void {
    if (this.inFlight?.seq !== seq) return; // an older update's ack, or one from before a reload
    this.inFlight = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.wanted) this.schedule();
  }

  /** Posts what changed now (normally called by the paced timer). */
  flush(): void {
    if (!this.ready) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wanted = false;
    this.lastFlush = Date.now();
    const count = this.store.list().length;
    if (this.layoutDirty || count !== this.seriesCount) {
      this.layoutDirty = false;
      this.seriesCount = count;
      const charts = layoutCharts(this.store.list());
      this.engine.setCharts(charts);
      this.post({ type: 'layout', charts, runs: runSummaries(this.store, this.marks) });
    }
    for (;;) {
      const frames = this.engine.collect(MESSAGE_CELLS);
      if (!frames.length && !this.statusDirty) return;
      const msg: HostMessage = { type: 'update', seq: ++this.seq, frames };
      if (this.statusDirty) {
        msg.status = this.status;
        this.statusDirty = false;
      }
      this.sent.updates++;
      this.sent.frames += frames.length;
      this.inFlight = { seq: msg.seq, at: this.lastFlush };
      this.post(msg);
      if (!frames.length) return;
    }
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
