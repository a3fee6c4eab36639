// The view's side of envelope-first sources: takes a tag's envelope into the
// store (its series appears; its chart then shows every point's min and max), and, for a
// zoomed chart, asks the relay once per (series, source, range) for the exact points the
// envelope cannot show, kept as the series' detail window when they arrive. Pure.
import type { Logger } from '../../base/log';
import type { DetailMessage, DetailRequestMessage } from '../../relay-protocol/envelope';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import { detailWindow } from '../store/envelopes';
import type { MetricsStore } from '../store/store';
import type { DetailNeed } from './envelope-feed';

export type ReadDetail = (endpoint: string, q: Omit<DetailRequestMessage, 'type' | 'request'>) => Promise<DetailMessage>;

export class EnvelopeView {
  /** Reads under way, asked once each. */
  private readonly pending = new Set<string>();

  constructor(
    private readonly store: MetricsStore,
    /** Without it, a zoom shows the envelope (no exact points). */
    private readonly readDetail: ReadDetail | undefined,
    private readonly log: Logger,
    /** Series `key` changed wholesale (`layout`: it may be new): its chart is to be rebuilt and posted. */
    private readonly changed: (key: string, layout: boolean) => void,
  ) {}

  /** A tag's envelope from a relay (run: the name its endpoint gives the run). */
  ingest(endpoint: string, m: EnvelopeBatch, run = m.run): void {
    const { key } = this.store.add(run, m.role, m.tag, []);
    this.store.envelopes.set(key, endpoint, m, run);
    this.store.setCursor(endpoint, m.cursor);
    this.changed(key, true);
  }

  need(n: DetailNeed): void {
    const id = JSON.stringify([n.key, n.endpoint, n.source, n.from, n.to]);
    const read = this.readDetail;
    if (!read || this.pending.has(id)) return;
    this.pending.add(id);
    const { endpoint, source, tag, from, to, maxPoints, cursor } = n;
    read(endpoint, { source, tag, from, to, maxPoints, cursor }).then(
      (m) => {
        this.pending.delete(id);
        this.store.envelopes.setWindow(n.key, detailWindow(endpoint, m));
        this.changed(n.key, false);
      },
      (e: unknown) => {
        this.pending.delete(id);
        this.log.debug(`metrics view: detail of ${tag} [${from}, ${to}]: ${e instanceof Error ? e.message : String(e)}`);
      },
    );
  }

  /** Reads under way (tests). */
  get inFlight(): number {
    return this.pending.size;
  }
}
