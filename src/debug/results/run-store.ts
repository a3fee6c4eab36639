// Reads saved runs (.agentrl/runs/<id>/) for the Rollouts view and `agentrl rollout`.
// Pure: no vscode. Tolerates runs cut short (torn last line, missing summary).
import * as fs from 'fs';
import * as path from 'path';
import {
  FORK_FILE,
  FORKS_DIR,
  RUNS_DIR,
  SUMMARY_FILE,
  TRAJECTORIES_FILE,
  type EpisodeTrajectory,
  type ForkInfo,
  type RolloutSummary,
} from '../trajectory/trajectory';

export interface RunInfo {
  id: string;
  dir: string;
  summary?: RolloutSummary;
  /** The launch configuration the run was started with (launch.json in the run folder). */
  launch?: Record<string, unknown>;
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Runs under `root`, newest first. */
export function listRuns(root: string): RunInfo[] {
  const base = path.join(root, RUNS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(base);
  } catch {
    return [];
  }
  return names
    .filter((n) => fs.statSync(path.join(base, n), { throwIfNoEntry: false })?.isDirectory())
    .sort()
    .reverse()
    .map((id) => {
      const dir = path.join(base, id);
      return {
        id,
        dir,
        summary: readJson<RolloutSummary>(path.join(dir, SUMMARY_FILE)),
        launch: readJson<Record<string, unknown>>(path.join(dir, 'launch.json')),
      };
    });
}

/** Far above any real run's trajectories (a 2 000-episode run with long turns is ~200 MB). */
const MAX_TRAJECTORIES_BYTES = 512 * 1024 * 1024;

function isEpisode(v: unknown): v is EpisodeTrajectory {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const e = v as Partial<EpisodeTrajectory>;
  return typeof e.episode === 'string' && (typeof e.taskId === 'string' || typeof e.taskId === 'number') && typeof e.repeat === 'number';
}

export function readEpisodes(runDir: string): EpisodeTrajectory[] {
  let text: string;
  try {
    // A regular file of a sane size only: a link to /dev/zero or a FIFO would be read for good.
    const file = path.join(runDir, TRAJECTORIES_FILE);
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_TRAJECTORIES_BYTES) return [];
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: EpisodeTrajectory[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const ep = JSON.parse(line) as unknown;
      // A line that is not an episode (`null`, `{}`, a number) is skipped, as a torn one is.
      if (isEpisode(ep)) out.push(ep);
    } catch {
      /* a torn last line of an interrupted run */
    }
  }
  return out;
}

/** The forks of a run (the original branches of its edited episodes), with their folders. */
export function listForks(runDir: string): { dir: string; info: ForkInfo }[] {
  const base = path.join(runDir, FORKS_DIR);
  let names: string[];
  try {
    names = fs.readdirSync(base).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const info = readJson<ForkInfo>(path.join(base, n, FORK_FILE));
    return info ? [{ dir: path.join(base, n), info }] : [];
  });
}
