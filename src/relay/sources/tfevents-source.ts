// One TensorBoard event file as a source: cursor = (file identity, byte offset of the next record).
import * as fs from 'node:fs';
import type { Logger } from '../../base/log';
import type { Cursor, SourceInfo } from '../../relay-protocol/messages';
import { TfRecordFileReader } from '../tfrecord/file-reader';
import { Batch, FileSource, PointBatch, SourceReader, fileId, resumeOffset } from './source';

export class TfEventsSource extends FileSource {
  /** Totals over every reader (for the relay's log and `--verbose`). */
  readonly errors = { crc: 0, badHeaders: 0, decode: 0 };
  private warned = false;

  constructor(info: SourceInfo, file: string, private readonly log: Logger) {
    super(info, file);
  }

  /** Counts damage one reader met; warns once per source (every reader meets the same damage). */
  report(crc: number, badHeaders: number, decode: number): void {
    if (crc + badHeaders + decode === 0) return;
    this.errors.crc += crc;
    this.errors.badHeaders += badHeaders;
    this.errors.decode += decode;
    const msg = `relay: ${this.file}: skipped ${crc} record(s) with a CRC mismatch, ${badHeaders} corrupt header region(s), ${decode} undecodable event(s)`;
    if (this.warned) this.log.debug(msg);
    else this.log.warn(msg);
    this.warned = true;
  }

  /** Logs what a reader's read-ahead did (scan-pipeline.ts). */
  pipelineEvent(event: 'start' | 'worker-failed', backlog: number): void {
    if (event === 'start') this.log.debug(`relay: ${this.file}: ${(backlog / 1048576).toFixed(1)} MiB behind: reading ahead on a second core`);
    else this.log.warn(`relay: ${this.file}: the scan worker stopped answering: reading on in one thread`);
  }

  open(cursor: Cursor | undefined): SourceReader {
    return new TfEventsReader(this, cursor);
  }
}

class TfEventsReader implements SourceReader {
  private reader: TfRecordFileReader | undefined;
  private fid = '';
  /** One batch for every read: its columns grow once, toBatch() copies them out by tag. */
  private readonly batch = new PointBatch();

  constructor(
    private readonly src: TfEventsSource,
    private readonly cursor: Cursor | undefined,
  ) {}

  async next(budget: number): Promise<Batch | undefined> {
    if (!this.reader) {
      let st: fs.Stats;
      try {
        st = fs.statSync(this.src.file);
      } catch {
        return undefined;
      }
      this.fid = fileId(st);
      this.reader = new TfRecordFileReader(this.src.file, resumeOffset(this.cursor, st), { onPipeline: (e, backlog) => this.src.pipelineEvent(e, backlog) });
    }
    const batch = this.batch;
    batch.clear();
    const before = { ...this.reader.stats };
    // Loop so that records without scalars (file_version, graphs) never end a read early.
    for (;;) {
      const r = this.reader.read(batch, budget);
      if (batch.size > 0 || !r.more || r.consumed === 0) break;
    }
    const s = this.reader.stats;
    this.src.report(s.crcErrors - before.crcErrors, s.badHeaders - before.badHeaders, s.decodeErrors - before.decodeErrors);
    if (batch.size === 0) return undefined;
    return batch.toBatch(this.src.info, { source: this.src.info.id, fid: this.fid, offset: this.reader.offset });
  }

  close(): void {
    this.reader?.close();
  }
}
