// Incremental reader of one TFRecord file of TensorBoard events. Its position is always a
// record boundary (the stream cursor): a partial record at the end of the file is left for
// the next read, a record with a CRC mismatch is skipped and counted, and a corrupt header
// is skipped up to the next valid one.
import * as fs from 'node:fs';
import { MAX_RECORD_BYTES, inputRegion, scanChunk } from './scan';
import { ChunkStats, ScalarDecoder, ScalarSink } from './scalars';

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

export class TfRecordFileReader {
  readonly stats: ReaderStats = { records: 0, shaped: 0, scalars: 0, crcErrors: 0, badHeaders: 0, skippedBytes: 0, decodeErrors: 0 };
  private fd: number | undefined;
  /** Smallest read that can hold the next record (grows for records above the chunk size). */
  private minRead = 64 * 1024;
  private readonly decoder = new ScalarDecoder();

  constructor(
    readonly path: string,
    /** Byte offset of the next record (a cursor position). */
    public offset = 0,
  ) {}

  /**
   * Reads complete records from the current offset, up to about `budget` bytes, into sink.
   * Throws only for I/O errors (e.g. the file vanished).
   */
  read(sink: ScalarSink, budget = Infinity): ReadResult {
    if (this.fd === undefined) this.fd = fs.openSync(this.path, 'r');
    let consumed = 0;
    let scalars = 0;
    for (;;) {
      if (consumed >= budget) return { consumed, scalars, more: true };
      const want = Math.max(this.minRead, Math.min(DEFAULT_CHUNK, budget - consumed));
      const region = inputRegion(want);
      const got = fs.readSync(this.fd, region, 0, want, this.offset);
      if (got === 0) return { consumed, scalars, more: false };
      const res = scanChunk(got, this.decoder.shapesForScan());
      scalars += this.decoder.decodeChunk(region, res, sink, this.stats);
      this.offset += res.consumed;
      consumed += res.consumed;
      if (res.consumed === 0) {
        // A record longer than the chunk: grow the chunk once it is fully on disk.
        if (got === want && want < MAX_RECORD_BYTES + 16) {
          this.minRead = Math.min(want * 2, MAX_RECORD_BYTES + 16);
          continue;
        }
        return { consumed, scalars, more: false };
      }
      // Stop at end of file unless the scan stopped early because its entry table was full.
      if (got < want && !res.full) return { consumed, scalars, more: false };
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
