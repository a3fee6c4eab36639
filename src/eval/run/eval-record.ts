// What a comparison leaves under .agentrl/eval/<id>/: eval.json (the models, their endpoints
// and each model's scored episodes) and one run folder per model under runs/<model>/, recorded
// like a debug run (recording.jsonl, trajectories.jsonl, summary.json), so each model's calls
// replay with no model and its transcripts open as a debug run's do. Pure: no vscode.
import * as fs from 'fs';
import * as path from 'path';
import type { EpisodeOutcome } from '../../feature-api/rollouts';
import type { TaskRewards } from '../stats/paired';

export const EVAL_DIR = '.agentrl/eval';
const EVAL_FILE = 'eval.json';

export interface ModelRun {
  name: string;
  /** The endpoint (absent: a recorded run compared offline). */
  baseUrl?: string;
  /** The model's run folder, relative to the eval folder when inside it. */
  runDir: string;
  status: 'completed' | 'terminated' | 'failed' | 'unreachable';
  message?: string;
  llmCalls: number;
  episodes: EpisodeOutcome[];
}

export interface EvalRecord {
  version: 1;
  id: string;
  createdAt: string;
  config: string;
  tasks: number;
  repeat: number;
  /** The first model is the baseline the others are compared with. */
  models: ModelRun[];
  /** Set for an offline comparison: recorded runs, re-scored or as they were scored. */
  offline?: { rescored: boolean };
}

/** A new eval id: the time, sortable, plus a suffix when two start in the same second. */
export function newEvalId(root: string, now = new Date()): string {
  const base = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-');
  let id = base;
  for (let i = 2; fs.existsSync(path.join(root, EVAL_DIR, id)); i++) id = `${base}-${i}`;
  return id;
}

export function saveEval(dir: string, record: EvalRecord): void {
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `${EVAL_FILE}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  fs.renameSync(tmp, path.join(dir, EVAL_FILE));
}

/** Reads a saved comparison; a clear error for a missing or malformed file. */
export function loadEval(dir: string): EvalRecord {
  const file = path.join(dir, EVAL_FILE);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Cannot read the comparison ${file}: ${(e as Error).message}`, { cause: e });
  }
  const r = data as Partial<EvalRecord>;
  if (!r || r.version !== 1 || !Array.isArray(r.models) || r.models.some((m) => !m || typeof m.name !== 'string' || !Array.isArray(m.episodes))) {
    throw new Error(`${file} is not a saved comparison (version 1 with models and their episodes)`);
  }
  return r as EvalRecord;
}

export interface SavedComparison {
  id: string;
  dir: string;
  record: EvalRecord;
}

/** The saved comparisons under <root>/.agentrl/eval/, newest first; a folder without a readable
 *  eval.json (a comparison still running, or interrupted) is left out. */
export function listSaved(root: string): SavedComparison[] {
  const base = path.join(root, EVAL_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(base).sort().reverse();
  } catch {
    return [];
  }
  const out: SavedComparison[] = [];
  for (const id of names) {
    try {
      out.push({ id, dir: path.join(base, id), record: loadEval(path.join(base, id)) });
    } catch {
      // not (yet) a comparison
    }
  }
  return out;
}

/** A model's rewards per task id, one entry per repeat (null: failed), in first-seen task order. */
export function rewardsByTask(episodes: readonly EpisodeOutcome[]): Map<string, TaskRewards> {
  const out = new Map<string, (number | null)[]>();
  for (const e of episodes) {
    const list = out.get(e.taskId) ?? [];
    list.push(e.reward);
    out.set(e.taskId, list);
  }
  return out;
}
