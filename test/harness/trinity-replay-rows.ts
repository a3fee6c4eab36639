// Training rows written by Trinity-RFT 0.5.2's own code (test/fixtures/debug/trinity_replay_rows.py:
// its WorkflowRunner runs its workflows, its SQL storage and FileStorage store them) for the tests
// that replay or read them, and the environment its Python runs in.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hasShared, repoRoot, sharedDir } from './paths';

export const trinityVenvPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');

/** Why rows cannot be written here, or false. */
export const noReplayRows: string | false = !hasShared
  ? 'needs ../shared (Trinity upstream source)'
  : !fs.existsSync(trinityVenvPython)
    ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
    : false;

/** The environment Trinity's code runs in: its PYTHONPATH, no hub, no telemetry. */
export function trinityEnv(): NodeJS.ProcessEnv {
  const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
  return { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' };
}

export interface ReplayRow {
  job: string;
  id: number;
  reward?: number;
  metrics?: Record<string, number>;
  task_index?: number | null;
  model_version?: number;
  keeps: 'messages' | 'prompt_text' | 'none' | 'crafted';
  turns?: number;
  /** The row's first user message as the workflow sent it (job-lake-unnumbered). */
  first_user?: string;
}

/** Writes the tasksets and job dirs into `ws` (see the fixture's docstring); the rows it wrote. */
export function writeReplayRows(ws: string, env: NodeJS.ProcessEnv = trinityEnv()): ReplayRow[] {
  const r = spawnSync(trinityVenvPython, [path.join(repoRoot, 'test', 'fixtures', 'debug', 'trinity_replay_rows.py'), ws], {
    encoding: 'utf8',
    env,
    timeout: 300_000,
  });
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as ReplayRow);
}
