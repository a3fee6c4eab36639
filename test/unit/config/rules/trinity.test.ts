// Trinity-RFT 0.6's checks that the first 0.6 facts left out, each from its upstream condition and
// message (config_validator.py of both stored lines, pan-x-c@0ccf77cf and agentscope-ai@1c35a79b;
// algorithm.py @ 402adb2b): an offending config gets the finding on the offending line, its valid
// twin (the feature used correctly) none, and the same config with the rule removed none either.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { EngineChecker } from '../../../../src/config/engine/checker';
import type { Finding } from '../../../../src/config/core/findings';
import type { PackageInForce } from '../../../../src/config/workspace/trinity-version';
import { applyFix, en, expectFinding, expectNo, lineOf, type Obj, run, tempDir, trinity, zh } from '../helpers';

interface Case {
  name: string;
  rule: string;
  code: string;
  severity: Finding['severity'];
  /** Upstream's message (the part we reproduce word for word). */
  upstream: RegExp;
  bad: Obj;
  good: Obj;
  at: string;
  /** Which occurrence of `at` (0: the first). */
  nth?: number;
  verl?: PackageInForce;
}

const VERL_08: PackageInForce = { version: '0.8.0', source: 'pin', from: 'requirements.txt' };
const VERL_071: PackageInForce = { version: '0.7.1', source: 'pin', from: 'requirements.txt' };

const CASES: Case[] = [
  {
    name: 'a parallel size below 1 (ExplorerConfigValidator._validate_inference_parallel_config)',
    rule: 'trinity.engine.parallel-min',
    code: 'trinity.engine.parallel-min',
    severity: 'error',
    upstream: /^`rollout_model\.pipeline_parallel_size` must be >= 1, but got 0\.$/,
    bad: { explorer: { rollout_model: { pipeline_parallel_size: 0 } } },
    good: { explorer: { rollout_model: { pipeline_parallel_size: 1 } } },
    at: 'pipeline_parallel_size: 0',
  },
  {
    name: "an auxiliary model too (`auxiliary_model.` in upstream's message)",
    rule: 'trinity.engine.parallel-min',
    code: 'trinity.engine.parallel-min',
    severity: 'error',
    upstream: /^`auxiliary_model\.tensor_parallel_size` must be >= 1, but got 0\.$/,
    bad: { explorer: { auxiliary_models: [{ model_path: 'Qwen/Qwen2.5-7B-Instruct', tensor_parallel_size: 0 }] } },
    good: { explorer: { auxiliary_models: [{ model_path: 'Qwen/Qwen2.5-7B-Instruct', tensor_parallel_size: 1 }] } },
    at: 'tensor_parallel_size: 0',
  },
  {
    name: 'eval tasksets with fully_async sync (pan-x-c@0ccf77cf only: a warning)',
    rule: 'trinity.buffer',
    code: 'trinity.buffer.fully-async-eval',
    severity: 'warning',
    upstream:
      /^Eval tasksets are not supported in fully asynchronous synchronization style: the validator of pan-x-c@0ccf77cf rejects this config \(agentscope-ai@1c35a79b runs it\)\.$/,
    bad: {
      synchronizer: { sync_style: 'fully_async' },
      buffer: { explorer_input: { eval_tasksets: [{ name: 'test', path: 'openai/gsm8k', split: 'test' }] } },
    },
    good: {
      synchronizer: { sync_style: 'explorer_driven' },
      buffer: { explorer_input: { eval_tasksets: [{ name: 'test', path: 'openai/gsm8k', split: 'test' }] } },
    },
    at: 'eval_tasksets:',
  },
  {
    name: 'FILE storage as the experience buffer in both mode (Trinity uses QUEUE)',
    rule: 'trinity.buffer',
    code: 'trinity.buffer.file-experience-buffer',
    severity: 'info',
    upstream: /^`FILE` storage is not supported to use as experience_buffer in `both` mode/,
    bad: { buffer: { trainer_input: { experience_buffer: { name: 'buf', storage_type: 'file', path: './buf.jsonl' } } } },
    good: { buffer: { trainer_input: { experience_buffer: { name: 'buf', storage_type: 'queue' } } } },
    at: 'storage_type: file',
    nth: 1,
  },
  {
    name: 'M2PO without bypass_old_logprobs (M2POAlgorithm.check_config)',
    rule: 'trinity.algorithm.m2po',
    code: 'trinity.algorithm.m2po-bypass',
    severity: 'error',
    upstream: /^M2PO requires `algorithm\.bypass_old_logprobs=true` so the importance ratio is measured against the rollout behavior policy\.$/,
    bad: { algorithm: { algorithm_type: 'm2po', bypass_old_logprobs: false } },
    good: { algorithm: { algorithm_type: 'm2po', bypass_old_logprobs: true } },
    at: 'bypass_old_logprobs: false',
    verl: VERL_08,
  },
  {
    name: 'M2PO on a tinker trainer',
    rule: 'trinity.algorithm.m2po',
    code: 'trinity.algorithm.m2po-engine',
    severity: 'error',
    upstream: /^M2PO requires the veRL >= 0\.8 engine backend\. Legacy veRL and Tinker split the objective/,
    bad: { algorithm: { algorithm_type: 'm2po' }, trainer: { trainer_type: 'tinker' } },
    good: { algorithm: { algorithm_type: 'm2po' }, trainer: { trainer_type: 'verl' } },
    at: 'trainer_type: tinker',
    verl: VERL_08,
  },
  {
    name: 'M2PO on legacy veRL (verl==0.7.1 pinned)',
    rule: 'trinity.algorithm.m2po',
    code: 'trinity.algorithm.m2po-engine',
    severity: 'error',
    upstream: /^M2PO requires the veRL >= 0\.8 engine backend \(verl 0\.7\.1, pinned in requirements\.txt\)\./,
    bad: { algorithm: { algorithm_type: 'm2po' } },
    good: { algorithm: { algorithm_type: 'grpo' } },
    at: 'algorithm_type: m2po',
    verl: VERL_071,
  },
  {
    name: 'CPT in both mode: SFTAlgorithm.check_config, which CPT inherits',
    rule: 'trinity.algorithm',
    code: 'trinity.algorithm.mode',
    severity: 'error',
    upstream: /^SFT does not support `both` mode/,
    bad: { algorithm: { algorithm_type: 'cpt' } },
    good: {
      mode: 'train',
      algorithm: { algorithm_type: 'cpt' },
      buffer: { train_batch_size: 32, trainer_input: { experience_buffer: { name: 'text', storage_type: 'file', path: 'openai/gsm8k' } } },
    },
    at: 'mode: both',
  },
];

for (const c of CASES) {
  test(`0.6 check: ${c.name} — on the offending line with upstream's message; valid twin clean; gone without the rule`, () => {
    const text = trinity(c.bad);
    const f = expectFinding(run(text, { verl: c.verl }), c.code, { severity: c.severity, line: lineOf(text, c.at, c.nth) });
    assert.match(en(f.message), c.upstream);
    assert.match(zh(f.message), /\p{Script=Han}/u, 'translated');
    const good = run(trinity(c.good), { verl: c.verl });
    assert.deepEqual(
      good.findings.filter((x) => x.severity !== 'info').map((x) => x.code),
      [],
      en(f.message),
    );
    expectNo(run(text, { verl: c.verl, disabledRules: new Set([c.rule]) }), c.code);
  });
}

test('0.6 checks do not apply with 0.5.2 in force (parallel sizes, fully_async, M2PO)', () => {
  for (const c of CASES.filter((x) => /parallel|fully-async|m2po/.test(x.code))) {
    expectNo(run(trinity(c.bad), { verl: c.verl, trinityVersion: '0.5.2' }), c.code);
  }
});

test("M2PO with no verl version in the workspace: information naming the pin to add, no error (upstream's own example config)", () => {
  const text = trinity({ algorithm: { algorithm_type: 'm2po' } });
  const f = expectFinding(run(text), 'trinity.algorithm.m2po-verl-unknown', { severity: 'info', line: lineOf(text, 'algorithm_type: m2po') });
  assert.match(en(f.message), /Pin `verl>=0\.8`/);
  expectNo(run(text, { verl: VERL_08 }), 'trinity.algorithm.m2po-verl-unknown');
});

test('eval_interval is rounded to explorer_sync_interval with 0.6 (sync_interval with 0.5.2)', () => {
  const text = trinity({ explorer: { eval_interval: 10 }, synchronizer: { sync_interval: 2, explorer_sync_interval: 4 } });
  const f = expectFinding(run(text), 'trinity.sync.eval-interval-rounded', { severity: 'info', line: lineOf(text, 'eval_interval') });
  assert.equal(en(f.message), '`eval_interval` (10) is not a multiple of `explorer_sync_interval` (4); Trinity uses 8.');
  assert.equal(applyFix(text, f).match(/eval_interval: (\d+)/)?.[1], '8');
  // the twin: a multiple of explorer_sync_interval (not of sync_interval's 2 alone)
  expectNo(
    run(trinity({ explorer: { eval_interval: 12 }, synchronizer: { sync_interval: 2, explorer_sync_interval: 4 } })),
    'trinity.sync.eval-interval-rounded',
  );
  // unset explorer_sync_interval: sync_interval, as before
  expectFinding(run(trinity({ explorer: { eval_interval: 9 }, synchronizer: { sync_interval: 2 } })), 'trinity.sync.eval-interval-rounded');
});

test('a task pipeline whose output path already exists is refused; a new path is fine', () => {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'processed'));
  const file = path.join(dir, 'config.yaml');
  const pipeline = (out: string) =>
    trinity({
      data_processor: {
        task_pipeline: {
          operators: [{ name: 'llm_difficulty_score_filter' }],
          inputs: ['openai/gsm8k'],
          output: { name: 'out', storage_type: 'file', path: out },
        },
      },
    });
  const text = pipeline('./processed');
  const f = expectFinding(run(text, { file, roots: [dir], checkPaths: true }), 'trinity.data.task-pipeline-output-exists', {
    severity: 'error',
    line: lineOf(text, 'path: ./processed'),
  });
  assert.equal(en(f.message), 'Task pipeline output path ./processed already exists. Please choose a different output path to avoid overwriting.');
  expectNo(run(pipeline('./processed-v2'), { file, roots: [dir], checkPaths: true }), 'trinity.data.task-pipeline-output-exists');
  expectNo(run(text, { file, roots: [dir], checkPaths: false }), 'trinity.data.task-pipeline-output-exists');
});

test('the trainer validator no longer runs in bench mode with 0.6 (both stored lines), as it did with 0.5.2', () => {
  const text = trinity({ mode: 'bench', trainer: { trainer_type: 'deepspeed' } });
  expectNo(run(text), 'trinity.trainer.type');
  expectFinding(run(text, { trinityVersion: '0.5.2' }), 'trinity.trainer.type', { severity: 'error' });
  expectFinding(run(trinity({ mode: 'both', trainer: { trainer_type: 'deepspeed' } })), 'trinity.trainer.type', { severity: 'error' });
});

// verl ≥ 0.8: `trainer.trainer_config` is not read at all (verl08/config.py builds veRL's config
// from Trinity keys), so one warning on the block, naming the Trinity key for each setting.
test("verl 0.8 pinned: one warning on trainer.trainer_config naming the Trinity-level keys; none with verl==0.7.1 (0.6's pin)", () => {
  const text = trinity({
    trainer: {
      trainer_config: { actor_rollout_ref: { actor: { use_dynamic_bsz: false, optim: { lr: 2e-6 } }, rollout: { n: 8 } }, trainer: { balance_batch: true } },
    },
  });
  const root = (reqs: string) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'requirements.txt'), reqs);
    return dir;
  };
  const checkIn = (dir: string) => new EngineChecker({ roots: [dir], scanPython: false, checkPaths: false }).analyzeText(path.join(dir, 'config.yaml'), text);
  const a = checkIn(root('trinity-rft==0.6.0\nverl==0.8.0\n'));
  assert.equal(a.trinityVersion, '0.6.0');
  const found = a.findings.filter((f) => f.code === 'trinity.trainer.verl-config-ignored');
  assert.equal(found.length, 1, 'one warning for the block');
  assert.equal(found[0].severity, 'warning');
  assert.equal(a.lines.position(found[0].span.start).line, lineOf(text, 'trainer_config:'));
  assert.equal(
    en(found[0].message),
    "verl ≥ 0.8 (verl 0.8.0, pinned in requirements.txt): Trinity-RFT builds veRL's config from Trinity keys, so `trainer.trainer_config` is ignored. Use `trainer.use_dynamic_bsz` for `actor_rollout_ref.actor.use_dynamic_bsz`, `algorithm.optimizer.lr` for `actor_rollout_ref.actor.optim.lr`, `algorithm.repeat_times` for `actor_rollout_ref.rollout.n` instead. No Trinity key sets `trainer.balance_batch`: veRL uses its own default.",
  );
  assert.match(zh(found[0].message), /会被忽略/);
  // the twin: verl==0.7.1 (what Trinity-RFT 0.6 itself pins): the legacy backend reads the block
  expectNo(checkIn(root('trinity-rft==0.6.0\nverl==0.7.1\n')), 'trinity.trainer.verl-config-ignored');
  // verl 0.8 pinned in a conda environment, or installed in the workspace venv
  const conda = tempDir();
  fs.writeFileSync(path.join(conda, 'environment.yml'), 'name: rl\ndependencies:\n  - python=3.11\n  - pip:\n    - trinity-rft==0.6.0\n    - verl>=0.8.0\n');
  expectFinding(checkIn(conda), 'trinity.trainer.verl-config-ignored');
  const venv = tempDir();
  fs.mkdirSync(path.join(venv, '.venv', 'lib', 'python3.11', 'site-packages', 'verl-0.8.1.dist-info'), { recursive: true });
  assert.match(en(expectFinding(checkIn(venv), 'trinity.trainer.verl-config-ignored').message), /verl 0\.8\.1, installed in .*verl-0\.8\.1\.dist-info/);
  // no trainer_config: nothing to say; Trinity-RFT 0.5.2 pinned: it needs verl 0.7.1 anyway
  expectNo(
    new EngineChecker({ roots: [root('trinity-rft==0.6.0\nverl==0.8.0\n')], scanPython: false }).analyzeText('/x/c.yaml', trinity()),
    'trinity.trainer.verl-config-ignored',
  );
  expectNo(checkIn(root('trinity-rft==0.5.2\nverl==0.8.0\n')), 'trinity.trainer.verl-config-ignored');
  // mutant: without the rule, no warning
  expectNo(run(text, { verl: VERL_08, disabledRules: new Set(['trinity.trainer.verl-engine']) }), 'trinity.trainer.verl-config-ignored');
});

test('agentrl check reads the Trinity-RFT version from pins: requirements, pyproject, setup.cfg, environment.yml', () => {
  const text = trinity({ explorer: { rollout_model: { data_parallel_size: 1 } } });
  for (const [file, body] of [
    ['requirements-train.txt', 'trinity-rft==0.5.2\n'],
    ['pyproject.toml', '[project]\ndependencies = ["trinity-rft==0.5.2"]\n'],
    ['setup.cfg', '[options]\ninstall_requires =\n    trinity-rft==0.5.2\n'],
    ['environment.yml', 'dependencies:\n  - pip:\n    - trinity-rft==0.5.2\n'],
  ]) {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, file), body);
    const checker = new EngineChecker({ roots: [dir], scanPython: false });
    assert.equal(checker.trinityVersion, '0.5.2', file);
    const f = expectFinding(checker.analyzeText(path.join(dir, 'c.yaml'), text), 'version.newer-key');
    assert.match(en(f.message), new RegExp(`this workspace has 0\\.5\\.2 \\(pinned: 0\\.5\\.2 \\(${file.replace('.', '\\.')}\\)\\)`), file);
  }
  // an explicit setting still wins; no pin: the newest
  assert.equal(new EngineChecker({ roots: [tempDir()], scanPython: false }).trinityVersion, '0.6.0');
});
