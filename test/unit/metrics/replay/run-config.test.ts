// Which config replays a training run's experiences: the workspace config of the same project
// and name as the job dir's config copy (or its path), else every runnable candidate.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { configCandidates, configIdentity, jobConfigCopy, runIdentity } from '../../../../src/metrics/replay/run-config';
import { repoRoot } from '../../../harness/paths';

const sample = path.join(repoRoot, 'sample-workspace', 'toolcall', 'toolcall.yaml');
const toolcall = configIdentity(sample, fs.readFileSync(sample, 'utf8'))!;
const other = { file: '/ws/math/config.yaml', project: 'agentrl-sample', name: 'math', runnable: true };

test("the sample's tool-calling config: project, name, and a taskset with a workflow", () => {
  assert.deepEqual(toolcall, { file: sample, project: 'agentrl-sample', name: 'toolcall', runnable: true });
  assert.equal(configIdentity('x', 'buffer: [1'), undefined, 'not YAML');
  assert.equal(configIdentity('x', '- a\n- b'), undefined, 'not a mapping');
  assert.equal(configIdentity('x', 'project: p\nname: n\nbuffer: {}')?.runnable, false, 'no taskset: cannot run on its own');
});

test("the job dir's config copy names the run: its workspace config is the one candidate", () => {
  const job = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-run-config-'));
  try {
    fs.writeFileSync(path.join(job, 'config.json'), JSON.stringify({ project: 'agentrl-sample', name: 'toolcall', model: { model_path: '/m' } }));
    const copy = jobConfigCopy(job);
    assert.equal(copy?.name, 'toolcall');
    assert.deepEqual(configCandidates(job, copy, [other, toolcall]), [{ file: sample, why: 'same-run' }]);
    // Without a copy, Trinity's job dir path <root>/<project>/<name> says the same.
    const byPath = path.join(job, 'agentrl-sample', 'toolcall');
    assert.deepEqual(runIdentity(byPath, undefined), { project: 'agentrl-sample', name: 'toolcall' });
    assert.deepEqual(configCandidates(byPath, undefined, [other, toolcall]), [{ file: sample, why: 'same-run' }]);
  } finally {
    fs.rmSync(job, { recursive: true, force: true });
  }
});

test('no config of the same run: every runnable config, the runnable job copy first (the user picks)', () => {
  const copy = { file: '/job/config.json', project: 'p', name: 'n', runnable: true };
  const broken = { file: '/ws/notes.yaml', project: 'p', name: 'x', runnable: false };
  assert.deepEqual(configCandidates('/job', copy, [toolcall, broken, other]), [
    { file: '/job/config.json', why: 'job-copy' },
    { file: sample, why: 'workspace' },
    { file: other.file, why: 'workspace' },
  ]);
  assert.deepEqual(configCandidates(undefined, undefined, [broken]), [], 'nothing to replay with');
});
