// Drives test/fixtures/relay/trinity_sql_buffer.py: Trinity-RFT 0.5.2's own SQL writers
// (SQLExperienceStorage, serve mode's HistoryRecorder) in one long-lived Python process, so the
// tests pay Trinity's imports once and can change the buffer while a relay watches it.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { hasShared, repoRoot, sharedDir } from '../../harness/paths';

const python = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const script = path.join(repoRoot, 'test', 'fixtures', 'relay', 'trinity_sql_buffer.py');

/** Why these tests cannot run here, or false. */
export const noTrinity: string | false =
  !(hasShared && fs.existsSync(path.join(repoRoot, '.cache', 'trinity-venv', '.agentrl-ok'))) &&
  'needs ../shared and .cache/trinity-venv (scripts/setup.sh trinity)';

export interface WrittenRow {
  reward: number;
  metrics: Record<string, number>;
  advantage: number;
}

export class TrinitySqlWriter {
  private readonly child: ChildProcess;
  private readonly replies: ((line: string) => void)[] = [];
  private readonly ready: Promise<void>;
  private err = '';

  constructor() {
    const pythonpath = execFileSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).trim();
    this.child = spawn(python, [script], {
      env: { ...process.env, PYTHONPATH: pythonpath, HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', RAY_USAGE_STATS_ENABLED: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr!.on('data', (b) => (this.err = (this.err + String(b)).slice(-4000)));
    const lines = createInterface({ input: this.child.stdout! });
    this.ready = new Promise((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`trinity_sql_buffer.py exited (${code}): ${this.err}`)));
      this.replies.push(() => resolve());
    });
    lines.on('line', (l) => l.startsWith('@@') && this.replies.shift()?.(l.slice(2)));
  }

  async call<T = Record<string, unknown>>(cmd: Record<string, unknown>): Promise<T> {
    await this.ready;
    const line = await new Promise<string>((resolve) => {
      this.replies.push(resolve);
      this.child.stdin!.write(JSON.stringify(cmd) + '\n');
    });
    const r = JSON.parse(line) as { ok: boolean; error?: string } & T;
    if (!r.ok) throw new Error(`${String(cmd.op)}: ${r.error}\n${this.err}`);
    return r;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.stdin!.end();
    await exited;
  }
}

let shared: TrinitySqlWriter | undefined;

/** One writer for a whole test file, its tests one after another (each opens its own buffer
 *  first): Trinity's imports, ~4 CPU s, paid once. The file closes it (`after(closeSharedSqlWriter)`). */
export function sharedSqlWriter(): TrinitySqlWriter {
  return (shared ??= new TrinitySqlWriter());
}

export async function closeSharedSqlWriter(): Promise<void> {
  const w = shared;
  shared = undefined;
  await w?.close();
}
