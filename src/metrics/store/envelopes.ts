// What the store holds of a run opened envelope-first: per series, the relay's
// envelope of each source it came from (every point summarized in step buckets, as typed
// columns), and the detail window last read for a zoom (exact points, or a finer envelope).
// The series' own columns hold only the live points that followed the envelope's cursor, so
// envelope + window + live points never count a point twice. Envelopes are not persisted: a
// reload opens the source envelope-first again (store.ts leaves their cursors out).
import type { DetailMessage } from '../../relay-protocol/envelope';
import type { Cursor } from '../../relay-protocol/messages';
import { fromWireNumber } from '../../relay-protocol/messages';
import { EnvelopeArrays, EnvelopeBatch, envelopeArrays } from '../../relay-protocol/envelope-frame';

/** Envelope buckets as typed columns (min/max ±Infinity where no value was finite). */
export interface PackedEnvelope {
  width: number;
  length: number;
  count: Float64Array;
  /** Finite values per bucket (count less NaN and ±Inf). */
  finite: Float64Array;
  min: Float64Array;
  max: Float64Array;
  sum: Float64Array;
  firstStep: Float64Array;
  firstValue: Float64Array;
  firstWall: Float64Array;
  lastStep: Float64Array;
  lastValue: Float64Array;
  lastWall: Float64Array;
}

/** The store's form of typed envelope columns: the same arrays (no copy), plus finite counts. */
function packEnvelope(c: EnvelopeArrays): PackedEnvelope {
  const n = c.bucket.length;
  const finite = new Float64Array(n);
  for (let i = 0; i < n; i++) finite[i] = c.count[i] - c.nan[i] - c.posInf[i] - c.negInf[i];
  const { width, count, min, max, sum, firstStep, firstValue, firstWall, lastStep, lastValue, lastWall } = c;
  return { width, length: n, count, finite, min, max, sum, firstStep, firstValue, firstWall, lastStep, lastValue, lastWall };
}

/** Bytes of a packed envelope (the store's memory figure). */
/** (14 columns as received, which share one buffer when they came as a frame, and the finite counts.) */
const envelopeBytes = (e: PackedEnvelope): number => e.length * 15 * 8;

/** The envelope of one source's part of a series. */
export interface SourceEnvelope {
  endpoint: string;
  source: string;
  /** The relay's position the envelope covers up to (a detail request names it). */
  cursor: Cursor;
  points: number;
  env: PackedEnvelope;
}

/** Points [from, to] of one source's part of a series, read on demand. */
export interface DetailWindow {
  endpoint: string;
  source: string;
  from: number;
  to: number;
  /** Exact points (file order) … */
  points?: { step: Float64Array; wallTime: Float64Array; value: Float64Array };
  /** … or a finer envelope of the range. */
  env?: PackedEnvelope;
}

export function detailWindow(endpoint: string, m: DetailMessage): DetailWindow {
  const w: DetailWindow = { endpoint, source: m.source, from: m.from, to: m.to };
  if (m.points)
    w.points = {
      step: Float64Array.from(m.points.step),
      wallTime: Float64Array.from(m.points.wallTime),
      value: Float64Array.from(m.points.value, fromWireNumber),
    };
  else if (m.envelope) w.env = packEnvelope(envelopeArrays(m.envelope));
  return w;
}

const sourceKey = (endpoint: string, source: string) => `${endpoint}\n${source}`;

export class EnvelopeBook {
  private readonly bySeries = new Map<string, Map<string, SourceEnvelope>>();
  private readonly windows = new Map<string, Map<string, DetailWindow>>();
  /** endpoint\nsource of every source opened envelope-first. */
  private readonly sources = new Set<string>();
  /**
   * Per run: the earliest wall time of any of its points, envelope or streamed (origin of the
   * relative axis). The store keeps it here (store.ts) so that clearing one clears both.
   */
  readonly runStarts = new Map<string, number>();
  bytes = 0;

  /** Takes up a tag's envelope of `run` (a newer one of the same source replaces it). */
  set(key: string, endpoint: string, m: EnvelopeBatch, run: string): void {
    let m1 = this.bySeries.get(key);
    if (!m1) this.bySeries.set(key, (m1 = new Map<string, SourceEnvelope>()));
    const sk = sourceKey(endpoint, m.source);
    const old = m1.get(sk);
    if (old) this.bytes -= envelopeBytes(old.env);
    const env = packEnvelope(m.env);
    this.bytes += envelopeBytes(env);
    m1.set(sk, { endpoint, source: m.source, cursor: m.cursor, points: m.points, env });
    this.windows.get(key)?.delete(sk); // it was read against the old envelope's cursor
    this.sources.add(sk);
    const wall = env.firstWall.reduce((a, b) => Math.min(a, b), Infinity);
    if (!(this.runStarts.get(run)! <= wall)) this.runStarts.set(run, wall);
  }

  /** The series a store saves: not those of envelope-first sources (a reload opens them envelope-first again). */
  saved<T extends { key: string }>(series: T[]): T[] {
    return series.filter((s) => !this.has(s.key));
  }

  /** Every endpoint's cursors but those of envelope-first sources (the store's manifest). */
  persistable(cursors: Record<string, Cursor[]>): Record<string, Cursor[]> {
    return Object.fromEntries(Object.entries(cursors).map(([e, list]) => [e, list.filter((c) => !this.isEnvelopeSource(e, c.source))]));
  }

  has(key: string): boolean {
    return this.bySeries.has(key);
  }

  /** The envelopes of a series, one per source. */
  of(key: string): SourceEnvelope[] {
    return [...(this.bySeries.get(key)?.values() ?? [])];
  }

  /** Points the envelopes of a series summarize. */
  points(key: string): number {
    let n = 0;
    for (const e of this.bySeries.get(key)?.values() ?? []) n += e.points;
    return n;
  }

  /** Whether an endpoint's source was opened envelope-first (its cursor is not persisted). */
  isEnvelopeSource(endpoint: string, source: string): boolean {
    return this.sources.has(sourceKey(endpoint, source));
  }

  /** Keeps the detail window of one source of a series (the latest replaces the previous: bounded). */
  setWindow(key: string, w: DetailWindow): void {
    let m = this.windows.get(key);
    if (!m) this.windows.set(key, (m = new Map<string, DetailWindow>()));
    m.set(sourceKey(w.endpoint, w.source), w);
  }

  window(key: string, endpoint: string, source: string): DetailWindow | undefined {
    return this.windows.get(key)?.get(sourceKey(endpoint, source));
  }

  /** Drops a series' envelopes and detail windows (its run was forgotten). */
  forget(key: string): void {
    for (const e of this.bySeries.get(key)?.values() ?? []) this.bytes -= envelopeBytes(e.env);
    this.bySeries.delete(key);
    this.windows.delete(key);
  }

  clear(): void {
    this.bySeries.clear();
    this.windows.clear();
    this.sources.clear();
    this.runStarts.clear();
    this.bytes = 0;
  }
}
