// ASTuner (`astuner:`) and AgentJet (`ajet:`) rules, from ASTuner's launcher and AgentJet's renames.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PythonIndex } from '../../../../src/config/workspace/pyindex';
import { applyFix, en, expectClean, expectFinding, expectNo, lineOf, merge, type Obj, run, tempDir, yaml } from '../helpers';

function agent(kind: 'astuner' | 'ajet', patch: Obj = {}, rootPatch: Obj = {}): string {
  const wf = kind === 'astuner' ? 'agentscope_workflow' : 'user_workflow';
  const base: Obj = {
    [kind]: {
      project_name: 'unit_agent',
      task_reader: { type: 'huggingface_dat_repo', huggingface_dat_repo: { dataset_path: 'openai/gsm8k', training_split: 'train', validation_split: 'test' } },
      task_judge: { judge_protocol: 'agents.judge->MathJudge' },
      model: { path: 'Qwen/Qwen2.5-7B-Instruct' },
      rollout: { [wf]: 'agents.math->MathAgent', max_env_worker: 64, num_repeat: 4, n_vllm_engine: 2, tensor_model_parallel_size: 1 },
      data: { train_batch_size: 32, max_prompt_length: 3000, max_response_length: 7000 },
      trainer_common: { save_freq: 100, test_freq: 100, total_epochs: 10, logger: 'swanlab' },
    },
    hydra: { searchpath: [`file://${kind}/default_config`, `file://${kind}/default_config/verl`, `file://${kind}/default_config/trinity`] },
    defaults: ['verl_default', 'trinity_default', kind === 'astuner' ? 'astune_default' : 'ajet_default', '_self_'],
  };
  return yaml(merge(merge(base, { [kind]: merge(base[kind] as Obj, patch) }), rootPatch));
}

const file = (name = 'math.yaml') => path.join(tempDir(), name);

test('a well-formed ASTuner and AgentJet config is clean', () => {
  expectClean(run(agent('astuner'), { file: file() }));
  expectClean(run(agent('ajet'), { file: file() }));
});

test('defaults and hydra.searchpath are required and must match the release', () => {
  let text = agent('astuner', {}, { defaults: ['verl_default', 'trinity_default', 'astuner_default', '_self_'] });
  const f = expectFinding(run(text, { file: file() }), 'agent.defaults', { severity: 'error', line: lineOf(text, 'astuner_default') });
  assert.match(applyFix(text, f), /- astune_default/);
  text = agent(
    'ajet',
    {},
    { hydra: { searchpath: ['file://astuner/default_config', 'file://ajet/default_config/verl', 'file://ajet/default_config/trinity'] } },
  );
  const g = expectFinding(run(text, { file: file() }), 'agent.searchpath', { severity: 'error', line: lineOf(text, 'file://astuner/default_config') });
  expectClean(run(applyFix(text, g), { file: file() }));
  text = agent('astuner', {}, { defaults: undefined });
  expectFinding(run(text, { file: file() }), 'agent.defaults', { severity: 'error' });
});

test('default layers (no hydra/defaults) are not launched and need no skeleton', () => {
  const layer = yaml({ astuner: { rollout: { max_env_worker: 128 } } });
  expectClean(run(layer, { file: '/repo/astuner/default_config/astune_default.yaml' }));
});

test('only .yaml is accepted by the launcher', () => {
  expectFinding(run(agent('ajet'), { file: file('math.yml') }), 'agent.extension', { severity: 'error', line: 0 });
});

test('workflow and judge references: format, and resolution in the workspace', () => {
  let text = agent('astuner', { rollout: { agentscope_workflow: 'agents.math.MathAgent' } });
  expectFinding(run(text, { file: file() }), 'agent.ref-format', { severity: 'error', line: lineOf(text, 'agents.math.MathAgent') });
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'agents'));
  fs.writeFileSync(path.join(root, 'agents', 'math.py'), 'class MathAgent:\n    pass\n');
  fs.writeFileSync(path.join(root, 'agents', 'judge.py'), 'class OtherJudge:\n    pass\n');
  const python = new PythonIndex().scan([root]);
  text = agent('ajet');
  const a = run(text, { file: path.join(root, 'math.yaml'), roots: [root], python });
  expectNo(a, 'agent.ref-format');
  const f = expectFinding(a, 'agent.ref-unresolved', { severity: 'warning', line: lineOf(text, 'agents.judge->MathJudge') });
  assert.match(en(f.message), /MathJudge/);
  // the file form resolves relative to the repository root
  text = agent('ajet', { rollout: { user_workflow: 'agents/math.py->MathAgent' } });
  expectNo(run(text, { file: path.join(root, 'math.yaml'), roots: [root], python }), 'agent.ref-format');
});

test('reader types: legacy dataset_file (warning + rename), unknown (error), missing block (warning)', () => {
  let text = agent('ajet', { task_reader: { type: 'dataset_file', dataset_file: { training: { file_path: 'a.jsonl' } } } });
  const f = expectFinding(run(text, { file: file() }), 'agent.legacy-reader', { severity: 'warning', line: lineOf(text, 'type: dataset_file') });
  const fixed = applyFix(text, f);
  assert.match(fixed, /type: jsonl_dataset_file/);
  assert.match(fixed, /^ {4}jsonl_dataset_file:/m);
  text = agent('astuner', { task_reader: { type: 'hf_repo' } });
  expectFinding(run(text, { file: file() }), 'agent.reader-type', { severity: 'error', line: lineOf(text, 'type: hf_repo') });
  text = agent('astuner', { task_reader: { type: 'jsonl_dataset_file' } });
  expectFinding(run(text, { file: file() }), 'agent.reader-block', { severity: 'warning' });
});

test('launcher asserts: max_env_worker > 4, gamma == 1.0', () => {
  let text = agent('astuner', { rollout: { max_env_worker: 2 } });
  expectFinding(run(text, { file: file() }), 'agent.max-env-worker', { severity: 'warning', line: lineOf(text, 'max_env_worker: 2') });
  text = agent('astuner', { rollout: { gamma: 0.99 } });
  const f = expectFinding(run(text, { file: file() }), 'agent.gamma', { severity: 'error', line: lineOf(text, 'gamma: 0.99') });
  assert.match(applyFix(text, f), /gamma: 1\.0/);
});

test('madness checklist values, GPU budget and lengths', () => {
  let text = agent('ajet', { rollout: { compute_madness_checklist: ['nonsense', 'non-ascii'] } });
  const f = expectFinding(run(text, { file: file() }), 'agent.madness-check', { severity: 'warning', line: lineOf(text, '- non-ascii') });
  assert.match(applyFix(text, f), /- non_ascii/);
  text = agent('astuner', { rollout: { n_vllm_engine: 4, tensor_model_parallel_size: 2 } });
  expectFinding(run(text, { file: file() }), 'agent.gpu-budget', { severity: 'warning', line: lineOf(text, 'n_vllm_engine: 4') });
  text = agent('astuner', { rollout: { max_model_len: 8000 } });
  expectFinding(run(text, { file: file() }), 'agent.length', { severity: 'warning', line: lineOf(text, 'max_model_len: 8000') });
});

test('ASTuner ↔ AgentJet renames and legacy keys get a rename fix, dead keys an info', () => {
  let text = agent('ajet', { rollout: { agentscope_workflow: 'agents.math->MathAgent', user_workflow: undefined } });
  const f = expectFinding(run(text, { file: file() }), 'version.renamed-key', { severity: 'warning', line: lineOf(text, 'agentscope_workflow') });
  assert.match(applyFix(text, f), /user_workflow: agents\.math->MathAgent/);
  text = agent('astuner', { rollout: { force_disable_toolcalls: true } });
  expectFinding(run(text, { file: file() }), 'version.renamed-key', { line: lineOf(text, 'force_disable_toolcalls') });
  text = agent('astuner', { trainer_common: { trinity_only__n_vllm_engine: 2 } });
  expectFinding(run(text, { file: file() }), 'version.legacy-key', { severity: 'warning', line: lineOf(text, 'trinity_only__n_vllm_engine') });
  text = agent('astuner', { rollout: { max_num_seqs: 40 } });
  expectFinding(run(text, { file: file() }), 'agent.dead-key', { severity: 'info', line: lineOf(text, 'max_num_seqs') });
});

test('unknown keys under the root warn (ASTuner ignores them); `trinity:` is checked strictly', () => {
  let text = agent('astuner', { rollout: { num_repeats: 4 } });
  const f = expectFinding(run(text, { file: file() }), 'schema.unknown-key-ignored', { severity: 'warning', line: lineOf(text, 'num_repeats') });
  assert.match(en(f.message), /num_repeat`/);
  text = agent('ajet', {}, { trinity: { synchronizer: { sync_offset: 1, sync_methd: 'nccl' } } });
  expectFinding(run(text, { file: file() }), 'schema.unknown-key', { severity: 'error', line: lineOf(text, 'sync_methd') });
  // the plugin storage type of the default layer is fine inside `trinity:`
  text = agent('ajet', {}, { trinity: { buffer: { explorer_input: { taskset: { storage_type: 'ajet' } } } } });
  expectNo(run(text, { file: file() }), 'trinity.buffer.storage-type');
});

test("a do-not-set key names its own framework (an AgentJet key is not 'set by Trinity')", () => {
  const text = agent('ajet', { interchange_server: { already_started: true } });
  const f = expectFinding(run(text, { file: file() }), 'trinity.do-not-set', { severity: 'info', line: lineOf(text, 'already_started') });
  assert.match(en(f.message), /^`ajet\.interchange_server\.already_started` is set by AgentJet itself: /);
  assert.doesNotMatch(en(f.message), /Trinity/);
});
