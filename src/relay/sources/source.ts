// What the relay streams from: a source (one event file, one log file, one SQL table, one
// /metrics endpoint) opened at a client's cursor yields batches until it has nothing new.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../base/log';
import type { JobRoot } from './job-root';
import type { Cursor, ExperienceDetail, ExperiencesMessage, PointsBatch, SourceInfo } from '../../relay-protocol/messages';
import type { TokensReply } from '../../relay-protocol/tokens-frame';
import { seriesViews } from '../../relay-protocol/points-frame';

export type Batch = PointsBatch | ExperiencesMessage;

/** A tokens reply without the request's own fields (the session adds them). */
export type RowTokens = Omit<TokensReply, 'type' | 'request' | 'source' | 'id'>;

export interface SourceReader {
  /** The next batch after the reader's cursor (at most ~budget source bytes), or undefined. */
  next(budget: number): Promise<Batch | undefined>;
  close(): void;
}

export interface Source {
  readonly info: SourceInfo;
  /** Absolute paths whose changes may mean new data (watched by the relay). */
  readonly watchPaths: string[];
  /**
   * The files the data is read from: their size and mtime tell an idle relay that data is
   * still coming where no watch event arrives (a network filesystem written from another node).
   */
  readonly dataFiles?: string[];
  /** A reader positioned at `cursor` (from the start when undefined or no longer valid). */
  open(cursor: Cursor | undefined): SourceReader;
  /**
   * A reader from the first row for the tasks fold (src/relay/serve/task-cache.ts): only what the
   * tasks table needs of each row (its task, version, reward, parts, response length and
   * fingerprint), no tensor bytes. Absent: `open(undefined)` serves.
   */
  openForTasks?(): SourceReader;
  /** The content of one row (SQL sources). */
  readDetail?(id: number): Promise<ExperienceDetail>;
  /** One row's tokens: an SQL row's tensors, or the texts a JSON-lines row keeps (experience sources). */
  readTokens?(id: number): Promise<RowTokens>;
  close?(): void;
}

/** A source backed by one file; its directory is watched. */
export abstract class FileSource implements Source {
  readonly watchPaths: string[];
  readonly dataFiles: string[];

  constructor(
    readonly info: SourceInfo,
    readonly file: string,
  ) {
    this.watchPaths = [path.dirname(file)];
    this.dataFiles = [file];
  }

  abstract open(cursor: Cursor | undefined): SourceReader;
}

/** Says each event once per source: every reader of a source meets the same damage or change. */
export class Notes {
  private readonly seen = new Set<string>();

  say(key: string, message: string, log: Pick<Logger, 'warn'>): void {
    if (this.seen.has(key)) return;
    if (this.seen.size >= 1000) this.seen.clear();
    this.seen.add(key);
    log.warn(message);
  }
}

/** The start of a small text file inside the relay's root (at most `max` bytes: a URL, a lock). */
export function readSmallText(root: JobRoot, file: string, max = 64 * 1024): string {
  const fd = root.open(file);
  try {
    const buf = Buffer.alloc(max);
    return buf.toString('utf8', 0, fs.readSync(fd, buf, 0, max, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** device:inode, the identity of a file across renames and relay restarts. */
export function fileId(st: fs.Stats): string {
  return `${st.dev}:${st.ino}`;
}

/** Collects points into a `points` batch (typed columns: no boxing, no per-point growth). */
export class PointBatch {
  private tagIndex = new Map<string, number>();
  /** Batch tag index by the decoder's tag id (faster than the string map on the hot path). */
  private byId: number[] = [];
  private tagList: string[] = [];
  private n = 0;
  private tag = new Uint32Array(1024);
  private step = new Float64Array(1024);
  private wallTime = new Float64Array(1024);
  private value = new Float64Array(1024);

  add(tag: string, step: number, wallTime: number, value: number, tagId = -1): void {
    let i = tagId >= 0 ? this.byId[tagId] : undefined;
    if (i === undefined) {
      i = this.tagIndex.get(tag);
      if (i === undefined) {
        i = this.tagList.length;
        this.tagIndex.set(tag, i);
        this.tagList.push(tag);
      }
      if (tagId >= 0) this.byId[tagId] = i;
    }
    const n = this.n;
    if (n === this.tag.length) this.grow();
    this.tag[n] = i;
    this.step[n] = step;
    this.wallTime[n] = wallTime;
    this.value[n] = value;
    this.n = n + 1;
  }

  get size(): number {
    return this.n;
  }

  get tags(): readonly string[] {
    return this.tagList;
  }

  /**
   * Empties the batch for the next read: the columns keep their capacity (a reader reuses one
   * batch, so they grow once), the tags start over (a batch sent earlier keeps its own list).
   */
  clear(): void {
    this.n = 0;
    this.tagIndex = new Map();
    this.byId = [];
    this.tagList = [];
  }

  private grow(): void {
    const more = <T extends Uint32Array | Float64Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    const cap = this.tag.length * 4; // few, large steps: allocating typed arrays is not cheap
    this.tag = more(this.tag, new Uint32Array(cap));
    this.step = more(this.step, new Float64Array(cap));
    this.wallTime = more(this.wallTime, new Float64Array(cap));
    this.value = more(this.value, new Float64Array(cap));
  }

  /**
   * The batch grouped by tag (a counting sort: each tag's points keep their order), its
   * columns views of one array laid out as the binary frame's (points-frame.ts).
   */
  toBatch(info: SourceInfo, cursor: Cursor): PointsBatch {
    const n = this.n;
    const tags = this.tagList;
    const counts = new Array<number>(tags.length).fill(0);
    for (let i = 0; i < n; i++) counts[this.tag[i]]++;
    const series = seriesViews(tags, counts, new Float64Array(n * 3));
    const fill = new Array<number>(tags.length).fill(0);
    for (let i = 0; i < n; i++) {
      const t = this.tag[i];
      const s = series[t];
      const k = fill[t]++;
      s.step[k] = this.step[i];
      s.wallTime[k] = this.wallTime[i];
      s.value[k] = this.value[i];
    }
    return { type: 'points', source: info.id, run: info.run, role: info.role, series, cursor };
  }
}
