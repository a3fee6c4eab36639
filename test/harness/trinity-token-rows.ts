// Rows with tensors of every dtype, written by Trinity-RFT 0.5.2's own writers and read back by
// its own deserialization (test/fixtures/tokens/trinity_token_rows.py): what the relay's `tokens`
// answers and `agentrl tokens` are checked against.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot, sharedDir } from './paths';

export interface TrinityRow {
  id: number;
  crafted?: string;
  tokens: number[];
  prompt_length: number;
  /** Floats as float32 values, non-finite ones as "NaN" / "Infinity" / "-Infinity". */
  logprobs: (number | string)[] | null;
  action_mask: (number | boolean)[] | null;
  advantages: (number | string)[] | null;
  returns: (number | string)[] | null;
  token_level_reward: (number | string)[] | null;
  truncate_status: string | null;
  reward: number;
  response_text: string | null;
  messages: unknown[] | null;
}
export interface TrinityLine {
  line: number;
  id: number;
  messages: unknown[];
  response_text: string | null;
  prompt_length: number;
  truncate_status: string | null;
}

/** Writes the rows into `job` (a new directory), and the experience `longFile` holds if given; what Trinity read back. */
export function writeTokenRows(job: string, longFile?: string): { job: string; rows: TrinityRow[]; lines: TrinityLine[] } {
  const pp = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
  const r = spawnSync(
    path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python'),
    [path.join(repoRoot, 'test', 'fixtures', 'tokens', 'trinity_token_rows.py'), job, ...(longFile ? [longFile] : [])],
    {
      encoding: 'utf8',
      timeout: 180_000,
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, PYTHONPATH: pp, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' },
    },
  );
  assert.equal(r.status, 0, `trinity_token_rows.py: ${r.error?.message ?? ''} ${r.stderr.slice(-2000)}`);
  const out = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as TrinityRow | TrinityLine);
  return { job, rows: out.filter((o): o is TrinityRow => 'tokens' in o || 'crafted' in o), lines: out.filter((o): o is TrinityLine => 'line' in o) };
}
