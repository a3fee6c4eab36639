// Debug this rollout and Re-score in the real extension host, on input that cannot be replayed:
// an experience without a recorded conversation, a job dir that went away, an experience that
// is not one. Each ends at once with the message the user reads (the command's answer), and no
// debug session starts. Rows are written with the demo trainer's own TRXP writer.
import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { MetricsHost } from '../../../src/metrics/host';
import { repoRoot } from '../../harness/paths';
import { until } from '../../harness/wait';
import { activated } from '../extension.test';

/** A job dir whose SQL buffer has one row with messages (id 1) and one with none at all (id 2). */
const WRITE_ROWS = String.raw`
import sys
sys.path.insert(0, sys.argv[1])
import demo_trainer as d
db = d.open_buffer(sys.argv[2])
base = {"eid": {"batch": 1, "task": "paris", "run": 0, "step": 0, "suffix": "x"}, "reward": 1.0, "info": {"model_version": 1, "task_index": 0},
        "metrics": {"accuracy": 1.0}, "prompt_length": 1, "chosen_messages": None, "rejected_messages": None, "custom_fields": [],
        "multi_modal_input_keys": [], "truncate_status": None, "tools": None}
talk = dict(base, messages=[{"role": "user", "content": "What is the weather in Paris?"}, {"role": "assistant", "content": "It is sunny and 21 degrees C in Paris."}],
            prompt_text=None, response_text=None)
silent = dict(base, messages=None, prompt_text=None, response_text=None)
for i, item in enumerate([talk, silent]):
    db.execute("INSERT INTO experience_buffer (task_id, run_id, msg_id, model_version, experience_bytes, reward) VALUES (?, ?, ?, ?, ?, ?)",
               ("paris", i, "m%d" % i, 1, d.experience_bytes(item, {"tokens": ("I64", [0])}), 1.0))
db.commit()
`;

suite('metrics: Debug this rollout and Re-score refuse what cannot be replayed', function () {
  this.timeout(120000);
  let host: MetricsHost;
  let tmp: string;
  let job: string;
  let endpoint: string;
  let source: string;

  suiteSetup(async () => {
    host = (await activated()).metrics.host();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-replay-it-'));
    job = path.join(tmp, 'agentrl-sample', 'toolcall');
    fs.mkdirSync(job, { recursive: true });
    const w = spawnSync('python3', ['-c', WRITE_ROWS, path.join(repoRoot, 'demo'), job], { encoding: 'utf8' });
    assert.strictEqual(w.status, 0, w.stderr);
    endpoint = (await vscode.commands.executeCommand<string>('agentrl.metrics.connect', { dir: job, mode: 'job', reveal: false }))!;
    // this endpoint's own rows: other suites of the same window may have filled the store already
    const ours = () => host.store.experiences.select(path.basename(job), [1]).filter((r) => r.endpoint === endpoint);
    await until('the two experiences of this job', () => ours().length >= 2, 60000);
    source = ours()[0].source;
  });

  suiteTeardown(async () => {
    if (endpoint) await vscode.commands.executeCommand('agentrl.metrics.disconnect', { id: endpoint });
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const debug = (ref: unknown) => vscode.commands.executeCommand<{ started?: boolean; refused?: string }>('agentrl.metrics.debugRollout', ref);

  test('an experience without messages: said so, no debug session', async () => {
    const sessions: vscode.DebugSession[] = [];
    const sub = vscode.debug.onDidStartDebugSession((s) => sessions.push(s));
    try {
      const r = await debug({ endpoint, source, id: 2 });
      assert.match(r.refused ?? '', /experience #2 has no recorded conversation/);
      assert.strictEqual(sessions.length, 0);
    } finally {
      sub.dispose();
    }
  });

  test('not an experience: said so', async () => {
    assert.match((await debug({ endpoint, id: 'x' })).refused ?? '', /needs an experience of the metrics view/);
    assert.match((await debug({ endpoint: 'url:ws://127.0.0.1:9/', source, id: 1 })).refused ?? '', /cannot read experience #1/);
  });

  test('the job dir went away: Debug this rollout and Re-score say which directory', async () => {
    const moved = `${job}-moved`;
    fs.renameSync(job, moved);
    try {
      // The relay still answers for the row it read; the job dir is checked before anything runs.
      const r = await debug({ endpoint, source, id: 1 });
      assert.ok(r.refused, JSON.stringify(r));
      assert.match(r.refused, /job directory cannot be read|cannot read experience/);
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand('agentrl.metrics.rescore', { endpoint, steps: [1, 1] })),
        /job directory cannot be read/,
      );
    } finally {
      fs.renameSync(moved, job);
    }
  });
});
