// A Trinity actor log (`<job_dir>/log/<role>.log`) as a source of `Step N: {...}` points;
// cursor = (file identity, byte offset just after the last complete line read). Keys of a
// wandb shared run (`<role>/…`, hidden `<role>/step` axes) name the per-role series.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Cursor } from '../../relay-protocol/messages';
import { Batch, FileSource, PointBatch, SourceReader, fileId, resumeOffset } from './source';
import { loadSharedStepBindings, sharedRunSeries, type StepBindings } from './shared-run';
import { parseStepLine } from './step-log';

const NL = 0x0a;

export class StepLogSource extends FileSource {
  open(cursor: Cursor | undefined): SourceReader {
    return new StepLogReader(this, cursor);
  }
}

class StepLogReader implements SourceReader {
  private fd: number | undefined;
  private offset = 0;
  private fid = '';
  private year = new Date().getFullYear();
  private bindings: StepBindings | undefined;

  constructor(
    private readonly src: StepLogSource,
    private readonly cursor: Cursor | undefined,
  ) {}

  async next(budget: number): Promise<Batch | undefined> {
    if (this.fd === undefined) {
      let st: fs.Stats;
      try {
        st = fs.statSync(this.src.file);
        this.fd = fs.openSync(this.src.file, 'r');
      } catch {
        return undefined;
      }
      this.fid = fileId(st);
      this.offset = resumeOffset(this.cursor, st);
      this.year = st.mtime.getFullYear();
      // <job_dir>/log/<role>.log next to <job_dir>/monitor/shared_step_bindings/
      this.bindings = loadSharedStepBindings(path.join(path.dirname(path.dirname(this.src.file)), 'monitor'));
    }
    const batch = new PointBatch();
    let size = Math.min(Math.max(budget, 64 * 1024), 8 * 1024 * 1024);
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const got = fs.readSync(this.fd, buf, 0, size, this.offset);
      const last = buf.lastIndexOf(NL, got - 1);
      if (got === 0) break;
      if (last < 0) {
        // A line longer than the buffer: read more at once, unless the file ends mid-line.
        if (got < size || size >= 64 * 1024 * 1024) break;
        size *= 2;
        continue;
      }
      let start = 0;
      while (start <= last) {
        const nl = buf.indexOf(NL, start);
        const line = buf.toString('utf8', start, nl);
        start = nl + 1;
        if (!line.includes('Step ')) continue;
        const p = parseStepLine(line, this.year);
        if (!p) continue;
        const wall = p.wallTime ?? Date.now() / 1000;
        for (const [k, v] of p.values) {
          const tag = this.tagOf(k);
          if (tag !== undefined) batch.add(tag, p.step, wall, v);
        }
      }
      this.offset += last + 1;
      if (batch.size > 0 || got < size) break;
    }
    if (batch.size === 0) return undefined;
    return batch.toBatch(this.src.info, { source: this.src.info.id, fid: this.fid, offset: this.offset });
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
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
