// The envelope pass over one event file (envelope-first opening): reads the file once from its beginning
// to its current end, folding every scalar into its tag's envelope (builder.ts) and noting
// the sparse index (file-index.ts) a detail request re-reads from. Incremental: a later call
// reads on from where the pass stopped (the file grew), so sessions opening the same run share
// one pass (cache.ts). Reads in slices and yields to the event loop between them, so that a
// pass over a large file never starves heartbeats or other clients.
import * as fs from 'node:fs';
import type { EnvelopeBatch } from '../../relay-protocol/envelope-frame';
import type { Cursor, SourceInfo } from '../../relay-protocol/messages';
import { fileId } from '../sources/source';
import { TfRecordFileReader } from '../../tfrecord/file-reader';
import type { ScalarSink } from '../../tfrecord/scalar-sink';
import { EnvelopeBuilder } from './builder';
import { FileIndex } from './file-index';

export interface PassOptions {
  /** Bytes per slice: one index entry each (until the index halves). */
  sliceBytes?: number;
  /** Most index entries. */
  indexCap?: number;
  /** Yield to the event loop after this long of reading. */
  yieldMs?: number;
}

export class EnvelopePass implements ScalarSink {
  private tags = new Map<string, EnvelopeBuilder>();
  /** Builder by the decoder's tag id (the current reader's; cleared with every reader). */
  private byId: (EnvelopeBuilder | undefined)[] = [];
  index: FileIndex;
  /** Byte offset the pass has read up to (a record boundary). */
  offset = 0;
  /** Identity of the file read (a replaced file starts the pass over). */
  fid = '';
  private sliceLo = Infinity;
  private sliceHi = -Infinity;
  private running: Promise<void> | undefined;
  private readonly sliceBytes: number;
  private readonly yieldMs: number;

  constructor(
    readonly file: string,
    readonly buckets: number,
    private readonly opts: PassOptions = {},
  ) {
    this.index = new FileIndex(opts.indexCap);
    // 64 KiB: a detail request for a few steps re-reads about this much (the index's grain).
    this.sliceBytes = opts.sliceBytes ?? 64 * 1024;
    this.yieldMs = opts.yieldMs ?? 25;
  }

  add(tag: string, step: number, wallTime: number, value: number, tagId: number): void {
    let b = tagId >= 0 ? this.byId[tagId] : undefined;
    if (b === undefined) {
      b = this.tags.get(tag);
      if (b === undefined) this.tags.set(tag, (b = new EnvelopeBuilder(this.buckets)));
      if (tagId >= 0) this.byId[tagId] = b;
    }
    b.add(step, wallTime, value);
    if (step < this.sliceLo) this.sliceLo = step;
    if (step > this.sliceHi) this.sliceHi = step;
  }

  /** Reads on to the file's current end (one run at a time, whoever asks). */
  advance(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<void> {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch {
      return; // gone: what was read stays valid for its fid
    }
    if (fileId(st) !== this.fid || st.size < this.offset) this.reset(fileId(st));
    if (st.size === this.offset) return;
    const reader = new TfRecordFileReader(this.file, this.offset);
    this.byId = [];
    try {
      let since = Date.now();
      for (;;) {
        this.sliceLo = Infinity;
        this.sliceHi = -Infinity;
        const start = reader.offset;
        const r = reader.read(this, this.sliceBytes);
        // The index entry and the offset move with the builders, in one synchronous step.
        this.index.add(start, reader.offset, this.sliceLo, this.sliceHi);
        this.offset = reader.offset;
        if (!r.more) break;
        if (Date.now() - since >= this.yieldMs) {
          await new Promise((resolve) => setImmediate(resolve));
          since = Date.now();
        }
      }
    } finally {
      reader.close();
    }
  }

  private reset(fid: string): void {
    this.fid = fid;
    this.offset = 0;
    this.tags = new Map();
    this.byId = [];
    this.index = new FileIndex(this.opts.indexCap);
  }

  /** Where the pass stopped, as a cursor of `source`. */
  cursor(source: string): Cursor {
    return { source, fid: this.fid, offset: this.offset };
  }

  /** One envelope per tag, of everything read so far (built one at a time as they are sent). */
  *messages(info: SourceInfo): Generator<EnvelopeBatch> {
    const cursor = this.cursor(info.id);
    for (const [tag, b] of [...this.tags])
      yield { type: 'envelope', source: info.id, run: info.run, role: info.role, tag, points: b.points, cursor, env: b.arrays() };
  }

  /** Memory held (builders and index). */
  get bytes(): number {
    let n = this.index.size * 32;
    for (const b of this.tags.values()) n += b.bytes;
    return n;
  }
}
