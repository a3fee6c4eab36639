// A Trinity actor log (`<job_dir>/log/<role>.log`) as a source of `Step N: {...}` points;
// cursor = (file identity, byte offset just after the last complete line read). Keys of a
// wandb shared run (`<role>/…`, hidden `<role>/step` axes) name the per-role series.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../base/log';
import { asPromise } from '../../base/promise';
import type { Cursor, SourceInfo } from '../../relay-protocol/messages';
import { FileChange, FollowedFile } from './followed-file';
import { LineReader } from './line-reader';
import type { OpenFiles } from './open-files';
import { Batch, FileSource, Notes, PointBatch, SourceReader } from './source';
import { loadSharedStepBindings, sharedRunSeries, type StepBindings } from './shared-run';
import { parseStepLine } from './step-log';

/** A longer line is skipped and reported (a Step line is a dict of metrics: a few KiB). */
const MAX_LOG_LINE = 4 * 1024 * 1024;

export class StepLogSource extends FileSource {
  constructor(
    info: SourceInfo,
    file: string,
    readonly files: OpenFiles,
    readonly log: Logger,
  ) {
    super(info, file);
  }

  open(cursor: Cursor | undefined): SourceReader {
    return new StepLogReader(this, cursor);
  }

  /** Says once per kind of event what happened to the file or its lines (every reader meets the same). */
  report(key: string, message: string): void {
    this.notes.say(key, message, this.log);
  }

  private readonly notes = new Notes();
}

class StepLogReader implements SourceReader {
  private readonly file: FollowedFile;
  private readonly lines = new LineReader(MAX_LOG_LINE);
  /** The file identity the year and bindings were read for. */
  private setUpFor = '';
  private year = new Date().getFullYear();
  private bindings: StepBindings | undefined;

  constructor(
    private readonly src: StepLogSource,
    cursor: Cursor | undefined,
  ) {
    this.file = new FollowedFile(src.files, src.file, cursor, (c) => this.changed(c));
  }

  private changed(c: FileChange): void {
    const f = this.src.info.path;
    if (c.kind === 'truncated')
      this.src.report(`truncated:${this.file.fid}:${c.size}`, `relay: ${f} was truncated (${c.from} → ${c.size} bytes): reading it again from its start`);
    else
      this.src.report(
        `replaced:${this.file.fid}`,
        `relay: ${f} was replaced (rotated, or its directory recreated): ${c.lostBytes ? `${c.lostBytes} unterminated byte(s) at the end of the old file skipped; ` : ''}reading the new file from its start`,
      );
  }

  next(budget: number): Promise<Batch | undefined> {
    return asPromise(() => this.read(budget));
  }

  private read(budget: number): Batch | undefined {
    const batch = new PointBatch();
    for (;;) {
      const at = this.file.where();
      if (!at) return undefined;
      if (this.setUpFor !== this.file.fid) {
        this.setUpFor = this.file.fid;
        // The lines' stamps have no year: the file's own.
        this.year = fs.fstatSync(at.fd).mtime.getFullYear();
        // <job_dir>/log/<role>.log next to <job_dir>/monitor/shared_step_bindings/
        this.bindings = loadSharedStepBindings(path.join(path.dirname(path.dirname(this.src.file)), 'monitor'), this.src.files.root);
      }
      const start = this.file.offset;
      const got = this.lines.read(at.fd, start, Math.min(budget, 8 * 1024 * 1024));
      if (got.skipped)
        this.src.report(
          `long:${this.file.fid}:${got.next}`,
          `relay: ${this.src.info.path}: skipped ${got.skipped} line(s) longer than ${MAX_LOG_LINE} bytes (before byte ${got.next})`,
        );
      const { buf } = got;
      let i = got.from;
      while (i < got.to) {
        const nl = buf.indexOf(NL, i);
        const line = buf.toString('utf8', i, nl);
        i = nl + 1;
        if (!line.includes('Step ')) continue;
        const p = parseStepLine(line, this.year);
        if (!p) continue;
        const wall = p.wallTime ?? Date.now() / 1000;
        for (const [k, v] of p.values) {
          const tag = this.tagOf(k);
          if (tag !== undefined) batch.add(tag, p.step, wall, v);
        }
      }
      this.file.moveTo(got.next, at.fd);
      if (batch.size > 0) break;
      if (got.next > start) continue; // only lines without steps: read on
      if (!this.file.drained(at.size)) return undefined;
    }
    return batch.toBatch(this.src.info, this.file.at(this.src.info.id));
  }

  /** The series tag of a key: a shared-run key of this role loses its prefix; step axes none. */
  private tagOf(key: string): string | undefined {
    if (!key.includes('/')) return key;
    const role = this.src.info.role;
    const s = sharedRunSeries(key, role, this.bindings);
    if (!s) return undefined;
    return s.role === role ? s.tag : key;
  }

  close(): void {
    this.file.close();
  }
}

const NL = 0x0a;
