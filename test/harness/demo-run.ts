// The demo run (demo/demo_trainer.py, "demo: simulated trainer", a stand-in for the GPU trainer)
// over the sample workspace's tool-calling task, as `npm start` runs it: real rollouts of the
// tiny fixture model, rows with messages and info.task_index into the sample's taskset. For the
// tests and the bench of Debug This Rollout and Re-score: run until the buffer has enough rows,
// then stopped; the rows read back with the standard library (the pickled metadata is the
// demo's own, written by the test).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './paths';
import { until } from './wait';

/** One buffer row as the demo wrote it. */
export interface DemoRow {
  id: number;
  taskId: string;
  taskIndex: number | null;
  modelVersion: number;
  reward: number;
  messages: { role: string; content?: string; tool_calls?: unknown[] }[];
  toolsOffered: boolean;
}

const READ_ROWS = String.raw`
import json, pickle, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
for (rid, task, version, reward, blob) in db.execute("SELECT id, task_id, model_version, reward, experience_bytes FROM experience_buffer ORDER BY id"):
    meta_len, _ = struct.unpack("<QQ", blob[5:21])
    item = pickle.loads(blob[21:21 + meta_len])["items"][0]
    if item["info"].get("simulated_rollout"):
        continue
    print(json.dumps({"id": rid, "taskId": task, "taskIndex": item["info"].get("task_index"), "modelVersion": version,
                      "reward": reward, "messages": item["messages"], "toolsOffered": item["info"].get("tools_offered", False)}))
`;

/** The rows of the demo's buffer in `jobDir` (none yet: []). */
export function demoRows(jobDir: string): DemoRow[] {
  const db = path.join(jobDir, 'buffer', 'experience_buffer.db');
  if (!fs.existsSync(db)) return [];
  const r = spawnSync('python3', ['-c', READ_ROWS, db], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) return [];
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as DemoRow);
}

/**
 * Runs the demo into `jobDir` against `modelUrl` with the tool-calling task of `workspace` (a copy
 * of sample-workspace/) until `enough(rows)` holds, then stops it; resolves with the rows.
 */
export async function runDemo(o: {
  jobDir: string;
  workspace: string;
  modelUrl: string;
  enough: (rows: DemoRow[]) => boolean;
  timeoutMs?: number;
  /** More demo options (--group-size, --tasks-per-batch…). */
  args?: string[];
}): Promise<DemoRow[]> {
  const toolcall = path.join(o.workspace, 'toolcall');
  const demo = spawn(
    'python3',
    [
      path.join(repoRoot, 'demo', 'demo_trainer.py'),
      '--job-dir',
      o.jobDir,
      '--steps',
      '600',
      '--step-seconds',
      '0.2',
      '--model-url',
      o.modelUrl,
      '--model-path',
      path.join(repoRoot, 'test', 'fixtures', 'tiny-toolcall'),
      '--taskset',
      path.join(toolcall, 'data', 'train.jsonl'),
      '--workflow-config',
      path.join(toolcall, 'toolcall.yaml'),
      // the real rollouts' rows only: these tests replay and re-score them
      '--no-simulated-taskset',
      ...(o.args ?? []),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((r) => demo.once('exit', r));
  try {
    return await until(
      'the demo buffer has the rows asked for',
      () => {
        const rows = demoRows(o.jobDir);
        return o.enough(rows) && rows;
      },
      o.timeoutMs ?? 240_000,
      1000,
    );
  } finally {
    demo.kill('SIGTERM');
    await exited;
  }
}
