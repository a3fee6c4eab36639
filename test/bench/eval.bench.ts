// `npm run bench -- eval [--tasks N]`: what `agentrl eval` adds to the model calls it makes.
// Two models (the llama.cpp fixture model served twice, each its own process) × N tasks of the
// sample tool-calling workspace, run through the comparison (Python runner, recording gateway,
// saved runs), then the very same requests — read back from the two recordings — sent to the
// same servers directly with the same concurrency (one at a time per model, both models at
// once). The peer is the direct calls in the same run, on the same machine load.
// Ends with: BENCH eval overhead_ratio=<eval wall / direct wall> eval_s=<a> direct_s=<b> calls=<n>
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from 'util';
import { createConfigChecker } from '../../src/config/engine/checker';
import { DebugRolloutService } from '../../src/debug/rollout-service';
import { runEval } from '../../src/eval/run/run-eval';
import type { RecordedCall } from '../../src/debug/trajectory/trajectory';
import { repoRoot } from '../harness/paths';
import { startModelServer } from '../harness/model-server';

async function direct(url: string, calls: RecordedCall[]): Promise<void> {
  for (const c of calls) {
    const r = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(c.request) });
    if (!r.ok) throw new Error(`direct call failed: HTTP ${r.status}`);
    await r.json();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { tasks: { type: 'string', default: '20' } } });
  const tasks = Number(values.tasks);
  const servers = await Promise.all([startModelServer(), startModelServer()]);
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bench-eval-'));
  try {
    fs.cpSync(path.join(repoRoot, 'sample-workspace', 'toolcall'), ws, { recursive: true });
    const rows = fs
      .readFileSync(path.join(ws, 'data', 'train.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    fs.writeFileSync(
      path.join(ws, 'data', 'train.jsonl'),
      Array.from({ length: tasks }, (_, i) => JSON.stringify({ ...rows[i % rows.length], id: `t${i}` })).join('\n') + '\n',
    );
    const service = new DebugRolloutService(createConfigChecker({ roots: [ws] }), path.join(repoRoot, 'src', 'debug', 'runner'));
    const t0 = performance.now();
    const { record, dir } = await runEval(service, {
      config: path.join(ws, 'toolcall.yaml'),
      cwd: ws,
      models: [
        { name: 'a', baseUrl: servers[0].url },
        { name: 'b', baseUrl: servers[1].url },
      ],
      tasks,
      repeat: 1,
      concurrency: 1,
    });
    const evalMs = performance.now() - t0;
    const recorded = record.models.map((m) =>
      fs
        .readFileSync(path.join(dir, m.runDir, 'recording.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as RecordedCall),
    );
    const t1 = performance.now();
    await Promise.all(recorded.map((calls, i) => direct(servers[i].url, calls)));
    const directMs = performance.now() - t1;
    const calls = recorded.reduce((s, c) => s + c.length, 0);
    const failed = record.models.reduce((s, m) => s + m.episodes.filter((e) => e.reward === null).length, 0);
    console.log(
      `eval of 2 models × ${tasks} tasks: ${(evalMs / 1000).toFixed(2)} s (${calls} calls, ${failed} failed episodes); the same calls directly: ${(directMs / 1000).toFixed(2)} s`,
    );
    console.log(
      `BENCH eval overhead_ratio=${(evalMs / directMs).toFixed(3)} eval_s=${(evalMs / 1000).toFixed(2)} direct_s=${(directMs / 1000).toFixed(2)} calls=${calls}`,
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
