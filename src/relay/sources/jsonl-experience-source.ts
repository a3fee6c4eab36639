// Trinity's queue buffer (the default) keeps a backup of every experience it passes on as one
// JSON line in `<job_dir>/buffer/<name>.jsonl` (its FileStorage / JSONWriter: Experience.to_dict
// — eid, reward, info, metrics, messages…); the file experience buffer writes the same. This
// source streams those lines as experience rows. Append-only, so the cursor is a byte offset
// (fid = file identity) and a row's id is its line's offset + 1: reading a row's content back
// is one bounded read at that offset, however large the file grows.
import * as fs from 'node:fs';
import type { Cursor, ExperienceDetail, ExperienceRow, SourceInfo } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';
import { numericMetrics } from './experience-summary';
import { Batch, FileSource, SourceReader, fileId, resumeOffset } from './source';

/** Source bytes read per batch (a batch ends at a line end). */
const READ_BYTES = 1024 * 1024;
/** A longer line (a huge multimodal experience) is skipped in the list, read only on request. */
const MAX_LINE = 64 * 1024 * 1024;

interface Eid {
  batch?: unknown;
  task?: unknown;
  run?: unknown;
  step?: unknown;
  suffix?: unknown;
}

function int(v: unknown): number | null {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
}

/** One line of Experience.to_dict() as a row (undefined when it is not one). */
export function rowOfLine(line: string, id: number, table: string): ExperienceRow | undefined {
  let o: { eid?: Eid; reward?: unknown; info?: Record<string, unknown>; metrics?: unknown };
  try {
    o = JSON.parse(line) as typeof o;
  } catch {
    return undefined;
  }
  if (typeof o !== 'object' || o === null || typeof o.eid !== 'object' || o.eid === null) return undefined;
  const e = o.eid;
  const metrics = numericMetrics(o.metrics);
  return {
    id,
    table,
    // As Trinity's SQL buffer stores it (ExperienceModel.from_experience: str(eid.task)).
    task_id: e.task === undefined || e.task === null ? null : String(e.task),
    run_id: int(e.run),
    model_version: int(o.info?.model_version) ?? int(e.step),
    reward: typeof o.reward === 'number' ? toWireNumber(o.reward) : null,
    timestamp: null,
    msg_id: e.suffix === undefined || e.suffix === null ? null : String(e.suffix),
    ...(metrics ? { metrics } : {}),
  };
}

export class JsonlExperienceSource extends FileSource {
  /** The table name rows carry (the buffer's name). */
  readonly table: string;

  constructor(info: SourceInfo, file: string) {
    super(info, file);
    this.table = info.role;
  }

  async readDetail(id: number): Promise<ExperienceDetail> {
    const offset = id - 1;
    const fd = fs.openSync(this.file, 'r');
    try {
      const chunks: Buffer[] = [];
      let pos = offset;
      for (;;) {
        const buf = Buffer.alloc(64 * 1024);
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        const nl = buf.subarray(0, n).indexOf(10);
        chunks.push(buf.subarray(0, nl < 0 ? n : nl));
        if (nl >= 0) break;
        pos += n;
        if (pos - offset > MAX_LINE) throw new Error(`row ${id} is longer than ${MAX_LINE} bytes`);
      }
      const o = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`no experience at ${id}`);
      return o as ExperienceDetail;
    } catch (e) {
      throw new Error(`${this.info.path}: row ${id}: ${(e as Error).message}`);
    } finally {
      fs.closeSync(fd);
    }
  }

  open(cursor: Cursor | undefined): SourceReader {
    let fid: string | undefined;
    let offset = 0;
    return {
      next: async (): Promise<Batch | undefined> => {
        let st: fs.Stats;
        try {
          st = fs.statSync(this.file);
        } catch {
          return undefined;
        }
        if (fid === undefined) offset = resumeOffset(cursor, st);
        else if (fid !== fileId(st) || st.size < offset) offset = 0; // replaced or truncated
        fid = fileId(st);
        if (st.size <= offset) return undefined;
        const want = Math.min(READ_BYTES, st.size - offset);
        const buf = Buffer.alloc(want);
        const fd = fs.openSync(this.file, 'r');
        let got: number;
        try {
          got = fs.readSync(fd, buf, 0, want, offset);
        } finally {
          fs.closeSync(fd);
        }
        const rows: ExperienceRow[] = [];
        let start = 0;
        for (;;) {
          const nl = buf.indexOf(10, start);
          if (nl < 0 || nl >= got) break;
          const row = rowOfLine(buf.toString('utf8', start, nl), offset + start + 1, this.table);
          if (row) rows.push(row);
          start = nl + 1;
        }
        if (start === 0) {
          if (got < READ_BYTES) return undefined; // the last line is still being written
          // One line longer than a read: skip to its end without keeping it.
          const end = skipLine(this.file, offset + got);
          if (end === undefined) return undefined;
          start = end - offset;
        }
        offset += start;
        return { type: 'experiences', source: this.info.id, run: this.info.run, rows, cursor: { source: this.info.id, fid, offset } };
      },
      close: () => undefined,
    };
  }
}

/** The offset just past the next newline at or after `from` (undefined: none yet). */
function skipLine(file: string, from: number): number | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    for (let pos = from; ; pos += buf.length) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) return undefined;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) return pos + nl + 1;
    }
  } finally {
    fs.closeSync(fd);
  }
}
