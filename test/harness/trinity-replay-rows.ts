// Training rows written by Trinity-RFT 0.5.2's own code (test/fixtures/debug/trinity_replay_rows.py:
// its WorkflowRunner runs its workflows, its SQL storage and FileStorage store them) for the tests
// that replay or read them, and the environment its Python runs in.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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

const fixtureScript = path.join(repoRoot, 'test', 'fixtures', 'debug', 'trinity_replay_rows.py');
const tokenizerDir = path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall');

/**
 * What the rows are made of: the fixture script, the tokenizer folder it reads, the venv (its
 * folder name is the setup cache's hash of what it holds) and Trinity's source on PYTHONPATH.
 * Rows made from the same inputs are the same rows (their only variable part is the
 * `time/run_execution` metric, which no test reads), so they are written once per key and copied.
 */
function rowsKey(env: NodeJS.ProcessEnv): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(fixtureScript));
  for (const name of fs.readdirSync(tokenizerDir).sort()) {
    h.update(`\0${name}\0`);
    h.update(fs.readFileSync(path.join(tokenizerDir, name)));
  }
  h.update(`\0${fs.realpathSync(trinityVenvPython)}\0${env.PYTHONPATH ?? ''}`);
  return h.digest('hex').slice(0, 16);
}

/** Rows already written from these inputs: .cache/replay-rows/<key>/ (rows.json and the files). */
const rowsCache = path.join(repoRoot, '.cache', 'replay-rows');

/** Writes the tasksets and job dirs into `ws` (see the fixture's docstring); the rows it wrote.
 *  Trinity's code runs once per content key (rowsKey): a Python start that imports torch and
 *  transformers, shared by the files that need the rows, then a copy into each `ws`. */
export function writeReplayRows(ws: string, env: NodeJS.ProcessEnv = trinityEnv()): ReplayRow[] {
  const made = path.join(rowsCache, rowsKey(env));
  if (!fs.existsSync(path.join(made, 'rows.json'))) {
    fs.mkdirSync(rowsCache, { recursive: true });
    const fresh = fs.mkdtempSync(path.join(rowsCache, 'making-'));
    try {
      const rows = runFixture(fresh, env);
      fs.writeFileSync(path.join(fresh, 'rows.json'), JSON.stringify(rows));
      try {
        fs.renameSync(fresh, made);
      } catch {
        /* another file made them meanwhile: theirs stand */
      }
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  }
  fs.cpSync(made, ws, { recursive: true, filter: (src) => src !== path.join(made, 'rows.json') });
  return JSON.parse(fs.readFileSync(path.join(made, 'rows.json'), 'utf8')) as ReplayRow[];
}

function runFixture(ws: string, env: NodeJS.ProcessEnv): ReplayRow[] {
  const r = spawnSync(trinityVenvPython, [fixtureScript, ws], {
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
