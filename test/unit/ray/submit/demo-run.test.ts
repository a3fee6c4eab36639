// The demo run as a Ray job: its package folder, config identity and entrypoint.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../../harness/paths';
import { DEMO_PROJECT, DEMO_SCRIPT, prepareDemoRun } from '../../../../src/ray/submit/demo-run';

const script = path.join(repoRoot, 'demo', 'demo_trainer.py');

test('the demo run packs the shipped demo trainer with a config naming the run and an absolute job dir', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-demo-run-'));
  try {
    const d = prepareDemoRun({ baseDir: base, script, name: 'ray-demo-1', steps: 5, stepSeconds: 0.2, modelUrl: 'http://127.0.0.1:8089/v1' });
    assert.deepEqual(fs.readdirSync(d.folder).sort(), ['demo.yaml', DEMO_SCRIPT]);
    assert.equal(fs.readFileSync(path.join(d.folder, DEMO_SCRIPT), 'utf8'), fs.readFileSync(script, 'utf8'));
    assert.equal(d.info.project, DEMO_PROJECT);
    assert.equal(d.info.name, 'ray-demo-1');
    assert.equal(d.info.namespace, `${DEMO_PROJECT}/ray-demo-1`);
    assert.equal(d.info.jobDir, `${path.join(base, 'checkpoints')}/${DEMO_PROJECT}/ray-demo-1`);
    assert.match(fs.readFileSync(d.config, 'utf8'), /^project: agentrl-demo$/m);
    assert.equal(d.entrypoint, `python3 demo_trainer.py --job-dir ${d.info.jobDir} --steps 5 --step-seconds 0.2 --model-url http://127.0.0.1:8089/v1`);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('without a model the entrypoint passes an empty --model-url (simulated rewards); odd paths are quoted', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'arl demo run '));
  try {
    const d = prepareDemoRun({ baseDir: base, script, name: 'r', steps: 1, stepSeconds: 1, modelUrl: '', python: '/opt/py 3/bin/python' });
    assert.ok(d.entrypoint.startsWith(`'/opt/py 3/bin/python' demo_trainer.py --job-dir '${d.info.jobDir}'`), d.entrypoint);
    assert.ok(d.entrypoint.endsWith(`--model-url ''`), d.entrypoint);
    assert.throws(() => prepareDemoRun({ baseDir: base, script, name: '../escape', steps: 1, stepSeconds: 1, modelUrl: '' }), /not a run name/);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
