// The scalars of a Trinity job dir read once, in process, for `agentrl pipeline --job-dir` and
// its bench: the relay's own discovery (event files under monitor/tensorboard/<role>/, the
// `Step N: {...}` lines of log/<role>.log for roles without event files) and readers.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TfRecordFileReader } from '../../tfrecord/file-reader';
import { discoverJob } from '../sources/discovery';
import { LineReader } from '../sources/line-reader';
import { parseStepLine } from '../sources/step-log';

export type PointSink = (role: string, tag: string, step: number, wallTime: number | undefined, value: number) => void;

export interface JobRead {
  /** Roles read, with where from ('tfevents' | 'log'). */
  roles: { role: string; kind: 'tfevents' | 'log'; file: string }[];
  /** Files that could not be read, with why. */
  failures: string[];
}

const MAX_LOG_LINE = 4 * 1024 * 1024;
const LOG_BUDGET = 4 * 1024 * 1024;

/** Feeds every scalar of the job dir's root run to `sink` (stage sub-runs are not merged in). */
export function readJobScalars(jobDir: string, sink: PointSink): JobRead {
  const dir = path.resolve(jobDir);
  if (!fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  const run = path.basename(dir);
  const out: JobRead = { roles: [], failures: [] };
  for (const spec of discoverJob({ mode: 'job', dir }).specs) {
    if (spec.run !== run || (spec.kind !== 'tfevents' && spec.kind !== 'log')) continue;
    try {
      if (spec.kind === 'tfevents') readEvents(spec.abs, spec.role, sink);
      else readLog(spec.abs, spec.role, sink);
      out.roles.push({ role: spec.role, kind: spec.kind, file: spec.rel });
    } catch (e) {
      out.failures.push(`${spec.rel}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

function readEvents(file: string, role: string, sink: PointSink): void {
  const r = new TfRecordFileReader(file, 0, { pipelineMinBytes: Infinity });
  try {
    r.read({ add: (tag, step, wallTime, value) => sink(role, tag, step, wallTime, value) });
  } finally {
    r.close();
  }
}

function readLog(file: string, role: string, sink: PointSink): void {
  const fd = fs.openSync(file, 'r');
  try {
    const lines = new LineReader(MAX_LOG_LINE);
    const year = new Date(fs.fstatSync(fd).mtimeMs).getFullYear();
    let offset = 0;
    for (;;) {
      const got = lines.read(fd, offset, LOG_BUDGET);
      const text = got.buf.subarray(got.from, got.to).toString('utf8');
      for (const line of text.split('\n')) {
        if (!line.includes('Step ')) continue;
        const s = parseStepLine(line, year);
        if (s) for (const [tag, v] of s.values) sink(role, tag, s.step, s.wallTime, v);
      }
      if (got.next === offset) break;
      offset = got.next;
    }
  } finally {
    fs.closeSync(fd);
  }
}
