// AgentJet as of today (ajet_config_schema.py @ 01c63366, ajet_swarm_default.yaml @ 1b4afc7d)
// and the AgentScope tuner's version range (agentscope>=1.0.19,<2: 2.x has no agentscope.tuner).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AGENTSCOPE_TUNER_SPEC } from '../../../../src/config/rules/trinity/agentscope';
import { pinIn } from '../../../../src/config/workspace/pins';
import { schemaAt } from '../../../../src/config/schema/schemas';
import { repoRoot } from '../../../harness/paths';
import { en, expectClean, expectFinding, expectNo, lineOf, merge, type Obj, run, tempDir, trinity, yaml } from '../helpers';

function ajet(patch: Obj): string {
  const base: Obj = {
    ajet: {
      project_name: 'swarm',
      backbone: 'verl',
      model: { path: 'Qwen/Qwen2.5-7B-Instruct' },
      rollout: { user_workflow: null, max_env_worker: 128, num_repeat: 4 },
      task_reader: { type: 'random_dummy' },
      task_judge: { judge_type: 'customized_protocol', judge_protocol: null },
      data: { max_prompt_length: 3000, max_response_length: 15000, train_batch_size: 32 },
      trainer_common: { logger: 'tensorboard', n_gpus_per_node: 8, algorithm: { adv_estimator: 'grpo' } },
    },
    hydra: { searchpath: ['file://ajet/default_config', 'file://ajet/default_config/verl'] },
    defaults: ['verl_default', 'ajet_default', '_self_'],
  };
  return yaml(merge(base, { ajet: merge(base.ajet as Obj, patch) }));
}

test('AgentJet swarm mode, interchange server, LoRA, episode-level keys: known keys, no warnings', () => {
  const text = ajet({
    enable_interchange_server: true,
    enable_swarm_mode: true,
    swarm_mode_sample_collection_method: 'rollout_until_finish_enough_non_dummy_tasks',
    interchange_server: {
      interchange_method: 'tcp',
      interchange_server_port: 10086,
      num_fastapi_process: 2,
      max_fastapi_threads: 512,
      max_inference_tracker_threads: 64,
    },
    lora: { lora_rank: 32, lora_alpha: 16, target_modules: 'all-linear', load_format: 'auto', layered_summon: false },
    rollout: { chat_template_generate_prompt_type: 'qwen3.6', gpu_memory_utilization: 0.85, ppo_max_token_len_per_gpu: null },
    trainer_common: { advantage_estimation_episode_level: true, loss_weight_normalization_episode_level: true, ppo_epochs: 1, kl_penalty_type: 'kl' },
    context_tracker: { timeline_merging_policy: { timeline_compare_level: 'token', ignore_tools: true } },
  });
  const a = run(text, { file: path.join(tempDir(), 'swarm.yaml') });
  expectNo(a, 'schema.unknown-key-ignored');
  expectClean(a);
});

test('AgentJet: unknown values of the new choice fields are flagged, a typo in a LoRA key too', () => {
  const text = ajet({ swarm_mode_sample_collection_method: 'rollout_forever', lora: { lora_rnak: 8 } });
  const a = run(text, { file: path.join(tempDir(), 'swarm.yaml') });
  expectFinding(a, 'schema.unknown-key-ignored', { line: lineOf(text, 'lora_rnak') });
  expectFinding(a, 'agent.unknown-choice', { severity: 'warning', line: lineOf(text, 'rollout_forever') });
});

test('the AgentScope tuner template states the versions it needs, the same range the check uses', () => {
  assert.equal(AGENTSCOPE_TUNER_SPEC, 'agentscope>=1.0.19,<2');
  for (const f of ['README.md', 'config.yaml']) {
    assert.ok(
      fs.readFileSync(path.join(repoRoot, 'templates', 'agentscope-tuner', f), 'utf8').includes('agentscope>=1.0.19,<2') ||
        fs.readFileSync(path.join(repoRoot, 'templates', 'agentscope-tuner', f), 'utf8').includes('agentscope[tuner]>=1.0.19,<2'),
      f,
    );
  }
});

test('pins: requirements and pyproject dependency strings', () => {
  assert.deepEqual(pinIn('numpy\nagentscope[tuner]>=1.0.19,<2\n', 'agentscope'), { version: '1.0.19', spec: 'agentscope[tuner]>=1.0.19,<2' });
  assert.deepEqual(pinIn('dependencies = [\n  "agentscope==2.0.6",\n]\n', 'agentscope'), { version: '2.0.6', spec: 'agentscope==2.0.6' });
  assert.equal(pinIn('# agentscope==2.0.6\nagentscope-runtime==3.0\n', 'agentscope'), undefined);
});

test('AgentScope 2.x pinned or installed: the tuner workflow gets a warning naming agentscope>=1.0.19,<2', () => {
  const text = trinity({ buffer: { explorer_input: { default_workflow_type: 'agentscope_workflow_adapter_v1' } } });
  const v2 = tempDir();
  fs.writeFileSync(path.join(v2, 'requirements.txt'), 'trinity-rft==0.6.0\nagentscope==2.0.6\n');
  const f = expectFinding(run(text, { roots: [v2], file: path.join(v2, 'c.yaml') }), 'trinity.agentscope.tuner-v2', {
    severity: 'warning',
    line: lineOf(text, 'agentscope_workflow_adapter_v1'),
  });
  assert.match(en(f.message), /needs agentscope>=1\.0\.19,<2; requirements\.txt pins `agentscope==2\.0\.6`, and AgentScope 2\.x has no agentscope\.tuner/);
  // the valid twin: a 1.x pin
  const v1 = tempDir();
  fs.writeFileSync(path.join(v1, 'requirements.txt'), 'agentscope[tuner]>=1.0.19,<2\n');
  expectNo(run(text, { roots: [v1], file: path.join(v1, 'c.yaml') }), 'trinity.agentscope.tuner-v2');
  // installed in the workspace venv
  const venv = tempDir();
  fs.mkdirSync(path.join(venv, '.venv', 'lib', 'python3.11', 'site-packages', 'agentscope-2.0.6.dist-info'), { recursive: true });
  expectFinding(run(text, { roots: [venv], file: path.join(venv, 'c.yaml') }), 'trinity.agentscope.tuner-v2');
  // mutant: with the rule removed, nothing
  expectNo(run(text, { roots: [v2], file: path.join(v2, 'c.yaml'), disabledRules: new Set(['trinity.agentscope-tuner']) }), 'trinity.agentscope.tuner-v2');
});

// Every field of upstream's dataclass schema (ajet/default_config/ajet_config_schema.py @ 01c63366,
// read with the search tool; listed here by hand) exists in schemas/ajet.schema.json.
const UPSTREAM_FIELDS = [
  'project_name',
  'experiment_name',
  'experiment_dir',
  'backbone',
  'model.path',
  'data.max_prompt_length',
  'data.max_response_length',
  'data.train_batch_size',
  'rollout.user_workflow',
  'rollout.n_vllm_engine',
  'rollout.tensor_model_parallel_size',
  'rollout.max_num_seqs',
  'rollout.num_repeat',
  'rollout.gpu_memory_utilization',
  'rollout.ppo_max_token_len_per_gpu',
  'rollout.compute_madness_checklist',
  'rollout.chat_template_generate_prompt_type',
  'trainer_common.n_gpus_per_node',
  'trainer_common.nnodes',
  'trainer_common.algorithm.adv_estimator',
  'trainer_common.optim.lr',
  'trainer_common.use_kl_loss',
  'trainer_common.kl_penalty_type',
  'trainer_common.ppo_epochs',
  'trainer_common.ulysses_sequence_parallel_size',
  'trainer_common.val_print_to_markdown_file_path',
  'trainer_common.train_print_to_markdown_file_path',
  'trainer_common.total_training_steps',
  'trainer_common.test_freq',
  'trainer_common.save_freq',
  'trainer_common.total_epochs',
  'trainer_common.val_pass_n',
  'trainer_common.val_before_train',
  'trainer_common.loss_weight_normalization_episode_level',
  'trainer_common.advantage_estimation_episode_level',
  'trainer_verl',
  'task_reader.type',
  'task_reader.huggingface_dat_repo.dataset_path',
  'task_reader.huggingface_dat_repo.dataset_name',
  'task_reader.huggingface_dat_repo.training_split',
  'task_reader.huggingface_dat_repo.validation_split',
  'task_reader.huggingface_dat_repo.http_proxy_address',
  'task_reader.jsonl_dataset_file.training',
  'lora.lora_rank',
  'lora.lora_alpha',
  'lora.target_modules',
  'lora.load_format',
  'lora.layered_summon',
  'context_tracker.timeline_merging_policy.timeline_compare_level',
  'context_tracker.timeline_merging_policy.ignore_tools',
  'enable_swarm_mode',
  'swarm_mode_sample_collection_method',
  'execute_test',
  'interchange_server.interchange_method',
  'interchange_server.interchange_server_port',
  'interchange_server.num_fastapi_process',
  'interchange_server.max_fastapi_threads',
  'interchange_server.max_inference_tracker_threads',
  'interchange_server.already_started',
  // ajet_swarm_default.yaml @ 1b4afc7d
  'enable_interchange_server',
  'task_judge.judge_type',
  'trainer_common.logger',
];

test("schemas/ajet.schema.json has every field of upstream's dataclass schema", () => {
  const missing = UPSTREAM_FIELDS.filter((f) => !schemaAt('ajet', ['ajet', ...f.split('.')]));
  assert.deepEqual(missing, []);
  assert.deepEqual(
    schemaAt('ajet', ['ajet', 'task_reader', 'type'])?.['x-choices']?.filter((c) => ['random_dummy', 'data_generation'].includes(c)),
    ['data_generation', 'random_dummy'],
  );
  assert.deepEqual(schemaAt('ajet', ['ajet', 'task_judge', 'judge_type'])?.['x-choices'], ['customized_protocol', 'rubrics_auto_grader']);
});

test('AgentJet keys of ajet_default.yaml @ 01a9a0df: top_k, val_only, validation clipping, loss scale, optim.*, cached episodes — accepted, typed, documented', () => {
  const text = ajet({
    rollout: { top_k: 20 },
    trainer_common: {
      val_only: true,
      val_max_num_task_each_validation: 64,
      val_max_num_task_clip_method: 'first_n',
      loss_extra_scale_ratio: 0.5,
      use_kl_in_reward: false,
      optim: {
        optimizer: 'AdamW',
        optimizer_impl: 'torch.optim',
        lr: 2e-6,
        lr_warmup_steps_ratio: 0.1,
        total_training_steps: -1,
        weight_decay: 0.0,
        lr_warmup_steps: -1,
        betas: [0.9, 0.95],
        min_lr_ratio: 0.1,
        num_cycles: 0.5,
        lr_scheduler_type: 'cosine',
        zero_indexed_step: true,
        grad_clip: 1.0,
      },
    },
    swarm_mode_sample_collection_max_cached_episodes: 512,
  });
  const a = run(text, { file: path.join(tempDir(), 'today.yaml') });
  expectNo(a, 'schema.unknown-key-ignored');
  expectClean(a);
  const bad = ajet({ trainer_common: { val_only: 'sometimes', optim: { grad_clip: 'big' } } });
  const b = run(bad, { file: path.join(tempDir(), 'bad.yaml') });
  expectFinding(b, 'schema.type', { line: lineOf(bad, 'val_only') });
  expectFinding(b, 'schema.type', { line: lineOf(bad, 'grad_clip') });
  assert.equal(schemaAt('ajet', ['ajet', 'trainer_common', 'optim', 'lr_scheduler_type'])?.default, 'constant');
  assert.match(schemaAt('ajet', ['ajet', 'rollout', 'top_k'])?.['x-zh'] ?? '', /\p{Script=Han}/u);
});
