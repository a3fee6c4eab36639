// The metrics store (pure: node fs only, no vscode): every point of every series at full
// resolution, the experience rows, and the relay cursors they came up to — persisted in a
// directory (the extension's storageUri, see store-files.ts) so a window reload or a closed
// panel loses nothing and the relays resume exactly where the store stopped.
//
// Memory bound: points live in typed arrays (24 bytes a point). When the resident columns
// pass `memoryLimitBytes`, the least recently used series are spilled: flushed to their file
// and dropped from memory; they are read back (one sequential read) when a chart or an
// export needs them. Appends to a spilled series go to a small in-memory tail.
import type { Cursor, ExperienceRow } from '../../relay-protocol/messages';
import type { Logger } from '../../base/log';
import { silentLogger } from '../../base/log';
import { Columns } from './columns';
import { ExperienceIndex } from './experiences';
import { Point, PointColumns, Series, SeriesChange, columnsOf, seriesKey } from './series';
import { CursorBook } from './cursors';
import { StoreFiles } from './store-files';
import { EnvelopeBook } from './envelopes';

// The store's callers get its series types from here.
export { Series, seriesKey } from './series';
export type { Point, PointColumns, SeriesChange } from './series';

export interface StoreOptions {
  /** Persistence directory; undefined keeps everything in memory (no bound). */
  dir?: string;
  memoryLimitBytes?: number;
  log?: Logger;
}

export class MetricsStore {
  private readonly map = new Map<string, Series>();
  /** How far each endpoint's sources have been stored (cursors.ts). */
  readonly cursorBook = new CursorBook();
  private exp = new ExperienceIndex();
  private nextFile = 0;
  private clock = 0;
  private residentBytes = 0;
  private readonly log: Logger;
  /** The persistence directory; undefined: memory only. */
  private readonly files: StoreFiles | undefined;
  readonly memoryLimitBytes: number;
  /** Series spilled since creation (stats for tests and the log). */
  spills = 0;
  loads = 0;
  readonly envelopes = new EnvelopeBook(); // envelope-first sources, detail windows, run starts (envelopes.ts)

  constructor(opts: StoreOptions = {}) {
    this.log = opts.log ?? silentLogger;
    this.memoryLimitBytes = opts.memoryLimitBytes ?? 256 * 1024 * 1024;
    if (opts.dir) {
      this.files = new StoreFiles(opts.dir, this.log);
      this.load(this.files);
    }
  }

  // ---- reading -------------------------------------------------------------------------

  get experiences(): ExperienceIndex {
    return this.exp;
  }

  /** Seconds since epoch of a run's first point (NaN when unknown). */
  runStart(run: string): number {
    return this.envelopes.runStarts.get(run) ?? NaN;
  }

  runs(): string[] {
    return [...new Set(this.list().map((s) => s.run))].sort();
  }

  list(): Series[] {
    return [...this.map.values()];
  }

  get(key: string): Series | undefined {
    return this.map.get(key);
  }

  /** All points of a series (reads a spilled series back; marks it recently used). */
  columns(key: string): Columns | undefined {
    const s = this.map.get(key);
    if (!s) return undefined;
    s.lastUsed = ++this.clock;
    if (!s.cols) this.readBack(s);
    return s.cols;
  }

  /**
   * Points [from, length) of a series if they are still in memory (a spilled series keeps
   * its recent appends in its tail), without reading anything back.
   */
  recent(key: string, from: number): { cols: Columns; start: number } | undefined {
    const s = this.map.get(key);
    if (!s) return undefined;
    if (s.cols) return { cols: s.cols, start: from };
    const tailStart = s.length - (s.tail?.length ?? 0);
    return s.tail && from >= tailStart ? { cols: s.tail, start: from - tailStart } : undefined;
  }

  /** Bytes of resident point columns. */
  get memoryBytes(): number {
    return this.residentBytes;
  }

  cursors(endpoint: string): Cursor[] {
    return this.cursorBook.get(endpoint);
  }

  // ---- writing -------------------------------------------------------------------------

  /** Adds points given as objects (tests, benches): see addColumns. */
  add = (run: string, role: string, tag: string, points: Point[]): SeriesChange => this.addColumns(run, role, tag, columnsOf(points));

  /** Adds points of one series as columns (read in place: no per-point object); any order; exact repeats of (step, wallTime) are dropped. */
  addColumns(run: string, role: string, tag: string, points: PointColumns): SeriesChange {
    const key = seriesKey(run, role, tag);
    let s = this.map.get(key);
    if (!s) {
      s = new Series(key, run, role, tag, `${this.nextFile++}.bin`);
      this.map.set(key, s);
      this.residentBytes += s.cols!.bytes;
    }
    s.lastUsed = ++this.clock;
    const startLength = s.length;
    let reordered = false;
    let added = 0;
    const { step, wallTime, value } = points;
    for (let i = 0; i < step.length; i++) {
      const st = step[i];
      const wt = wallTime[i];
      if (s.isAtEnd(st, wt)) {
        this.residentBytes += s.pushEnd(st, wt, value[i]);
      } else {
        if (!s.cols) this.readBack(s);
        const grown = s.insert(st, wt, value[i]);
        if (grown === undefined) continue; // seen
        this.residentBytes += grown;
        reordered = true;
      }
      if (wt < s.firstWall) {
        s.firstWall = wt;
        if (!(this.envelopes.runStarts.get(run)! <= wt)) this.envelopes.runStarts.set(run, wt);
      }
      added++;
    }
    if (reordered) s.version++;
    this.enforceBound(s);
    return { key, appendedFrom: reordered || added === 0 ? undefined : startLength, reordered, added };
  }

  addExperiences(endpoint: string, source: string, run: string, rows: ExperienceRow[]): number {
    return this.experiences.add(endpoint, source, run, rows);
  }

  /** Records how far an endpoint's source has been stored (saved with the points). */
  setCursor(endpoint: string, c: Cursor): void {
    this.cursorBook.set(endpoint, c);
  }

  forgetEndpoint(endpoint: string): void {
    this.cursorBook.forget(endpoint);
  }

  /**
   * Deletes one run: its series, experiences and start, in memory now and on disk at the next
   * flush (a restarted demo run replaces the one before: its points would share the charts).
   */
  forgetRun(run: string): void {
    for (const s of this.list()) {
      if (s.run !== run) continue;
      this.map.delete(s.key);
      this.residentBytes -= (s.cols?.bytes ?? 0) + (s.tail?.bytes ?? 0);
      this.envelopes.forget(s.key);
      this.files?.removeSeries(s);
    }
    this.envelopes.runStarts.delete(run);
    this.exp.forgetRun(run);
  }

  // ---- memory bound --------------------------------------------------------------------

  /** Spills least recently used series until under the bound (never `keep`). */
  enforceBound(keep?: Series): void {
    if (!this.files || this.residentBytes <= this.memoryLimitBytes) return;
    const victims = this.list()
      .filter((s) => s.cols && s !== keep)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const s of victims) {
      if (this.residentBytes <= this.memoryLimitBytes) break;
      this.spill(s);
    }
  }

  private spill(s: Series): void {
    this.residentBytes -= this.files!.writeSeries(s);
    this.residentBytes -= s.cols!.bytes;
    s.cols = undefined;
    this.spills++;
    this.log.debug(`metrics store: spilled ${s.tag} (${s.run}/${s.role}, ${s.length} points)`);
  }

  private readBack(s: Series): void {
    this.residentBytes += s.readBack(this.files!.readSeries(s));
    this.loads++;
    this.enforceBound(s);
  }

  // ---- persistence ---------------------------------------------------------------------

  /** Writes what is new to disk, then the manifest. Synchronous (a few appends). */
  flush(): void {
    const files = this.files;
    if (!files) return;
    try {
      for (const s of this.map.values()) this.residentBytes -= files.writeSeries(s);
      files.writeIndex(
        this.envelopes.saved(this.list()),
        { nextFile: this.nextFile, cursors: this.envelopes.persistable(this.cursorBook.toJSON()) },
        this.experiences,
      );
    } catch (e) {
      this.log.error(`metrics store: cannot write ${files.dir}: ${(e as Error).message}`);
    }
  }

  /** Takes up what a previous session saved (series stay on disk until first used). */
  private load(files: StoreFiles): void {
    const saved = files.load();
    if (!saved) return;
    this.nextFile = saved.nextFile;
    for (const s of saved.series) {
      this.map.set(s.key, s);
      if (!(this.envelopes.runStarts.get(s.run)! <= s.firstWall)) this.envelopes.runStarts.set(s.run, s.firstWall);
    }
    for (const [endpoint, list] of Object.entries(saved.cursors)) for (const c of list) this.setCursor(endpoint, c);
    if (saved.experiences) this.experiences.load(saved.experiences, saved.experienceCount);
    this.log.info(`metrics store: loaded ${this.map.size} series and ${this.experiences.size} experiences from ${files.dir}`);
  }

  /** Deletes every series, experience and cursor (memory and disk). */
  clear(): void {
    this.map.clear();
    this.cursorBook.clear();
    this.residentBytes = 0;
    this.exp = new ExperienceIndex();
    this.envelopes.clear(); // the run starts with it
    this.files?.clear();
  }
}
