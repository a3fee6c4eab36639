// Trinity-RFT's own serve-mode explorer API (FastAPI proxy app, ExplorerService, HistoryRecorder
// from ../shared/upstream, run in .cache/trinity-venv) around the fixture model on llama.cpp,
// which stands in for the explorer's vLLM inference engines (test/fixtures/online/serve_proxy.py
// names every stand-in). One of each per test file: they take seconds to start.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hasShared, repoRoot, sharedDir } from './paths';
import { modelRuntimeInstalled, ModelServer, startModelServer } from './model-server';
import { parseJson } from './json';

export const trinityPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const venvScript = path.join(sharedDir, 'upstream', 'make-trinity-venv.sh');

/** Why the serve-mode tests cannot run here, or undefined when they can. */
export function trinityServeSkipReason(): string | undefined {
  if (!hasShared || !fs.existsSync(venvScript)) return 'needs ../shared/upstream (Trinity-RFT source)';
  if (!fs.existsSync(trinityPython) || !fs.existsSync(path.join(repoRoot, '.cache', 'trinity-venv', '.agentrl-ok')))
    return 'needs .cache/trinity-venv (scripts/setup.sh trinity)';
  if (!modelRuntimeInstalled) return 'needs node-llama-cpp (scripts/setup.sh model)';
  return undefined;
}

export interface TrinityServe {
  /** the explorer URL (http://127.0.0.1:<port>) */
  url: string;
  jobDir: string;
  model: ModelServer;
  /** <job>/buffer/proxy_history.db, written by Trinity's HistoryRecorder */
  historyDb: string;
  /** PYTHONPATH that imports Trinity from ../shared/upstream */
  pythonpath: string;
  /** what the stand-in experience pipeline received on /commit */
  committed(): { msg_id: string; task: string; reward: number }[];
  log(): string;
  stop(): Promise<void>;
}

export async function startTrinityServe(opts: { syncTimeoutSec?: number } = {}): Promise<TrinityServe> {
  const model = await startModelServer();
  const jobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-serve-'));
  const pythonpath = execFileSync('bash', [venvScript, '--pythonpath'], { encoding: 'utf8' }).trim();
  const env = {
    ...process.env,
    PYTHONPATH: pythonpath,
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    HF_DATASETS_OFFLINE: '1',
    RAY_USAGE_STATS_ENABLED: '0',
    PYTHONUNBUFFERED: '1',
  };
  const args = [
    path.join(repoRoot, 'test', 'fixtures', 'online', 'serve_proxy.py'),
    '--engine-url',
    model.url,
    '--job-dir',
    jobDir,
    '--sync-timeout',
    String(opts.syncTimeoutSec ?? 60),
  ];
  const child = spawn(trinityPython, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  const stop = async () => {
    await killGroup(child);
    await model.stop();
    fs.rmSync(jobDir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Trinity serve proxy did not start in 90 s:\n${out}`)), 90_000);
      child.stdout.on('data', () => {
        const m = /^READY (\S+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Trinity serve proxy exited (${code}):\n${out}`));
      });
    });
    child.removeAllListeners('exit');
    return {
      url,
      jobDir,
      model,
      historyDb: path.join(jobDir, 'buffer', 'proxy_history.db'),
      pythonpath,
      committed: () => {
        const f = path.join(jobDir, 'committed.jsonl');
        return fs.existsSync(f)
          ? fs
              .readFileSync(f, 'utf8')
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => parseJson<{ msg_id: string; task: string; reward: number }>(l))
          : [];
      },
      log: () => out,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

function killGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const force = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, 3000);
    child.once('exit', () => {
      clearTimeout(force);
      done();
    });
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      clearTimeout(force);
      done();
    }
  });
}
