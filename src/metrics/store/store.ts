// The metrics store (pure: node fs only, no vscode): every point of every series at full
// resolution, the experience rows, and the relay cursors they came up to — persisted in a
// directory (the extension's storageUri) so a window reload or a closed panel loses nothing
// and the relays resume exactly where the store stopped.
//
// Memory bound: points live in typed arrays (24 bytes a point). When the resident columns
// pass `memoryLimitBytes`, the least recently used series are spilled: flushed to their file
// and dropped from memory; they are read back (one sequential read) when a chart or an
// export needs them. Appends to a spilled series go to a small in-memory tail.
//
// Layout of `dir`:
//   manifest.json        series list with their persisted point counts, cursors, runs
//   series/<n>.bin       24-byte records (step, wall, value; float64 LE), sorted
//   experiences.jsonl    experience rows, one JSON object a line
// The manifest is written (atomically, via rename) after the data files, so it never
// claims more than is on disk; extra bytes after a crash are ignored and overwritten.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cursor, ExperienceRow } from '../../shared/relay-protocol';
import type { Logger } from '../../shared/log';
import { silentLogger } from '../../shared/log';
import { Columns, RECORD_BYTES } from './columns';
import { ExperienceIndex } from '../view/experiences';

export interface Point {
  step: number;
  /** Seconds since epoch. */
  wall: number;
  value: number;
}

export function seriesKey(run: string, role: string, tag: string): string {
  return JSON.stringify([run, role, tag]);
}

export class Series {
  /** Points in total (resident, on disk or in the tail). */
  length = 0;
  /** All points, when resident. */
  cols: Columns | undefined = new Columns();
  /** Points appended while spilled (not on disk yet). */
  tail: Columns | undefined;
  /** Points [0, persisted) are in the file, in order. */
  persisted = 0;
  /** The file must be rewritten (a point was inserted before the persisted end). */
  rewrite = false;
  firstWall = Infinity;
  lastStep = -Infinity;
  lastWall = -Infinity;
  /** Bumped when a point lands anywhere but at the end: charts rebuild instead of patching. */
  version = 0;
  lastUsed = 0;

  constructor(
    readonly key: string,
    readonly run: string,
    readonly role: string,
    readonly tag: string,
    readonly file: string,
  ) {}

  get resident(): boolean {
    return this.cols !== undefined;
  }
}

/** What one `add` changed in a series. */
export interface SeriesChange {
  key: string;
  /** Index of the first new point when all new points were appended at the end. */
  appendedFrom?: number;
  /** Points were inserted before the end (series.version changed). */
  reordered: boolean;
  added: number;
}

export interface StoreOptions {
  /** Persistence directory; undefined keeps everything in memory (no bound). */
  dir?: string;
  memoryLimitBytes?: number;
  log?: Logger;
}

interface Manifest {
  version: 1;
  nextFile: number;
  series: { key: string; run: string; role: string; tag: string; file: string; count: number; firstWall: number | null; lastStep: number | null; lastWall: number | null }[];
  cursors: Record<string, Cursor[]>;
  experiences: number;
}

const MANIFEST = 'manifest.json';
const EXPERIENCES = 'experiences.jsonl';

export class MetricsStore {
  private readonly map = new Map<string, Series>();
  private readonly cursorMap = new Map<string, Map<string, Cursor>>();
  private exp = new ExperienceIndex();
  /** Per run: the earliest wall time of any of its points (origin of relative time). */
  private readonly starts = new Map<string, number>();
  private nextFile = 0;
  private clock = 0;
  private residentBytes = 0;
  private readonly log: Logger;
  readonly memoryLimitBytes: number;
  /** Series spilled since creation (stats for tests and the log). */
  spills = 0;
  loads = 0;

  constructor(private readonly opts: StoreOptions = {}) {
    this.log = opts.log ?? silentLogger;
    this.memoryLimitBytes = opts.memoryLimitBytes ?? 256 * 1024 * 1024;
    if (opts.dir) {
      fs.mkdirSync(path.join(opts.dir, 'series'), { recursive: true });
      this.load();
    }
  }

  // ---- reading -------------------------------------------------------------------------

  get experiences(): ExperienceIndex {
    return this.exp;
  }

  /** Seconds since epoch of a run's first point (NaN when unknown). */
  runStart(run: string): number {
    return this.starts.get(run) ?? NaN;
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
    return [...(this.cursorMap.get(endpoint)?.values() ?? [])].map((c) => ({ ...c }));
  }

  // ---- writing -------------------------------------------------------------------------

  /** Adds points of one series (any order; exact duplicates of (step, wall) are dropped). */
  add(run: string, role: string, tag: string, points: Point[]): SeriesChange {
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
    for (const p of points) {
      const atEnd = p.step > s.lastStep || (p.step === s.lastStep && p.wall > s.lastWall);
      if (atEnd) {
        this.pushEnd(s, p);
      } else {
        if (!s.cols) this.readBack(s);
        const c = s.cols!;
        const i = c.lowerBound(p.step, p.wall);
        if (i < c.length && c.step[i] === p.step && c.wall[i] === p.wall) continue; // seen
        const before = c.bytes;
        c.insert(i, p.step, p.wall, p.value);
        this.residentBytes += c.bytes - before;
        s.length++;
        if (i < s.persisted) s.rewrite = true;
        reordered = true;
      }
      if (p.wall < s.firstWall) {
        s.firstWall = p.wall;
        if (!(this.starts.get(run)! <= p.wall)) this.starts.set(run, p.wall);
      }
      added++;
    }
    if (reordered) s.version++;
    this.enforceBound(s);
    return { key, appendedFrom: reordered || added === 0 ? undefined : startLength, reordered, added };
  }

  private pushEnd(s: Series, p: Point): void {
    const c = s.cols ?? (s.tail ??= new Columns());
    const before = c.bytes;
    c.push(p.step, p.wall, p.value);
    this.residentBytes += c.bytes - before;
    s.length++;
    s.lastStep = p.step;
    s.lastWall = p.wall;
  }

  addExperiences(endpoint: string, source: string, run: string, rows: ExperienceRow[]): number {
    return this.experiences.add(endpoint, source, run, rows);
  }

  /** Records how far an endpoint's source has been stored (saved with the points). */
  setCursor(endpoint: string, c: Cursor): void {
    let m = this.cursorMap.get(endpoint);
    if (!m) this.cursorMap.set(endpoint, (m = new Map()));
    m.set(c.source, { ...c });
  }

  forgetEndpoint(endpoint: string): void {
    this.cursorMap.delete(endpoint);
  }

  // ---- memory bound --------------------------------------------------------------------

  /** Spills least recently used series until under the bound (never `keep`). */
  enforceBound(keep?: Series): void {
    if (!this.opts.dir || this.residentBytes <= this.memoryLimitBytes) return;
    const victims = this.list()
      .filter((s) => s.cols && s !== keep)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const s of victims) {
      if (this.residentBytes <= this.memoryLimitBytes) break;
      this.spill(s);
    }
  }

  private spill(s: Series): void {
    this.writeSeries(s);
    this.residentBytes -= s.cols!.bytes;
    s.cols = undefined;
    this.spills++;
    this.log.debug(`metrics store: spilled ${s.tag} (${s.run}/${s.role}, ${s.length} points)`);
  }

  private readBack(s: Series): void {
    const file = path.join(this.opts.dir!, 'series', s.file);
    let c: Columns;
    try {
      c = Columns.fromRecords(fs.readFileSync(file), s.persisted);
    } catch (e) {
      this.log.error(`metrics store: cannot read ${file}: ${(e as Error).message}`);
      c = new Columns();
    }
    if (c.length < s.persisted) {
      this.log.warn(`metrics store: ${file} holds ${c.length} of ${s.persisted} points`);
      s.persisted = c.length;
    }
    if (s.tail) {
      this.residentBytes -= s.tail.bytes;
      c.append(s.tail);
      s.tail = undefined;
    }
    s.length = c.length;
    s.cols = c;
    this.residentBytes += c.bytes;
    this.loads++;
    this.enforceBound(s);
  }

  // ---- persistence ---------------------------------------------------------------------

  /** Writes what is new to disk, then the manifest. Synchronous (a few appends). */
  flush(): void {
    const dir = this.opts.dir;
    if (!dir) return;
    try {
      for (const s of this.map.values()) this.writeSeries(s);
      const lines = this.experiences.takeUnpersisted();
      if (lines) fs.appendFileSync(path.join(dir, EXPERIENCES), lines);
      const m: Manifest = {
        version: 1,
        nextFile: this.nextFile,
        series: this.list().map((s) => ({
          key: s.key,
          run: s.run,
          role: s.role,
          tag: s.tag,
          file: s.file,
          count: s.persisted,
          firstWall: finiteOrNull(s.firstWall),
          lastStep: finiteOrNull(s.lastStep),
          lastWall: finiteOrNull(s.lastWall),
        })),
        cursors: Object.fromEntries([...this.cursorMap].map(([e, m]) => [e, [...m.values()]])),
        experiences: this.experiences.persisted,
      };
      const tmp = path.join(dir, `${MANIFEST}.tmp`);
      fs.writeFileSync(tmp, JSON.stringify(m));
      fs.renameSync(tmp, path.join(dir, MANIFEST));
    } catch (e) {
      this.log.error(`metrics store: cannot write ${dir}: ${(e as Error).message}`);
    }
  }

  private writeSeries(s: Series): void {
    const file = path.join(this.opts.dir!, 'series', s.file);
    if (s.cols) {
      if (s.rewrite) {
        fs.writeFileSync(file, s.cols.toRecords());
        s.rewrite = false;
      } else if (s.persisted < s.length) {
        writeAt(file, s.persisted * RECORD_BYTES, s.cols.toRecords(s.persisted, s.length));
      }
    } else if (s.tail && s.tail.length) {
      writeAt(file, s.persisted * RECORD_BYTES, s.tail.toRecords());
      this.residentBytes -= s.tail.bytes;
      s.tail = undefined;
    }
    s.persisted = s.length;
  }

  private load(): void {
    const dir = this.opts.dir!;
    let m: Manifest;
    try {
      m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as Manifest;
      if (m.version !== 1 || !Array.isArray(m.series)) throw new Error('unknown manifest version');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`metrics store: ignoring ${dir}: ${(e as Error).message}`);
      return;
    }
    this.nextFile = m.nextFile;
    for (const e of m.series) {
      const s = new Series(e.key, e.run, e.role, e.tag, e.file);
      s.cols = undefined; // read back on first use
      s.persisted = s.length = e.count;
      s.firstWall = e.firstWall ?? Infinity;
      s.lastStep = e.lastStep ?? -Infinity;
      s.lastWall = e.lastWall ?? -Infinity;
      this.map.set(e.key, s);
      if (!(this.starts.get(s.run)! <= s.firstWall)) this.starts.set(s.run, s.firstWall);
    }
    for (const [endpoint, list] of Object.entries(m.cursors ?? {})) for (const c of list) this.setCursor(endpoint, c);
    try {
      this.experiences.load(fs.readFileSync(path.join(dir, EXPERIENCES), 'utf8'), m.experiences ?? 0);
    } catch {
      /* no experiences yet */
    }
    this.log.info(`metrics store: loaded ${this.map.size} series and ${this.experiences.size} experiences from ${dir}`);
  }

  /** Deletes every series, experience and cursor (memory and disk). */
  clear(): void {
    this.map.clear();
    this.cursorMap.clear();
    this.starts.clear();
    this.residentBytes = 0;
    this.exp = new ExperienceIndex();
    if (this.opts.dir) {
      fs.rmSync(path.join(this.opts.dir, 'series'), { recursive: true, force: true });
      fs.rmSync(path.join(this.opts.dir, MANIFEST), { force: true });
      fs.rmSync(path.join(this.opts.dir, EXPERIENCES), { force: true });
      fs.mkdirSync(path.join(this.opts.dir, 'series'), { recursive: true });
    }
  }
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

/** Writes bytes at an offset (truncating what follows: leftovers of a torn write). */
function writeAt(file: string, offset: number, bytes: Buffer): void {
  const fd = fs.openSync(file, fs.existsSync(file) ? 'r+' : 'w');
  try {
    fs.ftruncateSync(fd, offset);
    fs.writeSync(fd, bytes, 0, bytes.length, offset);
  } finally {
    fs.closeSync(fd);
  }
}
