// "Tools: from the workflow": the playground reads the tool lists the rollout debugger recorded,
// through the debugger's own RunWriter (the file contract in src/workspace-files/run-files.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { RunWriter } from '../../../../src/debug/runtime/run-writer';
import type { RecordedCall } from '../../../../src/debug/trajectory/trajectory';
import { workflowToolsFromRuns } from '../../../../src/online/playground/workflow-tools';

const calc = {
  type: 'function',
  function: { name: 'calculate', description: 'evaluate', parameters: { type: 'object', properties: { expr: { type: 'string' } } } },
};
const search = { type: 'function', function: { name: 'search', parameters: { type: 'object' } } };

function record(root: string, name: string, tools: unknown[] | undefined, dir?: string): string {
  const w = new RunWriter(root, { name, workflow: 'toolcall/workflow.py' }, dir);
  const call = (i: number, t?: unknown[]): RecordedCall => ({
    episode: 'T0#R0',
    index: i,
    stream: false,
    startedAt: '2026-11-25T00:00:00Z',
    latencyMs: 1,
    stack: [],
    request: { model: 'm', messages: [{ role: 'user', content: `q${i}` }], ...(t ? { tools: t } : {}) },
  });
  w.recordCall(call(0)); // a first call without tools (a planner turn)
  w.recordCall(call(1, tools));
  w.flush();
  return w.dir;
}

test('the tool sets workflows sent, newest run first, one entry per distinct set, with the launch name', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-tools-'));
  try {
    const runs = path.join(root, '.agentrl', 'runs');
    record(root, 'old run', [calc], path.join(runs, '20261101-000000-000'));
    record(root, 'no tools', undefined, path.join(runs, '20261102-000000-000'));
    record(root, 'same tools again', [calc], path.join(runs, '20261103-000000-000'));
    record(root, 'Debug toolcall', [calc, search], path.join(runs, '20261104-000000-000'));
    fs.appendFileSync(path.join(runs, '20261104-000000-000', 'recording.jsonl'), '{"episode":"T1#R0","request":{"tools":[{"type":"fun'); // torn last line
    const found = workflowToolsFromRuns(root);
    assert.deepEqual(
      found.map((f) => [f.run, f.source, f.names]),
      [
        ['20261104-000000-000', 'Debug toolcall', ['calculate', 'search']],
        ['20261103-000000-000', 'same tools again', ['calculate']],
      ],
    );
    assert.deepEqual(found[1].tools, [calc], 'the schema exactly as the workflow sent it');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('no runs, or recordings without function tools, give nothing (never an error)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-tools-'));
  try {
    assert.deepEqual(workflowToolsFromRuns(root), []);
    record(root, 'odd', [{ type: 'retrieval' }], path.join(root, '.agentrl', 'runs', 'a'));
    assert.deepEqual(workflowToolsFromRuns(root), []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
