// Upstream backbones: a clear message when the CLI is missing; with a CLI, its output is
// streamed and its results become episodes. trinity-rft / ASTuner / AgentJet need Ray, vLLM
// and a GPU and cannot be installed here, so their CLIs are FAKE stand-ins (boundary mocks)
// that write the output formats their upstream code writes (Trinity's CLI and experience
// buffer, ASTuner's beast-logger files).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import { readRolloutLog } from '../../../src/debug/backbones/astuner-logs';
import { descendants } from '../../../src/debug/runtime/process-tree';
import type { RolloutSummary } from '../../../src/debug/trajectory/trajectory';
import { readJson } from '../../harness/json';
import { collectOutput, latestRun, launch, readJsonl, startAdapter, toolcallWorkspace } from './helpers';

const FAKE_TRINITY = `#!/usr/bin/env python3
# FAKE trinity CLI (test stand-in): debug --module inference_model | workflow --output-dir D
import io, os, pickle, sqlite3, struct, sys, time
args = sys.argv[1:]
module = args[args.index("--module") + 1]
if module == "inference_model":
    print("Inference model is running; press Ctrl+C to stop", flush=True)
    while True:
        time.sleep(1)
out = args[args.index("--output-dir") + 1]
os.makedirs(out, exist_ok=True)
meta = pickle.dumps({"version": 1, "num_items": 1, "items": [{"response_text": "It is sunny and 21 degrees C in Paris.", "metrics": {"accuracy": 1.0}}]})
blob = b"TRXP" + bytes([1]) + struct.pack("<Q", len(meta)) + struct.pack("<Q", 0) + meta
con = sqlite3.connect(os.path.join(out, "experiences.db"))
con.execute("CREATE TABLE debug_buffer (id INTEGER PRIMARY KEY, task_id TEXT, run_id INTEGER, reward REAL, experience_bytes BLOB)")
con.execute("INSERT INTO debug_buffer (task_id, run_id, reward, experience_bytes) VALUES ('paris', 0, 1.0, ?)", (blob,))
con.commit()
print("workflow finished: reward 1.0", flush=True)
`;

function binWithPython(fake?: string): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-bin-'));
  const real = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  fs.symlinkSync(real, path.join(bin, 'python3'));
  if (fake) fs.writeFileSync(path.join(bin, 'trinity'), fake, { mode: 0o755 });
  return bin;
}

describe('upstream debug backbones', () => {
  test('a missing CLI gives a clear message', async () => {
    const ws = toolcallWorkspace();
    const bin = binWithPython();
    const { dc, close } = await startAdapter({ env: { PATH: '/nonexistent' } });
    try {
      await assert.rejects(
        launch(dc, { config: path.join(ws, 'toolcall.yaml'), cwd: ws, workspaceRoot: ws, backbone: 'trinity', python: path.join(bin, 'python3') }),
        /The trinity backbone runs `trinity debug --module workflow`.*no `trinity` command was found next to .*python3 or on PATH\. Install trinity-rft/,
      );
    } finally {
      await close();
      fs.rmSync(ws, { recursive: true, force: true });
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test('trinity: starts inference_model, runs the workflow module, imports experiences.db', async () => {
    const ws = toolcallWorkspace();
    const bin = binWithPython(FAKE_TRINITY);
    const { dc, close } = await startAdapter({ env: { PATH: `/usr/bin:/bin` } });
    try {
      const out = collectOutput(dc);
      const ended = dc.waitForEvent('terminated', 60000);
      await launch(dc, { config: path.join(ws, 'toolcall.yaml'), cwd: ws, workspaceRoot: ws, backbone: 'trinity', python: path.join(bin, 'python3') });
      await ended;
      assert.match(out.text(), /\$ trinity debug --config .*toolcall\.yaml --module inference_model/);
      assert.match(out.text(), /workflow finished: reward 1\.0/);
      const run = latestRun(ws);
      const summary = readJson<RolloutSummary>(path.join(run, 'summary.json'));
      assert.equal(summary.status, 'completed');
      assert.deepEqual(summary.rewardByTask, { paris: 1 });
      const [traj] = readJsonl<{ episode: string; metadata: { response_text: string } }>(path.join(run, 'trajectories.jsonl'));
      assert.equal(traj.episode, 'Tparis#R0');
      assert.equal(traj.metadata.response_text, 'It is sunny and 21 degrees C in Paris.');
      const left = descendants(process.pid).filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('inference_model');
        } catch {
          return false;
        }
      });
      assert.deepEqual(left, [], 'the background inference_model process was stopped');
    } finally {
      await close();
      fs.rmSync(ws, { recursive: true, force: true });
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  test('astuner / ajet rollout logs (beast-logger .json.log, plain and base64+zlib entries) become episodes', () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-astuner-'));
    const dir = path.join(cwd, 'saved_experiments', 'math', '2025_12_01_10_00', 'host', 'rollout');
    fs.mkdirSync(dir, { recursive: true });
    const nested = {
      header: '[NA] Task 7 (Reward 0.100)',
      color: 'green',
      content: '',
      attach: '',
      nested: true,
      nested_json: { '7.0.0': { outcome: 'failure' } },
    };
    fs.writeFileSync(
      path.join(dir, 'rollout.json.log'),
      [
        '2025-12-01 10:00:01.000 | INFO | tracker:generate_log:120 - ',
        JSON.stringify({ header: '[NA] Task 3 (Reward 1.000)', color: 'green', content: '', attach: '' }),
        '2025-12-01 10:00:02.000 | INFO | tracker:generate_log:120 - ',
        'base64:' + zlib.deflateSync(Buffer.from(JSON.stringify(nested))).toString('base64'),
        '',
      ].join('\n'),
    );
    const eps = readRolloutLog(cwd);
    assert.deepEqual(
      eps.map((e) => [e.episode, e.reward]),
      [
        ['T3#R0', 1],
        ['T7#R0', 0.1],
      ],
    );
    assert.deepEqual((eps[1].metadata.nested as Record<string, unknown>)['7.0.0'], { outcome: 'failure' });
    fs.rmSync(cwd, { recursive: true, force: true });
  });
});
