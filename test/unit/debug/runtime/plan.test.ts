import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildPlan, taskSource, validateLaunchArgs } from '../../../../src/debug/runtime/plan';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-plan-'));
fs.mkdirSync(path.join(dir, 'data'));
fs.writeFileSync(path.join(dir, 'data', 'train.jsonl'), '{}\n');

test('Trinity: taskset, workflow, reward, format and sampling come from the config', () => {
  const doc = {
    model: { model_path: 'Qwen/Qwen2.5-0.5B-Instruct', max_response_tokens: 128, temperature: 0.7 },
    buffer: {
      explorer_input: {
        default_reward_fn_type: 'math_reward',
        taskset: {
          path: 'data',
          split: 'train',
          format: { prompt_key: 'question' },
          rollout_args: { temperature: 0 },
          default_workflow_type: 'wf.W',
          workflow_args: { k: 1 },
        },
      },
    },
  };
  const r = buildPlan({ config: path.join(dir, 'c.yaml'), tasks: ['a', 'b'] }, 'trinity', doc, path.join(dir, 'c.yaml'));
  assert.deepEqual(r.errors, []);
  assert.equal(r.modelName, 'Qwen/Qwen2.5-0.5B-Instruct');
  assert.deepEqual(r.plan!.tasks, { source: { type: 'file', path: path.join(dir, 'data'), split: 'train' }, ids: ['a', 'b'] });
  assert.equal(r.plan!.workflow, 'wf.W');
  assert.equal(r.plan!.reward, 'math_reward');
  assert.deepEqual(r.plan!.rolloutArgs, { temperature: 0, max_tokens: 128 });
  assert.deepEqual(r.plan!.workflowArgs, { k: 1 });
  const none = buildPlan({ config: 'c.yaml' }, 'trinity', { buffer: {} }, path.join(dir, 'c.yaml'));
  assert.match(none.errors[0], /no buffer\.explorer_input\.taskset/);
});

test('ASTuner / AgentJet: task reader, workflow, judge; unsupported readers point at the upstream backbone', () => {
  const doc = {
    ajet: {
      rollout: { user_workflow: 'tutorial.math->MathWorkflow' },
      task_judge: { judge_protocol: 'j->J' },
      task_reader: { type: 'jsonl_dataset_file', jsonl_dataset_file: { validation: { file_path: 'data/train.jsonl' } } },
      debug: { debug_first_n_tasks: 2 },
    },
  };
  const r = buildPlan({ config: 'c.yaml', cwd: dir }, 'ajet', doc, path.join(dir, 'c.yaml'));
  assert.equal(r.plan!.workflow, 'tutorial.math->MathWorkflow');
  assert.equal(r.plan!.reward, 'j->J');
  assert.equal(r.plan!.tasks.count, 2);
  const env = buildPlan(
    { config: 'c.yaml', cwd: dir },
    'astuner',
    { astuner: { task_reader: { type: 'env_service' }, rollout: { agentscope_workflow: 'a->B' } } },
    path.join(dir, 'c.yaml'),
  );
  assert.match(env.errors[0], /task_reader\.type 'env_service' needs the astuner debug backbone/);
});

test('taskset paths: local (cwd, then the config folder) or a Hugging Face id', () => {
  assert.deepEqual(taskSource('data', 'train', '/nonexistent', dir), { type: 'file', path: path.join(dir, 'data'), split: 'train' });
  assert.deepEqual(taskSource('openai/gsm8k', 'test', dir, dir), { type: 'hf', path: 'openai/gsm8k', split: 'test' });
  // subset_name (datasets' configuration name) reaches the runner for a local folder too, as Trinity passes it to load_dataset
  assert.deepEqual(taskSource('data', 'test', '/nonexistent', dir, 'socratic'), {
    type: 'file',
    path: path.join(dir, 'data'),
    split: 'test',
    name: 'socratic',
  });
  assert.deepEqual(taskSource('openai/gsm8k', 'test', dir, dir, 'main'), { type: 'hf', path: 'openai/gsm8k', split: 'test', name: 'main' });
  assert.deepEqual(validateLaunchArgs({ config: 'x', repeat: 0, backbone: 'gpu' as never }), [
    '"repeat" must be a positive integer',
    `"backbone" must be native, trinity, astuner or ajet (got 'gpu')`,
  ]);
});

// `launcherArgs` (AgentJet / ASTuner launcher flags) in a launch configuration: a list of strings,
// and only with an upstream backbone. Passing them to the upstream CLI is
// test/component/debug/backbones/upstream-backbones.test.ts.
test('launcherArgs are checked: a list of strings, with an upstream backbone', () => {
  assert.deepEqual(validateLaunchArgs({ config: 'x', backbone: 'ajet', launcherArgs: ['--autokill'] }), []);
  assert.match(
    validateLaunchArgs({ config: 'x', backbone: 'ajet', launcherArgs: '--autokill' as never }).join('\n'),
    /"launcherArgs" must be a list of strings/,
  );
  assert.match(validateLaunchArgs({ config: 'x', launcherArgs: ['--autokill'] }).join('\n'), /set "backbone" to "ajet", "astuner" or "trinity"/);
});

test('debugTags are checked: tags without spaces or "|", with the ajet or astuner backbone', () => {
  assert.deepEqual(validateLaunchArgs({ config: 'x', backbone: 'ajet', debugTags: ['TAG_1', 'reward'] }), []);
  assert.deepEqual(validateLaunchArgs({ config: 'x', backbone: 'astuner', debugTags: [] }), []);
  assert.match(validateLaunchArgs({ config: 'x', backbone: 'ajet', debugTags: ['a|b'] }).join('\n'), /"debugTags" must be a list of tags/);
  assert.match(validateLaunchArgs({ config: 'x', backbone: 'ajet', debugTags: ['two words'] }).join('\n'), /"debugTags" must be a list of tags/);
  assert.match(validateLaunchArgs({ config: 'x', backbone: 'ajet', debugTags: 'TAG' as never }).join('\n'), /"debugTags" must be a list of tags/);
  assert.match(validateLaunchArgs({ config: 'x', backbone: 'trinity', debugTags: ['TAG'] }).join('\n'), /set "backbone" to "ajet" or "astuner"/);
  assert.match(validateLaunchArgs({ config: 'x', debugTags: ['TAG'] }).join('\n'), /set "backbone" to "ajet" or "astuner"/);
});
