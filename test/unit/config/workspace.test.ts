// Workspace knowledge: registered names in Python files, dotted class paths and
// `module->Class` references, local paths, and the installed Trinity version.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { classifyPath, resolveLocalPath } from '../../../src/config/core/paths';
import { targetTrinityVersion } from '../../../src/config/engine/checker';
import { detectInstalledTrinity } from '../../../src/config/workspace/installed-trinity';
import { PythonIndex, scanPythonSource } from '../../../src/config/workspace/pyindex';
import { applyFix, en, expectFinding, expectNo, lineOf, run, tempDir, trinity } from './helpers';

function workspace(): string {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'plugins'), { recursive: true });
  fs.writeFileSync(path.join(root, 'plugins', '__init__.py'), '');
  fs.writeFileSync(
    path.join(root, 'plugins', 'flows.py'),
    [
      'from trinity.common.workflows import WORKFLOWS as W, Workflow',
      'from trinity.common.rewards import REWARD_FUNCTIONS',
      '',
      '@W.register_module("my_workflow")',
      'class MyWorkflow(Workflow):',
      '    pass',
      '',
      '@REWARD_FUNCTIONS.register_module(name="my_reward")',
      'class MyReward:',
      '    pass',
      '',
      'class Helper:',
      '    pass',
      '',
    ].join('\n'),
  );
  return root;
}

test('registrations are found (aliases, keyword names) with the class they decorate', () => {
  const info = scanPythonSource('/x/flows.py', fs.readFileSync(path.join(workspace(), 'plugins', 'flows.py'), 'utf8'));
  assert.deepEqual(
    info.registrations.map((r) => [r.registry, r.name, r.target, r.line]),
    [
      ['workflow', 'my_workflow', 'MyWorkflow', 4],
      ['reward_fn', 'my_reward', 'MyReward', 8],
    ],
  );
  assert.deepEqual([...info.classes.keys()], ['MyWorkflow', 'MyReward', 'Helper']);
});

test('a workspace-registered name is accepted; an unknown one warns with did-you-mean', () => {
  const root = workspace();
  const python = new PythonIndex().scan([root]);
  const file = path.join(root, 'config.yaml');
  const ok = trinity({ buffer: { explorer_input: { default_workflow_type: 'my_workflow', default_reward_fn_type: 'my_reward' } } });
  expectNo(run(ok, { file, roots: [root], python }), 'names.unknown');
  const typo = trinity({ buffer: { explorer_input: { default_workflow_type: 'my_workflw' } } });
  const f = expectFinding(run(typo, { file, roots: [root], python }), 'names.unknown', { severity: 'warning', line: lineOf(typo, 'my_workflw') });
  assert.match(applyFix(typo, f), /default_workflow_type: my_workflow/);
});

test('names follow the Python files as they change (registered, renamed, deleted)', () => {
  // known names and their suggestions are remembered per state of the index: each change
  // must show on the next analysis of an unchanged config
  const root = workspace();
  const python = new PythonIndex().scan([root]);
  const file = path.join(root, 'config.yaml');
  const text = trinity({ buffer: { explorer_input: { default_workflow_type: 'new_flow' } } });
  const unknown = expectFinding(run(text, { file, roots: [root], python }), 'names.unknown');
  assert.doesNotMatch(en(unknown.message), /did you mean 'new_flow2'/);
  const added = path.join(root, 'plugins', 'more.py');
  fs.writeFileSync(added, 'from trinity.common.workflows import WORKFLOWS\n\n@WORKFLOWS.register_module("new_flow2")\nclass NewFlow2:\n    pass\n');
  python.updateFile(added);
  assert.match(en(expectFinding(run(text, { file, roots: [root], python }), 'names.unknown').message), /did you mean 'new_flow2'/);
  fs.writeFileSync(added, fs.readFileSync(added, 'utf8').replace('new_flow2', 'new_flow'));
  python.updateFile(added);
  expectNo(run(text, { file, roots: [root], python }), 'names.unknown');
  python.removeFile(added);
  expectFinding(run(text, { file, roots: [root], python }), 'names.unknown');
});

test('dotted class paths: found, missing class, missing module (only when the package is here)', () => {
  const root = workspace();
  const python = new PythonIndex().scan([root]);
  const file = path.join(root, 'config.yaml');
  const at = (v: string) => trinity({ buffer: { explorer_input: { default_workflow_type: v } } });
  expectNo(run(at('plugins.flows.MyWorkflow'), { file, roots: [root], python }), 'names.unresolved-class');
  expectFinding(run(at('plugins.flows.NoSuch'), { file, roots: [root], python }), 'names.unresolved-class', { severity: 'warning' });
  expectFinding(run(at('plugins.nomodule.X'), { file, roots: [root], python }), 'names.unresolved-module', { severity: 'warning' });
  // a package we cannot see (installed elsewhere, or upstream examples) is not judged
  const a = run(at('examples.some.Workflow'), { file, roots: [root], python });
  expectNo(a, 'names.unresolved-module');
  expectNo(a, 'names.unknown');
});

test('paths: classification, and a missing local dataset in the workspace warns', () => {
  assert.equal(classifyPath('openai/gsm8k'), 'hf');
  assert.equal(classifyPath('./data/train.jsonl'), 'local');
  assert.equal(classifyPath('data/train.jsonl'), 'local');
  assert.equal(classifyPath('sqlite:///gsm8k.db'), 'db');
  assert.equal(classifyPath('https://x/y'), 'url');
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'data'));
  fs.writeFileSync(path.join(root, 'data', 'train.jsonl'), '{}\n');
  const file = path.join(root, 'config.yaml');
  assert.equal(resolveLocalPath('data/train.jsonl', [root], file).found, path.join(root, 'data', 'train.jsonl'));
  const text = trinity({ buffer: { explorer_input: { taskset: { path: 'data/missing.jsonl' } } } });
  expectFinding(run(text, { file, roots: [root], checkPaths: true }), 'paths.missing', { severity: 'warning', line: lineOf(text, 'missing.jsonl') });
  expectNo(run(trinity({ buffer: { explorer_input: { taskset: { path: 'data/train.jsonl' } } } }), { file, roots: [root], checkPaths: true }), 'paths.missing');
  // a config outside the workspace, or a cluster path, is not judged
  expectNo(run(text, { file: '/elsewhere/config.yaml', roots: [root], checkPaths: true }), 'paths.missing');
  expectNo(run(trinity({ model: { model_path: '/mnt/cluster/models/qwen' } }), { file, roots: [root], checkPaths: true }), 'paths.missing');
});

test('the installed trinity package sets the target release', () => {
  const root = tempDir();
  assert.equal(detectInstalledTrinity([root]), undefined);
  assert.equal(targetTrinityVersion('auto', [root]).source, 'default');
  const site = path.join(root, '.venv', 'lib', 'python3.11', 'site-packages');
  fs.mkdirSync(path.join(site, 'trinity_rft-0.4.1.dist-info'), { recursive: true });
  const t = targetTrinityVersion('auto', [root]);
  assert.equal(t.source, 'installed');
  assert.equal(t.version, '0.4.0', 'maps to the release whose keys it has');
  assert.equal(targetTrinityVersion('0.3.2', [root]).version, '0.3.2', 'an explicit setting wins');
  // and the version-aware rules follow it
  const text = trinity({ explorer: { concurrent_mode: 'sequential' } });
  expectFinding(run(text, { trinityVersion: t.version }), 'version.newer-key');
});
