// The metrics store's directory (the extension's storageUri), apart from what the store
// keeps in memory. Node fs only, no vscode.
//
// Layout of the directory:
//   manifest.json        series list with their persisted point counts, cursors, runs
//   series/<n>.bin       24-byte records (step, wallTime, value; float64 LE), sorted
//   experiences.jsonl    experience rows, one JSON object a line
// The manifest is written (atomically, via rename) after the data files, so it never
// claims more than is on disk; extra bytes after a crash are ignored and overwritten.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cursor } from '../../relay-protocol/messages';
import type { Logger } from '../../base/log';
import { Columns, RECORD_BYTES } from './columns';
import type { ExperienceIndex } from './experiences';
import { Series } from './series';

/** What the manifest says about one series. */
interface SeriesEntry {
  key: string;
  run: string;
  role: string;
  tag: string;
  file: string;
  count: number;
  firstWall: number | null;
  lastStep: number | null;
  lastWall: number | null;
}

interface Manifest {
  version: 1;
  nextFile: number;
  series: SeriesEntry[];
  cursors: Record<string, Cursor[]>;
  experiences: number;
}

/** What `load` found. */
export interface Loaded {
  nextFile: number;
  series: Series[];
  cursors: Record<string, Cursor[]>;
  /** The experience rows' JSON lines ('' when there are none). */
  experiences: string;
  /** Rows of those the manifest vouches for. */
  experienceCount: number;
}

const MANIFEST = 'manifest.json';
const EXPERIENCES = 'experiences.jsonl';

export class StoreFiles {
  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {
    fs.mkdirSync(path.join(dir, 'series'), { recursive: true });
  }

  private seriesFile(s: Series): string {
    return path.join(this.dir, 'series', s.file);
  }

  /**
   * Writes what of a series is not on disk yet (all of it when it must be rewritten) and
   * marks it persisted. A spilled series' tail goes to disk and is dropped: returns the
   * bytes it held.
   */
  writeSeries(s: Series): number {
    const file = this.seriesFile(s);
    let freed = 0;
    if (s.cols) {
      if (s.rewrite) {
        fs.writeFileSync(file, s.cols.toRecords());
        s.rewrite = false;
      } else if (s.persisted < s.length) {
        writeAt(file, s.persisted * RECORD_BYTES, s.cols.toRecords(s.persisted, s.length));
      }
    } else if (s.tail && s.tail.length) {
      writeAt(file, s.persisted * RECORD_BYTES, s.tail.toRecords());
      freed = s.tail.bytes;
      s.tail = undefined;
    }
    s.persisted = s.length;
    return freed;
  }

  /** The persisted points of a series (fewer when the file is short: persisted is cut back). */
  readSeries(s: Series): Columns {
    const file = this.seriesFile(s);
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
    return c;
  }

  private appendExperiences(lines: string): void {
    if (lines) fs.appendFileSync(path.join(this.dir, EXPERIENCES), lines);
  }

  /** Deletes a forgotten series' file. */
  removeSeries(s: Series): void {
    fs.rmSync(this.seriesFile(s), { force: true });
  }

  /** The experience rows' JSON lines ('' when there are none yet). */
  private readExperiences(): string {
    try {
      return fs.readFileSync(path.join(this.dir, EXPERIENCES), 'utf8');
    } catch {
      return '';
    }
  }

  /**
   * After the series' points (writeSeries): appends the new experience rows, then writes
   * the manifest (atomically, after the data files it describes).
   */
  writeIndex(series: Series[], rest: Pick<Manifest, 'nextFile' | 'cursors'>, experiences: ExperienceIndex): void {
    // Rows were forgotten: the file is written anew with the rows kept.
    const rewrite = experiences.rewrite;
    experiences.rewrite = false;
    const lines = experiences.takeUnpersisted();
    if (rewrite) fs.writeFileSync(path.join(this.dir, EXPERIENCES), lines);
    else this.appendExperiences(lines);
    this.writeManifest({ version: 1, ...rest, series: series.map(toEntry), experiences: experiences.persisted });
  }

  /** What a previous session saved: series (on disk, not read yet), cursors, experiences. */
  load(): Loaded | undefined {
    const m = this.readManifest();
    if (!m) return undefined;
    return {
      nextFile: m.nextFile,
      series: m.series.map(fromEntry),
      cursors: m.cursors ?? {},
      experiences: this.readExperiences(),
      experienceCount: m.experiences ?? 0,
    };
  }

  private writeManifest(m: Manifest): void {
    const tmp = path.join(this.dir, `${MANIFEST}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(m));
    fs.renameSync(tmp, path.join(this.dir, MANIFEST));
  }

  /** The manifest, or undefined when there is none (or an unreadable one: said in the log). */
  private readManifest(): Manifest | undefined {
    try {
      const m = JSON.parse(fs.readFileSync(path.join(this.dir, MANIFEST), 'utf8')) as Manifest;
      if (m.version !== 1 || !Array.isArray(m.series)) throw new Error('unknown manifest version');
      return m;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`metrics store: ignoring ${this.dir}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** Deletes every file the store wrote. */
  clear(): void {
    fs.rmSync(path.join(this.dir, 'series'), { recursive: true, force: true });
    fs.rmSync(path.join(this.dir, MANIFEST), { force: true });
    fs.rmSync(path.join(this.dir, EXPERIENCES), { force: true });
    fs.mkdirSync(path.join(this.dir, 'series'), { recursive: true });
  }
}

function finiteOrNull(v: number): number | null {
  return Number.isFinite(v) ? v : null;
}

function toEntry(s: Series): SeriesEntry {
  return {
    key: s.key,
    run: s.run,
    role: s.role,
    tag: s.tag,
    file: s.file,
    count: s.persisted,
    firstWall: finiteOrNull(s.firstWall),
    lastStep: finiteOrNull(s.lastStep),
    lastWall: finiteOrNull(s.lastWall),
  };
}

/** A series as saved: its points stay on disk until first used. */
function fromEntry(e: SeriesEntry): Series {
  const s = new Series(e.key, e.run, e.role, e.tag, e.file);
  s.cols = undefined;
  s.persisted = s.length = e.count;
  s.firstWall = e.firstWall ?? Infinity;
  s.lastStep = e.lastStep ?? -Infinity;
  s.lastWall = e.lastWall ?? -Infinity;
  return s;
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
