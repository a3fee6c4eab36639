// An offline comparison: two or more recorded runs (debug runs or a comparison's model runs)
// compared without a model, as they were scored or re-scored with the workspace's current
// reward function ("what would this reward change have done to the last rollouts?"). Only the
// reward runs: the rollout service re-scores the recorded final responses. Pure: no vscode.
import * as fs from 'fs';
import * as path from 'path';
import type { RolloutService } from '../../feature-api/rollouts';
import { TRAJECTORIES_FILE } from '../../workspace-files/run-files';
import type { EvalRecord, ModelRun } from './eval-record';
import { EvalSetupError } from './run-eval';

export interface RecordedRun {
  name: string;
  dir: string;
}

/** `name=DIR` pairs of recorded run folders (each holding trajectories.jsonl). */
export function parseRuns(specs: readonly string[], cwd: string): RecordedRun[] {
  const out: RecordedRun[] = [];
  for (const spec of specs) {
    const m = /^([A-Za-z0-9][\w.-]*)=(.+)$/.exec(spec);
    if (!m) throw new EvalSetupError(`a recorded run is NAME=DIR (e.g. before=.agentrl/runs/20261127-101500), not '${spec}'`);
    const dir = path.resolve(cwd, m[2]);
    if (!fs.existsSync(path.join(dir, TRAJECTORIES_FILE))) throw new EvalSetupError(`run ${m[1]}: ${dir} is not a recorded run (no ${TRAJECTORIES_FILE})`);
    if (out.some((o) => o.name === m[1])) throw new EvalSetupError(`run name '${m[1]}' is given twice`);
    out.push({ name: m[1], dir });
  }
  if (out.length < 2) throw new EvalSetupError('an offline comparison needs at least two recorded runs: --runs before=DIR after=DIR');
  return out;
}

export interface OfflineOptions {
  runs: RecordedRun[];
  rescore: boolean;
  reward?: string;
  config?: string;
  cwd: string;
  python?: string;
  env?: NodeJS.ProcessEnv;
  /** Seconds one episode's reward may take, and one run's whole re-score. */
  limits?: { itemSeconds?: number; runSeconds?: number };
}

export async function compareRecorded(service: RolloutService, o: OfflineOptions): Promise<EvalRecord> {
  const models: ModelRun[] = [];
  for (const run of o.runs) {
    let episodes = service.recorded(run.dir);
    if (o.rescore) {
      const r = await service.rescore({ config: o.config!, cwd: o.cwd, python: o.python, runDir: run.dir, reward: o.reward, env: o.env, limits: o.limits });
      if (!r.ok) throw new EvalSetupError(`run ${run.name}: ${r.message}`);
      episodes = r.episodes;
    }
    // An empty, cut or unreadable run is no evidence: refused, never compared as "no difference".
    if (!episodes.length)
      throw new EvalSetupError(`run ${run.name}: ${run.dir} holds no recorded episodes (its trajectories.jsonl is missing, empty or unreadable)`);
    models.push({ name: run.name, runDir: run.dir, status: 'completed', llmCalls: 0, episodes });
  }
  const tasks = new Set(models.flatMap((m) => m.episodes.map((e) => e.taskId))).size;
  const repeat = Math.max(0, ...models.flatMap((m) => m.episodes.map((e) => e.repeat + 1)));
  return { version: 1, id: 'offline', createdAt: new Date().toISOString(), config: o.config ?? '', tasks, repeat, models, offline: { rescored: o.rescore } };
}
