// Trinity's queue buffer (the default) keeps a backup of every experience it passes on as one
// JSON line in `<job_dir>/buffer/<name>.jsonl` (its FileStorage / JSONWriter: Experience.to_dict
// — eid, reward, info, metrics, messages…); the file experience buffer writes the same. This
// source streams those lines as experience rows. Append-only, so the cursor is a byte offset
// (fid = file identity) and a row's id is its line's offset + 1: reading a row's content back
// is one bounded read at that offset, however large the file grows.
import * as fs from 'node:fs';
import type { Cursor, ExperienceDetail, ExperienceRow, SourceInfo } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';
import type { Logger } from '../../base/log';
import { asPromise } from '../../base/promise';
import { valueText } from '../../base/value-text';
import { boundedJsonOf, numericMetrics, responseHash, taskIndexOf } from '../formats/trxp';
import { FileChange, FollowedFile } from './followed-file';
import { LineReader } from './line-reader';
import type { OpenFiles } from './open-files';
import { Batch, FileSource, Notes, RowTokens, SourceReader } from './source';

/** Source bytes read per batch (a batch ends at a line end). */
const READ_BYTES = 1024 * 1024;
/** A longer line is not read even on request. */
const MAX_LINE = 16 * 1024 * 1024;

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
function rowOfLine(line: string, id: number, table: string): ExperienceRow | undefined {
  let o: { eid?: Eid; reward?: unknown; info?: Record<string, unknown>; metrics?: unknown; response_text?: unknown };
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
    task_id: e.task === undefined || e.task === null ? null : valueText(e.task),
    run_id: int(e.run),
    model_version: int(o.info?.model_version) ?? int(e.step),
    reward: typeof o.reward === 'number' ? toWireNumber(o.reward) : null,
    timestamp: null,
    msg_id: e.suffix === undefined || e.suffix === null ? null : valueText(e.suffix),
    ...(metrics ? { metrics } : {}),
    ...taskIndexOf(o.info),
    ...(typeof o.response_text === 'string' && o.response_text.trim() !== '' ? { response_hash: responseHash(o.response_text) } : {}),
  };
}

export class JsonlExperienceSource extends FileSource {
  /** The table name rows carry (the buffer's name). */
  readonly table: string;
  private readonly notes = new Notes();

  constructor(
    info: SourceInfo,
    file: string,
    readonly files: OpenFiles,
    private readonly log: Logger,
  ) {
    super(info, file);
    this.table = info.role;
  }

  async readDetail(id: number): Promise<ExperienceDetail> {
    // Held to the same bounds as a decoded SQL row (long strings cut, a size limit).
    return this.withLine(id, (o) => boundedJsonOf(o) as ExperienceDetail);
  }

  /** A line keeps no token ids (Experience.to_dict): its texts, for the editor to re-tokenize. */
  async readTokens(id: number): Promise<RowTokens> {
    return this.withLine(id, (o) => {
      const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
      const count = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
      const texts = boundedJsonOf({
        response_text: text(o.response_text),
        prompt_text: text(o.prompt_text),
        messages: Array.isArray(o.messages) ? o.messages : null,
        tools: Array.isArray(o.tools) ? o.tools : null,
      }) as Pick<RowTokens, 'response_text' | 'prompt_text' | 'messages' | 'tools'>;
      return {
        kind: 'texts',
        prompt_length: count(o.prompt_length),
        response_length: count(o.response_length),
        truncate_status: text(o.truncate_status),
        reward: typeof o.reward === 'number' ? toWireNumber(o.reward) : null,
        ...texts,
        arrays: {},
      };
    });
  }

  /** The JSON object of the line at row `id` (its offset + 1), read within MAX_LINE. */
  private async withLine<T>(id: number, use: (o: Record<string, unknown>) => T): Promise<T> {
    if (id < 1) throw new Error(`${this.info.path}: no row ${id}`);
    const offset = id - 1;
    const fd = this.files.openFd(this.file);
    try {
      // A row id is a line's offset + 1: one that points into a line is no row (not parsed mid-line).
      const before = Buffer.alloc(1);
      if (offset > 0 && (fs.readSync(fd, before, 0, 1, offset - 1) !== 1 || before[0] !== 10)) throw new Error('not the start of a line');
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
      return await Promise.resolve(use(o as Record<string, unknown>));
    } catch (e) {
      throw new Error(`${this.info.path}: row ${id}: ${(e as Error).message}`, { cause: e });
    } finally {
      fs.closeSync(fd);
    }
  }

  open(cursor: Cursor | undefined): SourceReader {
    const file = new FollowedFile(this.files, this.file, cursor, (c) => this.changed(file.fid, c));
    // A line longer than a read (a huge multimodal experience) is skipped in the list, read only on request.
    const lines = new LineReader(READ_BYTES);
    return {
      next: () =>
        asPromise((): Batch | undefined => {
          for (;;) {
            const at = file.where();
            if (!at) return undefined;
            const start = file.offset;
            const got = lines.read(at.fd, start, READ_BYTES);
            if (got.skipped)
              this.notes.say(
                `long:${file.fid}:${got.next}`,
                `relay: ${this.info.path}: ${got.skipped} line(s) longer than ${READ_BYTES} bytes not listed (before byte ${got.next})`,
                this.log,
              );
            const rows: ExperienceRow[] = [];
            for (let i = got.from; i < got.to;) {
              const nl = got.buf.indexOf(10, i);
              const row = rowOfLine(got.buf.toString('utf8', i, nl), got.at + i + 1, this.table);
              if (row) rows.push(row);
              i = nl + 1;
            }
            file.moveTo(got.next, at.fd);
            if (got.next > start) return { type: 'experiences', source: this.info.id, run: this.info.run, rows, cursor: file.at(this.info.id) };
            if (!file.drained(at.size)) return undefined;
          }
        }),
      close: () => file.close(),
    };
  }

  private changed(fid: string, c: FileChange): void {
    if (c.kind === 'truncated')
      this.notes.say(`t:${fid}:${c.size}`, `relay: ${this.info.path} was truncated (${c.from} → ${c.size} bytes): reading it again from its start`, this.log);
    else this.notes.say(`r:${fid}`, `relay: ${this.info.path} was replaced: reading the new file from its start`, this.log);
  }
}
