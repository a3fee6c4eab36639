// One series of the metrics store (a run's role's tag) and the point it holds: where its
// points are (resident columns, a file, a tail of appends while spilled) and what the
// charts need to know about changes to it.
import { Columns } from './columns';

export interface Point {
  step: number;
  /** Seconds since epoch. */
  wallTime: number;
  value: number;
}

/** Points of one series as columns (a relay batch's TagPoints; point i is step[i], wallTime[i], value[i]). */
export interface PointColumns {
  step: ArrayLike<number>;
  wallTime: ArrayLike<number>;
  value: ArrayLike<number>;
}

/** Points as objects (tests, benches) to columns. */
export function columnsOf(points: readonly Point[]): PointColumns {
  return { step: points.map((p) => p.step), wallTime: points.map((p) => p.wallTime), value: points.map((p) => p.value) };
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

  /** Makes a spilled series resident again from its persisted points; returns the bytes it grew by. */
  readBack(persisted: Columns): number {
    let grown = persisted.bytes;
    if (this.tail) {
      grown -= this.tail.bytes;
      persisted.append(this.tail);
      this.tail = undefined;
    }
    this.length = persisted.length;
    this.cols = persisted;
    return grown;
  }

  /** Whether a point goes after every point of the series. */
  isAtEnd(step: number, wallTime: number): boolean {
    return step > this.lastStep || (step === this.lastStep && wallTime > this.lastWall);
  }

  /** Appends a point past the end (to the tail while spilled); returns the bytes it grew by. */
  pushEnd(step: number, wallTime: number, value: number): number {
    const c = this.cols ?? (this.tail ??= new Columns());
    const before = c.bytes;
    c.push(step, wallTime, value);
    this.length++;
    this.lastStep = step;
    this.lastWall = wallTime;
    return c.bytes - before;
  }

  /**
   * Inserts a point before the end, in (step, wallTime) order (resident series only); returns
   * the bytes it grew by, or undefined when the series already holds that (step, wallTime).
   */
  insert(step: number, wallTime: number, value: number): number | undefined {
    const c = this.cols!;
    const i = c.lowerBound(step, wallTime);
    if (i < c.length && c.step[i] === step && c.wallTime[i] === wallTime) return undefined;
    const before = c.bytes;
    c.insert(i, step, wallTime, value);
    this.length++;
    if (i < this.persisted) this.rewrite = true;
    return c.bytes - before;
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
