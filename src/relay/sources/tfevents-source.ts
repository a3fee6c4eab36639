// One TensorBoard event file as a source: cursor = (file identity, byte offset of the next record).
// The file is followed by name (followed-file.ts): a replaced file is finished, then the new one
// read from its start; a truncated one is read again from its start. Damage (CRC mismatches,
// corrupt headers, records over the size limit) is skipped and reported once per source.
import type { Logger } from '../../base/log';
import { asPromise } from '../../base/promise';
import type { Cursor, SourceInfo } from '../../relay-protocol/messages';
import { FileGone, TfRecordFileReader } from '../../tfrecord/file-reader';
import { MAX_RECORD_BYTES } from '../../tfrecord/scan';
import { FileChange, FollowedFile } from './followed-file';
import type { OpenFiles } from './open-files';
import { Batch, FileSource, Notes, PointBatch, SourceReader } from './source';

/** Damage one read met (a delta of the reader's statistics). */
interface Damage {
  crc: number;
  badHeaders: number;
  oversized: number;
  decode: number;
}

/**
 * The batch every event-file reader reads into: its columns grow once, toBatch() copies them out
 * by tag, and a read is synchronous (no other reader's read can run in the middle of it), so one
 * serves every reader of every file. A batch per reader, let go at the end of its file and made
 * again on the next read, was 28 KB allocated per reader per wake: 25 clients on a 2 000-file
 * logdir are 50 000 readers, woken every poll interval.
 */
const scratch = new PointBatch();

export class TfEventsSource extends FileSource {
  /** Totals over every reader (for the relay's log and `--verbose`). */
  readonly errors: Damage = { crc: 0, badHeaders: 0, oversized: 0, decode: 0 };
  /** Record readers (each with its read buffer and decoder) opened by this file's readers so far. */
  recordReaders = 0;
  private warned = false;
  private readonly notes = new Notes();

  constructor(
    info: SourceInfo,
    file: string,
    readonly files: OpenFiles,
    private readonly log: Logger,
  ) {
    super(info, file);
  }

  /** Counts damage one reader met; warns once per source (every reader meets the same damage). */
  report(d: Damage): void {
    if (d.crc + d.badHeaders + d.oversized + d.decode === 0) return;
    for (const k of ['crc', 'badHeaders', 'oversized', 'decode'] as const) this.errors[k] += d[k];
    const over = d.oversized ? `, ${d.oversized} record(s) claiming more than the ${MAX_RECORD_BYTES / 1048576} MiB limit` : '';
    const msg = `relay: ${this.file}: skipped ${d.crc} record(s) with a CRC mismatch, ${d.badHeaders} corrupt header region(s)${over}, ${d.decode} undecodable event(s)`;
    if (this.warned && !d.oversized) this.log.debug(msg);
    else this.log.warn(msg);
    this.warned = true;
  }

  /** Says what happened to the file (once per change, whoever's reader met it). */
  changed(fid: string, c: FileChange): void {
    if (c.kind === 'truncated')
      this.notes.say(`t:${fid}:${c.size}`, `relay: ${this.info.path} was truncated (${c.from} → ${c.size} bytes): reading it again from its start`, this.log);
    else
      this.notes.say(
        `r:${fid}`,
        `relay: ${this.info.path} was replaced: ${c.lostBytes ? `${c.lostBytes} byte(s) of an unfinished record at the end of the old file skipped; ` : ''}reading the new file from its start`,
        this.log,
      );
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
  private readonly file: FollowedFile;
  /** The record reader of the file followed now (a new one for a new file, or after a truncation). */
  private reader: TfRecordFileReader | undefined;
  private readerFid = '';
  /** The last read stopped at its budget, before the end of the file. */
  private more = false;

  constructor(
    private readonly src: TfEventsSource,
    cursor: Cursor | undefined,
  ) {
    this.file = new FollowedFile(src.files, src.file, cursor, (c) => src.changed(this.file.fid, c));
  }

  next(budget: number): Promise<Batch | undefined> {
    return asPromise(() => this.read(budget));
  }

  /** What this reader holds between reads: its record reader (none at the end of its file). */
  held(): { recordReader: boolean } {
    return { recordReader: this.reader !== undefined };
  }

  private read(budget: number): Batch | undefined {
    scratch.clear();
    this.more = false;
    const out = this.readInto(scratch, budget);
    // At the end of its file (nothing read, or this read reached it): no record reader held until
    // the file grows (its read buffer and decoder, ~20 KB; the next read that finds new bytes
    // opens one at the offset). A reader with more to read keeps it.
    if (!out || !this.more) {
      this.reader?.close();
      this.reader = undefined;
    }
    return out;
  }

  private readInto(batch: PointBatch, budget: number): Batch | undefined {
    for (;;) {
      const at = this.file.where();
      if (!at) return undefined;
      if (at.size <= this.file.offset) {
        // Nothing after the offset (what nearly every reader finds on a wake): no record reader
        // is opened to find that out. A file replaced under its name is finished: on to the new one.
        if (!this.file.drained(at.size)) return undefined;
        this.reader?.close();
        this.reader = undefined;
        continue;
      }
      if (!this.reader || this.readerFid !== this.file.fid || this.reader.offset !== this.file.offset) {
        this.reader?.close();
        this.readerFid = this.file.fid;
        this.src.recordReaders++;
        this.reader = new TfRecordFileReader(this.src.file, this.file.offset, {
          fds: this.file,
          onPipeline: (e, backlog) => this.src.pipelineEvent(e, backlog),
        });
      }
      const reader = this.reader;
      const before = { ...reader.stats };
      try {
        // Loop so that records without scalars (file_version, graphs) never end a read early.
        for (;;) {
          const r = reader.read(batch, budget);
          this.more = r.more;
          if (batch.size > 0 || !r.more || r.consumed === 0) break;
        }
      } catch (e) {
        if (!(e instanceof FileGone)) throw e;
      }
      const s = reader.stats;
      this.src.report({
        crc: s.crcErrors - before.crcErrors,
        badHeaders: s.badHeaders - before.badHeaders,
        oversized: s.oversized - before.oversized,
        decode: s.decodeErrors - before.decodeErrors,
      });
      this.file.moveTo(reader.offset, at.fd);
      if (batch.size > 0) break;
      // Nothing more here: a replaced file is finished now, and the new one read from its start.
      if (!this.file.drained(at.size)) return undefined;
      reader.close();
      this.reader = undefined;
    }
    return batch.toBatch(this.src.info, this.file.at(this.src.info.id));
  }

  close(): void {
    this.reader?.close();
    this.file.close();
  }
}
