// Finds the sources under the relay's root: a Trinity job dir (`--job-dir`) or any
// TensorBoard logdir (`--logdir`). Only regular files inside the root are considered: symbolic
// links met while walking are not followed, and the directories and files the layout names
// (`log/`, `buffer/`, `monitor/tensorboard/`, `*_server_url.txt`) are used only when they
// resolve inside the root (job-root.ts); one that leads outside is refused and reported.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SourceKind } from '../../relay-protocol/messages';
import type { JobRoot } from './job-root';

export interface RelayRoot {
  mode: 'job' | 'logdir';
  /** Absolute path of the job dir or logdir. */
  dir: string;
  /** Run name (job mode; default: the job dir's name). */
  run?: string;
}

export interface SourceSpec {
  id: string;
  kind: SourceKind;
  run: string;
  role: string;
  /** Path relative to the root. */
  rel: string;
  abs: string;
}

export interface Discovery {
  specs: SourceSpec[];
  /** Directories worth watching for new files. */
  dirs: string[];
}

/** What discovery checks paths against: the root's boundary, and where a refusal is reported. */
export interface Boundary {
  root: JobRoot;
  report: (message: string) => void;
}

/** Whether `p` may be used (inside the root, or no boundary given). */
const allowed = (b: Boundary | undefined, p: string): boolean => !b || b.root.allows(p, b.report);

const MAX_ENTRIES = 20000;
const MAX_DEPTH = 12;

const isEventFile = (name: string) => name.includes('tfevents');

interface Walked {
  files: string[];
  dirs: string[];
}

/** Regular files and directories under dir (no symlinks, no dot-dirs), bounded; nothing when dir leads outside the root. */
function walk(dir: string, depth = MAX_DEPTH, out: Walked = { files: [], dirs: [] }, b?: Boundary): Walked {
  if (!allowed(b, dir)) return out;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  out.dirs.push(dir);
  for (const e of entries) {
    if (out.files.length + out.dirs.length > MAX_ENTRIES) break;
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith('.') && depth > 0) walk(p, depth - 1, out);
    else if (e.isFile()) out.files.push(p);
  }
  return out;
}

const rel = (root: string, p: string) => path.relative(root, p).split(path.sep).join('/');
const exists = (p: string) => fs.existsSync(p);

function discoverLogdir(root: RelayRoot, b?: Boundary): Discovery {
  const w = walk(root.dir, MAX_DEPTH, undefined, b);
  const specs: SourceSpec[] = [];
  for (const f of w.files.filter((f) => isEventFile(path.basename(f))).sort()) {
    const r = rel(root.dir, f);
    const runDir = rel(root.dir, path.dirname(f));
    // Event files at the logdir's top level belong to the run named after the folder, never ".".
    const run = runDir === '' ? (root.run ?? path.basename(root.dir)) : runDir;
    specs.push({ id: `tfevents:${r}`, kind: 'tfevents', run, role: '', rel: r, abs: f });
  }
  return { specs, dirs: w.dirs };
}

/** A job dir and its stage sub-dirs (`<name>/<stage_name>`), each with its run name. */
function jobDirs(root: RelayRoot): [string, string][] {
  const name = root.run ?? path.basename(root.dir);
  const out: [string, string][] = [[root.dir, name]];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root.dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(root.dir, e.name);
    if (e.isDirectory() && !['monitor', 'log', 'buffer'].includes(e.name) && !e.name.startsWith('global_step_') && exists(path.join(p, 'monitor'))) {
      out.push([p, `${name}/${e.name}`]);
    }
  }
  return out;
}

/** SQLite files of a job dir; their tables are found later (that needs the database). */
export function discoverJob(root: RelayRoot, b?: Boundary): Discovery {
  const specs: SourceSpec[] = [];
  const dirs: string[] = [];
  for (const [dir, run] of jobDirs(root)) {
    dirs.push(dir);
    const tb = path.join(dir, 'monitor', 'tensorboard');
    const w = walk(tb, 4, undefined, b);
    dirs.push(...w.dirs);
    const rolesWithEvents = new Set<string>();
    for (const f of w.files.filter((f) => isEventFile(path.basename(f))).sort()) {
      const role = rel(tb, f).split('/')[0];
      if (role === path.basename(f)) continue; // an event file directly in tensorboard/: no role
      rolesWithEvents.add(role);
      const r = rel(root.dir, f);
      specs.push({ id: `tfevents:${r}`, kind: 'tfevents', run, role, rel: r, abs: f });
    }
    // Step lines of a role that writes no event files (other monitors: wandb, mlflow, ...).
    const logs = walk(path.join(dir, 'log'), 1, undefined, b);
    dirs.push(...logs.dirs);
    for (const f of logs.files.filter((f) => f.endsWith('.log')).sort()) {
      const role = path.basename(f, '.log');
      if (rolesWithEvents.has(role)) continue;
      const r = rel(root.dir, f);
      specs.push({ id: `log:${r}`, kind: 'log', run, role, rel: r, abs: f });
    }
    const buffer = walk(path.join(dir, 'buffer'), 0, undefined, b);
    dirs.push(...buffer.dirs);
    for (const f of buffer.files.filter((f) => f.endsWith('.db')).sort()) {
      const r = rel(root.dir, f);
      specs.push({ id: `sql:${r}`, kind: 'sql', run, role: '', rel: r, abs: f });
    }
    // The queue buffer's backup and the file buffer: Experience.to_dict() per line.
    for (const f of buffer.files.filter((f) => f.endsWith('.jsonl')).sort()) {
      const r = rel(root.dir, f);
      specs.push({ id: `jsonl:${r}`, kind: 'jsonl', run, role: path.basename(f, '.jsonl'), rel: r, abs: f });
    }
    let top: string[] = [];
    try {
      top = fs.readdirSync(dir);
    } catch {
      /* vanished */
    }
    for (const n of top.filter((n) => n.endsWith('_server_url.txt')).sort()) {
      const f = path.join(dir, n);
      if (!allowed(b, f)) continue;
      const r = rel(root.dir, f);
      specs.push({ id: `serve:${r}`, kind: 'serve', run, role: n.slice(0, -'_server_url.txt'.length), rel: r, abs: f });
    }
  }
  return { specs, dirs };
}

export function discover(root: RelayRoot, boundary?: Boundary): Discovery {
  return root.mode === 'job' ? discoverJob(root, boundary) : discoverLogdir(root, boundary);
}
