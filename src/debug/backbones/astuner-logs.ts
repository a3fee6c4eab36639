// ASTuner / AgentJet debug output as episodes: beast-logger rollout logs
// (`saved_experiments/<exp>/<time>/<host>/rollout/rollout.json.log`, two lines per entry:
// a loguru header, then JSON or `base64:` + zlib JSON) and AgentJet trajectory dumps
// (`.../trajectory/<split>/step_<n>/<task_id>.json`).
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import type { EpisodeTrajectory } from '../trajectory/trajectory';

function walk(dir: string, depth: number, out: string[] = []): string[] {
  if (depth < 0) return out;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, depth - 1, out);
    else out.push(p);
  }
  return out;
}

interface LogEntry {
  header?: string;
  content?: unknown;
  nested_json?: Record<string, unknown>;
}

function parseBeastLog(text: string): LogEntry[] {
  const out: LogEntry[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t || /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/.test(t)) continue; // loguru header line
    try {
      if (t.startsWith('base64:')) out.push(JSON.parse(zlib.inflateSync(Buffer.from(t.slice(7), 'base64')).toString('utf8')) as LogEntry);
      else if (t.startsWith('{')) out.push(JSON.parse(t) as LogEntry);
    } catch {
      /* a torn line of a log still being written */
    }
  }
  return out;
}

/** Episodes from the newest ASTuner/AgentJet debug run under `cwd/saved_experiments`. */
export function readRolloutLog(cwd: string): EpisodeTrajectory[] {
  const files = walk(path.join(cwd, 'saved_experiments'), 6);
  const dumps = files.filter((f) => /[\\/]trajectory[\\/][^\\/]+[\\/]step_[^\\/]+[\\/][^\\/]+\.json$/.test(f));
  const logs = files.filter((f) => f.endsWith(path.join('rollout', 'rollout.json.log'))).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  const seen = new Map<string, number>();
  const next = (taskId: string) => {
    const k = seen.get(taskId) ?? 0;
    seen.set(taskId, k + 1);
    return k;
  };
  if (dumps.length) {
    return dumps.sort().map((f, i) => {
      const d = JSON.parse(fs.readFileSync(f, 'utf8')) as { task_id?: string; task_tag?: string; reward_structure?: { raw_reward?: number }; traj?: unknown };
      const taskId = String(d.task_id ?? path.basename(f, '.json'));
      const repeat = next(taskId);
      return {
        episode: d.task_tag ?? `T${taskId}#R${repeat}`,
        taskIndex: i,
        taskId,
        repeat,
        task: null,
        turns: [],
        reward: d.reward_structure?.raw_reward ?? null,
        metrics: {},
        metadata: { file: f, traj: d.traj },
        experiences: [],
      };
    });
  }
  if (!logs.length) throw new Error(`no rollout log under ${path.join(cwd, 'saved_experiments')}`);
  const out: EpisodeTrajectory[] = [];
  for (const e of parseBeastLog(fs.readFileSync(logs[0], 'utf8'))) {
    const m = /Task (\S+) \(Reward (-?[\d.]+)\)/.exec(e.header ?? '');
    if (!m) continue;
    const taskId = m[1];
    const repeat = next(taskId);
    out.push({
      episode: `T${taskId}#R${repeat}`,
      taskIndex: out.length,
      taskId,
      repeat,
      task: null,
      turns: [],
      reward: Number(m[2]),
      metrics: {},
      metadata: { header: e.header, log: logs[0], ...(e.nested_json ? { nested: e.nested_json } : {}) },
      experiences: [],
    });
  }
  return out;
}
