// Serve mode: the explorer writes its URL to `<job_dir>/<explorer>_server_url.txt`; its
// `GET /metrics` returns a flat JSON object of counters. The relay polls it and streams each
// changed sample as points at step = `explore_step_num`. Samples persist like every other
// series: each is appended as one JSON line to `<job_dir>/monitor/agentrl/<explorer>_metrics.jsonl`
// (cursor = byte offset, fid = that file's identity), so a relay restart, a later viewer or
// a finished run still has them. One relay polls per file (a lock file with its pid); others
// only read. Where the job dir is not writable, samples stay in a ring of this process.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as path from 'node:path';
import type { Cursor, SourceInfo } from '../../relay-protocol/messages';
import type { Logger } from '../../base/log';
import { asPromise } from '../../base/promise';
import { OutsideRoot, type JobRoot } from './job-root';
import { Batch, PointBatch, Source, SourceReader, fileId, readSmallText } from './source';

interface Sample {
  seq: number;
  wallTime: number;
  step: number;
  values: [string, number][];
}

const RING = 1000;
/** Bytes of the sample file read per batch at most (a batch ends at a line end). */
const READ_BYTES = 256 * 1024;

/** GETs a small JSON document (≤ 1 MiB) with a timeout. */
function getJson(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const mod = url.startsWith('https:') ? https : http;
    const req = mod.get(url, { timeout: timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`HTTP ${res.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > 1024 * 1024) req.destroy(new Error('response too large'));
        else chunks.push(c);
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Where the samples of the explorer whose URL is in `urlFile` are kept. */
export function serveSamplesFile(urlFile: string): string {
  const role = path.basename(urlFile).replace(/_server_url\.txt$/, '');
  return path.join(path.dirname(urlFile), 'monitor', 'agentrl', `${role}_metrics.jsonl`);
}

/** Throws when `p` exists and resolves outside the root (a symbolic link pointing out, even a dangling one). */
function insideOrAbsent(root: JobRoot, p: string): void {
  let link: boolean;
  try {
    link = fs.lstatSync(p).isSymbolicLink();
  } catch {
    return; // absent: created inside
  }
  if (link && !fs.existsSync(p)) throw new OutsideRoot(p, fs.readlinkSync(p));
  root.resolve(p);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock contents held by sources of this process (several relays may share one process). */
const heldHere = new Set<string>();

/** Takes `<file>.lock` (replacing a dead holder's); its contents when taken, undefined when another relay polls. */
function takeLock(lock: string): string | undefined {
  const mine = `${process.pid} ${Math.random().toString(36).slice(2)}`;
  for (let i = 0; i < 2; i++) {
    try {
      fs.writeFileSync(lock, mine, { flag: 'wx' });
      heldHere.add(mine);
      return mine;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const held = fs.readFileSync(lock, 'utf8').trim();
      const pid = Number(held.split(' ')[0]);
      const alive = pid === process.pid ? heldHere.has(held) : Number.isSafeInteger(pid) && pid > 0 && pidAlive(pid);
      if (alive) return undefined;
      fs.rmSync(lock, { force: true });
    }
  }
  return undefined;
}

export class ServeMetricsSource implements Source {
  readonly watchPaths: string[];
  private readonly samples: Sample[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastKey = '';
  private failing = false;
  /** The sample file, or undefined when it cannot be written (ring only). */
  private readonly file: string | undefined;
  private lock: { file: string; mine: string } | undefined;

  constructor(
    readonly info: SourceInfo,
    readonly urlFile: string,
    private readonly instance: string,
    private readonly pollMs: number,
    private readonly onChange: () => void,
    private readonly log: Logger,
    private readonly root?: JobRoot,
  ) {
    const file = serveSamplesFile(urlFile);
    let polls = true;
    try {
      // Written to only inside the relay's directory: a symlinked monitor/ (or file) leads elsewhere.
      if (root) for (const p of [path.dirname(path.dirname(file)), path.dirname(file)]) insideOrAbsent(root, p);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      if (root) for (const p of [path.dirname(file), file, `${file}.lock`]) insideOrAbsent(root, p);
      fs.closeSync(fs.openSync(file, 'a'));
      const mine = takeLock(`${file}.lock`);
      polls = mine !== undefined;
      if (mine) this.lock = { file: `${file}.lock`, mine };
      this.file = file;
      this.lastKey = lastLineKey(file);
    } catch (e) {
      this.log.warn(`serve: cannot keep samples in ${file} (${(e as Error).message}); they live in this relay only`);
    }
    this.watchPaths = [path.dirname(urlFile), ...(this.file ? [path.dirname(this.file)] : [])];
    if (!polls) {
      this.log.info(`serve: another relay polls ${this.info.role}; reading its samples from ${file}`);
      return;
    }
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
    void this.poll();
  }

  private async poll(): Promise<void> {
    let url: string;
    try {
      url = (this.root ? readSmallText(this.root, this.urlFile) : fs.readFileSync(this.urlFile, 'utf8')).trim().replace(/\/+$/, '');
      if (!/^https?:\/\//.test(url)) throw new Error(`not an http(s) URL: ${url.slice(0, 80)}`);
    } catch (e) {
      return this.fail(`serve: ${this.urlFile}: ${(e as Error).message}`);
    }
    let body: unknown;
    try {
      body = await getJson(`${url}/metrics`, Math.max(1000, this.pollMs));
    } catch (e) {
      return this.fail(`serve: ${url}/metrics: ${(e as Error).message}`);
    }
    if (this.failing) this.log.info(`serve: ${url}/metrics answers again`);
    this.failing = false;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    const values = Object.entries(body as Record<string, unknown>).filter((e): e is [string, number] => typeof e[1] === 'number');
    const key = JSON.stringify(values);
    if (key === this.lastKey || this.timer === undefined) return;
    this.lastKey = key;
    const step = Number((body as Record<string, unknown>).explore_step_num ?? 0);
    const sample = { seq: ++this.seq, wallTime: Date.now() / 1000, step: Number.isSafeInteger(step) ? step : 0, values };
    if (this.file) {
      try {
        fs.appendFileSync(this.file, `${JSON.stringify({ step: sample.step, wall_time: sample.wallTime, values: Object.fromEntries(values) })}\n`);
      } catch (e) {
        return this.fail(`serve: cannot append to ${this.file}: ${(e as Error).message}`);
      }
    } else {
      this.samples.push(sample);
      if (this.samples.length > RING) this.samples.shift();
    }
    this.onChange();
  }

  private fail(message: string): void {
    if (!this.failing) this.log.warn(message);
    this.failing = true;
  }

  open(cursor: Cursor | undefined): SourceReader {
    return this.file ? this.openFile(this.file, cursor) : this.openRing(cursor);
  }

  private openFile(file: string, cursor: Cursor | undefined): SourceReader {
    let fid: string | undefined;
    let offset = 0;
    return {
      next: () =>
        asPromise((): Batch | undefined => {
          let st: fs.Stats;
          try {
            st = fs.statSync(file);
          } catch {
            return undefined;
          }
          if (fid === undefined) {
            fid = fileId(st);
            offset = cursor && cursor.fid === fid && cursor.offset <= st.size ? cursor.offset : 0;
          } else if (fid !== fileId(st) || st.size < offset) {
            fid = fileId(st);
            offset = 0;
          }
          if (st.size <= offset) return undefined;
          const want = Math.min(READ_BYTES, st.size - offset);
          const buf = Buffer.alloc(want);
          const fd = fs.openSync(file, 'r');
          let got: number;
          try {
            got = fs.readSync(fd, buf, 0, want, offset);
          } finally {
            fs.closeSync(fd);
          }
          let end = buf.lastIndexOf(10, got - 1);
          if (end < 0) {
            if (got < READ_BYTES) return undefined; // a line still being written
            end = got - 1; // an absurdly long line: skip it
          }
          const batch = new PointBatch();
          for (const line of buf.toString('utf8', 0, end).split('\n')) addLine(batch, line);
          offset += end + 1;
          return batch.toBatch(this.info, { source: this.info.id, fid, offset });
        }),
      close: () => undefined,
    };
  }

  private openRing(cursor: Cursor | undefined): SourceReader {
    let after = cursor && cursor.fid === this.instance ? cursor.offset : 0;
    return {
      next: () =>
        asPromise((): Batch | undefined => {
          const fresh = this.samples.filter((s) => s.seq > after);
          if (fresh.length === 0) return undefined;
          const batch = new PointBatch();
          for (const s of fresh) for (const [k, v] of s.values) batch.add(k, s.step, s.wallTime, v);
          after = fresh[fresh.length - 1].seq;
          return batch.toBatch(this.info, { source: this.info.id, fid: this.instance, offset: after });
        }),
      close: () => undefined,
    };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.lock) {
      heldHere.delete(this.lock.mine);
      try {
        if (fs.readFileSync(this.lock.file, 'utf8').trim() === this.lock.mine) fs.rmSync(this.lock.file, { force: true });
      } catch {
        /* gone already */
      }
    }
    this.lock = undefined;
  }
}

/** One sample line into points (a torn or foreign line is skipped). */
function addLine(batch: PointBatch, line: string): void {
  if (!line) return;
  let o: { step?: unknown; wall_time?: unknown; values?: unknown };
  try {
    o = JSON.parse(line) as typeof o;
  } catch {
    return;
  }
  if (typeof o.step !== 'number' || typeof o.wall_time !== 'number' || typeof o.values !== 'object' || o.values === null) return;
  for (const [k, v] of Object.entries(o.values as Record<string, unknown>)) if (typeof v === 'number') batch.add(k, o.step, o.wall_time, v);
}

/** The dedupe key of the file's last sample, so a restarted relay does not repeat it. */
function lastLineKey(file: string): string {
  const st = fs.statSync(file);
  const n = Math.min(st.size, 64 * 1024);
  if (n === 0) return '';
  const buf = Buffer.alloc(n);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, buf, 0, n, st.size - n);
  } finally {
    fs.closeSync(fd);
  }
  const lines = buf.toString('utf8').trimEnd().split('\n');
  try {
    const o = JSON.parse(lines[lines.length - 1]) as { values?: Record<string, unknown> };
    return JSON.stringify(Object.entries(o.values ?? {}).filter((e) => typeof e[1] === 'number'));
  } catch {
    return '';
  }
}
