// Incremental reader of one TFRecord file of TensorBoard events. Its position is always a
// record boundary (the stream cursor): a partial record at the end of the file is left for
// the next read, a record with a CRC mismatch is skipped and counted, and a corrupt header
// is skipped up to the next valid one.
import * as fs from 'node:fs';
import { MAX_RECORD_BYTES, inputRegion, scanChunk } from './scan';
import { PIPELINE_CHUNK_MAX, ScanPipeline, scanPipeline } from './scan-pipeline';
import type { ScalarSink } from './scalar-sink';
import { ChunkStats, ScalarDecoder } from './scalars';

export type ReaderStats = ChunkStats;

export interface ReadResult {
  /** Bytes consumed by this call (0: nothing new, or a partial record waiting). */
  consumed: number;
  /** Scalars added to the sink. */
  scalars: number;
  /** True when more complete data may be available right away (the budget ran out). */
  more: boolean;
}

const DEFAULT_CHUNK = 4 * 1024 * 1024;
/** A backlog from which the reader reads ahead in the scan worker (scan-pipeline.ts). */
export const PIPELINE_MIN_BYTES = 8 * 1024 * 1024;

export interface FileReaderOptions {
  /** Backlog (bytes after the offset) from which to read ahead on a second core; Infinity: never. */
  pipelineMinBytes?: number;
  /** Told when the reader starts reading ahead, and when the scan worker failed (it goes on alone). */
  onPipeline?(event: 'start' | 'worker-failed', backlog: number): void;
  /** Read nothing at or past this byte offset (a region of the file: a detail read, envelope/detail.ts). */
  end?: number;
  /** The descriptor to read from, lent by its owner (the relay's bounded open files); else the reader opens `path`. */
  fds?: FdSource;
}

/** A descriptor lent to a reader; its owner may close it between reads and open it again. */
export interface FdSource {
  /** The descriptor now; undefined when the file is out of reach (the path names another file). */
  fd(): number | undefined;
  /** Kept open while set (the scan worker reads from it). */
  pinned: boolean;
}

/** The file a reader was lent is out of reach (replaced under it). */
export class FileGone extends Error {}

export class TfRecordFileReader {
  readonly stats: ReaderStats = { records: 0, shaped: 0, scalars: 0, crcErrors: 0, badHeaders: 0, oversized: 0, skippedBytes: 0, decodeErrors: 0 };
  private fd: number | undefined;
  /** Smallest read that can hold the next record (grows for records above the chunk size). */
  private minRead = 64 * 1024;
  private readonly decoder = new ScalarDecoder();
  /** The pipeline while this reader has a job running in it. */
  private piped: ScanPipeline | undefined;
  private readonly pipelineMinBytes: number;

  constructor(
    readonly path: string,
    /** Byte offset of the next record (a cursor position). */
    public offset = 0,
    private readonly opts: FileReaderOptions = {},
  ) {
    this.pipelineMinBytes = opts.pipelineMinBytes ?? PIPELINE_MIN_BYTES;
  }

  /**
   * Reads complete records from the current offset, up to about `budget` bytes, into sink.
   * Throws only for I/O errors (e.g. the file vanished).
   */
  read(sink: ScalarSink, budget = Infinity): ReadResult {
    const fd = this.descriptor();
    let consumed = 0;
    let scalars = 0;
    for (;;) {
      if (consumed >= budget) return { consumed, scalars, more: true };
      const room = (this.opts.end ?? Infinity) - this.offset;
      const want = Math.min(Math.max(this.minRead, Math.min(DEFAULT_CHUNK, budget - consumed)), room);
      if (want <= 0) return { consumed, scalars, more: false };
      if (this.piped !== undefined || this.startPipeline(fd, want)) {
        // The worker's chunks have one size: take none that would overshoot the budget by half.
        if (consumed > 0 && budget - consumed < this.piped!.chunkSize / 2) return { consumed, scalars, more: true };
        const step = this.readPiped(sink);
        if (step !== undefined) {
          consumed += step.consumed;
          scalars += step.scalars;
          if (step.end) return { consumed, scalars, more: false };
          continue;
        }
      }
      const region = inputRegion(want);
      const got = fs.readSync(fd, region, 0, want, this.offset);
      if (got === 0) return { consumed, scalars, more: false };
      const table = this.decoder.shapesForScan();
      const res = scanChunk(got, table?.words);
      scalars += this.decoder.decodeChunk(region, res, sink, this.stats, table);
      this.offset += res.consumed;
      consumed += res.consumed;
      if (res.consumed === 0) {
        // A record longer than the chunk: grow the chunk once it is fully on disk.
        if (got === want && want < room && want < MAX_RECORD_BYTES + 16) {
          this.minRead = Math.min(want * 2, MAX_RECORD_BYTES + 16);
          continue;
        }
        return { consumed, scalars, more: false };
      }
      // Stop at end of file unless the scan stopped early because its entry table was full.
      if (got < want && !res.full) return { consumed, scalars, more: false };
    }
  }

  /** True while the scan worker reads ahead for this reader (tests). */
  get pipelined(): boolean {
    return this.piped !== undefined;
  }

  close(): void {
    this.stopPipeline();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }

  /** The descriptor to read from: lent, or opened once by the reader. */
  private descriptor(): number {
    const lent = this.opts.fds;
    if (!lent) return (this.fd ??= fs.openSync(this.path, 'r'));
    const fd = lent.fd();
    if (fd === undefined) throw new FileGone(`${this.path} was replaced while it was read`);
    return fd;
  }

  /** Hands the rest of a large backlog to the scan worker, if it is free. */
  private startPipeline(fd: number, chunk: number): boolean {
    if (chunk > PIPELINE_CHUNK_MAX || this.pipelineMinBytes === Infinity) return false;
    const backlog = fs.fstatSync(fd).size - this.offset;
    if (backlog < this.pipelineMinBytes) return false;
    const pipeline = scanPipeline();
    if (pipeline === undefined || !pipeline.start(this, fd, this.offset, chunk)) return false;
    this.piped = pipeline;
    if (this.opts.fds) this.opts.fds.pinned = true;
    this.opts.onPipeline?.('start', backlog);
    return true;
  }

  private stopPipeline(): void {
    this.piped?.stop(this);
    this.piped = undefined;
    if (this.opts.fds) this.opts.fds.pinned = false;
  }

  /**
   * Decodes the next chunk the worker scanned. Undefined when this read must take the reader's
   * own path: the worker is gone, the read failed (the own path reports it), or a record is
   * longer than the chunk (the own path grows its reads); the pipeline is stopped then.
   */
  private readPiped(sink: ScalarSink): { consumed: number; scalars: number; end: boolean } | undefined {
    const pipeline = this.piped!;
    const chunk = pipeline.take(this);
    if (chunk === undefined) this.opts.onPipeline?.('worker-failed', 0);
    if (chunk === undefined || chunk.error || chunk.offset !== this.offset || chunk.scan.consumed === 0) {
      this.stopPipeline();
      return undefined;
    }
    const { scan } = chunk;
    const table = this.decoder.shapesForScan();
    pipeline.match(chunk, table);
    const scalars = this.decoder.decodeChunk(chunk.region, scan, sink, this.stats, table);
    pipeline.release(this);
    this.offset += scan.consumed;
    const end = chunk.got < pipeline.chunkSize && !scan.full;
    if (end) this.stopPipeline();
    return { consumed: scan.consumed, scalars, end };
  }
}
