// Structure, per the single-change edge cases of ../shared/corpus/EXPECTED.md (Trinity 0.5.2's
// loader run on each): OmegaConf coercion accepted, unknown keys and wrong types rejected at the exact
// key or value; versioned keys get a release-naming warning with a rename fix.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { ParseCache } from '../../../../src/config/yaml/parse';
import { applyFix, en, expectClean, expectFinding, expectNo, lineOf, run, trinity } from '../helpers';

test('accepted: sync_method in any case, and the aliases offline / online', () => {
  for (const m of ['NCCL', 'Nccl', 'checkpoint', 'CHECKPOINT', 'offline', 'online', 'memory']) {
    const a = run(trinity({ synchronizer: { sync_method: m } }));
    expectNo(a, 'schema.type');
  }
});

test('accepted: a quoted int and "yes" for a bool (OmegaConf converts them)', () => {
  const text = trinity({ buffer: { total_epochs: '3' }, explorer: { rollout_model: { enable_prefix_caching: 'yes', enforce_eager: 'off' } } });
  expectClean(run(text));
  // plain YAML 1.1 booleans too
  expectClean(run(text.replace('enable_prefix_caching: "yes"', 'enable_prefix_caching: yes')));
});

test('accepted: unknown keys inside free dicts (policy_loss_fn_args, workflow_args, …)', () => {
  expectClean(
    run(
      trinity({
        algorithm: { policy_loss_fn_args: { clip_range: 0.2, my_new_arg: 1 } },
        buffer: { explorer_input: { taskset: { workflow_args: { anything: { nested: true } } } } },
      }),
    ),
  );
});

test('rejected: an unknown key in a dataclass section, at the key, with did-you-mean', () => {
  const text = trinity({ explorer: { rollout_model: { engine_nums: 2 } } });
  const f = expectFinding(run(text), 'schema.unknown-key', { severity: 'error', line: lineOf(text, 'engine_nums') });
  assert.match(en(f.message), /Did you mean `engine_num`/);
  const a = run(text);
  const pos = a.lines.position(f.span.start);
  assert.equal(pos.character, text.split('\n')[pos.line].indexOf('engine_nums'));
  assert.equal(f.span.end - f.span.start, 'engine_nums'.length);
  assert.match(applyFix(text, f), /engine_num: 2/);
});

test('rejected: unknown top-level key', () => {
  const text = trinity({ explorr: { eval_interval: 10 } });
  expectFinding(run(text), 'schema.unknown-key', { line: lineOf(text, 'explorr:') });
});

test('rejected: unknown sync_style / prompt_type values (enums), with a fix', () => {
  let text = trinity({ synchronizer: { sync_style: 'explorer_drivn' } });
  const f = expectFinding(run(text), 'schema.type', { severity: 'error', line: lineOf(text, 'sync_style') });
  assert.match(en(f.message), /invalid value 'explorer_drivn'/);
  expectClean(run(applyFix(text, f)));
  text = trinity({ buffer: { explorer_input: { taskset: { format: { prompt_type: 'chat' } } } } });
  expectFinding(run(text), 'schema.type', { line: lineOf(text, 'prompt_type') });
});

test('rejected: 2.0, 1.5 or true for an int; null for a non-Optional field; a word for a float', () => {
  for (const [v, raw] of [
    [2.0, 'total_epochs: 2.0'],
    [1.5, 'total_epochs: 1.5'],
    [true, 'total_epochs: true'],
  ] as const) {
    const text = trinity({ buffer: { total_epochs: v } }).replace(/total_epochs: .*/, raw);
    const f = expectFinding(run(text), 'schema.type', { severity: 'error', line: lineOf(text, 'total_epochs') });
    assert.match(en(f.message), /expected an int/);
  }
  let text = trinity({ buffer: { batch_size: null } });
  expectFinding(run(text), 'schema.type', { line: lineOf(text, 'batch_size') });
  text = trinity({ algorithm: { optimizer: { lr: 'fast' } } });
  expectFinding(run(text), 'schema.type', { line: lineOf(text, 'lr: fast') });
  expectClean(run(trinity({ algorithm: { optimizer: { lr: '1e-6' } } })));
  expectClean(run(trinity({ algorithm: { optimizer: { lr: 1e-6 } } })));
});

test('rejected: a scalar where a section is expected', () => {
  const text = trinity({ explorer: { rollout_model: 'vllm' } });
  expectFinding(run(text), 'schema.type', { severity: 'error', line: lineOf(text, 'rollout_model: vllm') });
});

test('rejected with 0.5.2: an unknown key inside trainer.trainer_config (merged strictly into veRL)', () => {
  const text = trinity({ trainer: { trainer_config: { actor_rollout_ref: { actor: { ppo_epoch: 2 } } } } });
  const f = expectFinding(run(text, { trinityVersion: '0.5.2' }), 'schema.unknown-key', { severity: 'error', line: lineOf(text, 'ppo_epoch:') });
  assert.match(en(f.message), /ppo_epochs/);
  // veRL-imported sub-configs stay open
  expectNo(
    run(trinity({ trainer: { trainer_config: { actor_rollout_ref: { actor: { checkpoint: { async_save: true }, policy_loss: { anything: 1 } } } } } })),
    'schema.unknown-key',
  );
});

test('versions: a key from an older release names the release and offers the rename', () => {
  const text = trinity({ trainer: { actor_grad_clip: 1.0 } });
  const f = expectFinding(run(text), 'version.renamed-key', { severity: 'warning', line: lineOf(text, 'actor_grad_clip') });
  assert.match(en(f.message), /removed in 0\.3\.2/);
  assert.match(en(f.message), /0\.1\.1–0\.3\.1/);
  expectNo(run(text), 'schema.unknown-key');
  assert.match(applyFix(text, f), /grad_clip: 1/);
});

test("versions: enable_openai_client (the seed docs' name) → enable_openai_api", () => {
  const text = trinity({ explorer: { rollout_model: { enable_openai_client: true } } });
  const f = expectFinding(run(text), 'version.renamed-key', { severity: 'warning', line: lineOf(text, 'enable_openai_client') });
  assert.match(applyFix(text, f), /enable_openai_api: true/);
});

test('versions: a key that is valid in the targeted older release is accepted', () => {
  const text = trinity({ trainer: { actor_grad_clip: 1.0 } });
  expectNo(run(text, { trinityVersion: '0.3.1' }), 'version.renamed-key');
});

test('versions: a key newer than the release in force says which release it needs', () => {
  const text = trinity({ explorer: { concurrent_mode: 'sequential' } });
  // the older loader rejects the key, so an error — but a version message, not "Unknown key"
  const f = expectFinding(run(text, { trinityVersion: '0.4.0' }), 'version.newer-key', { severity: 'error', line: lineOf(text, 'concurrent_mode') });
  assert.equal(en(f.message), '`explorer.concurrent_mode` needs Trinity-RFT ≥ 0.5; this workspace has 0.4.0.');
  expectNo(run(text), 'version.newer-key');
  // with the source of the version when the engine is told it
  const g = expectFinding(run(text, { trinityVersion: '0.4.0', trinityVersionSource: 'pinned in requirements.txt' }), 'version.newer-key');
  assert.match(en(g.message), /this workspace has 0\.4\.0 \(pinned in requirements\.txt\)\.$/);
});

test('YAML syntax errors are errors at their position', () => {
  const text = trinity().replace('  batch_size: 8\n', '  batch_size: [8\n');
  const a = run(text);
  assert.ok(
    a.findings.some((f) => f.code === 'yaml.syntax' && f.severity === 'error'),
    'syntax error reported',
  );
});

test('duplicate keys are errors at the second key', () => {
  const text = trinity().replace('mode: both\n', 'mode: both\nmode: train\n');
  expectFinding(run(text), 'yaml.duplicate-key', { severity: 'error', line: lineOf(text, 'mode: train') });
});

test('multi-document files: each document is checked, and Trinity reads only one', () => {
  const text = `${trinity()}---\n${trinity({ mode: 'Explore' })}`;
  const a = run(text);
  expectFinding(a, 'yaml.multiple-documents', { severity: 'error', line: lineOf(text, '---') });
  expectFinding(a, 'trinity.mode.invalid', { line: lineOf(text, 'mode: Explore') });
});

test('anchors, aliases and merge keys resolve; findings inside aliased content point at the alias', () => {
  const text = ['mode: both', 'defaults_tmpl: &fmt', '  prompt_key: question', '  response_key: answer', trinity().split('\n').slice(1).join('\n')].join('\n');
  // defaults_tmpl is an unknown top-level key; the anchor itself is reported there
  expectFinding(run(text), 'schema.unknown-key', { line: 1 });
  const t2 = trinity()
    .replace('        prompt_key: question\n        response_key: answer\n', '        <<: *fmt\n')
    .replace('mode: both\n', 'mode: both\nx: &fmt\n  prompt_key: question\n  response_keyy: answer\n');
  const a = run(t2);
  // reported where the alias is used: that is where the key is unknown (FormatConfig)
  const f = expectFinding(a, 'schema.unknown-key', { line: lineOf(t2, '<<: *fmt') });
  assert.match(en(f.message), /response_keyy/);
});

test('edits re-validate only what changed, with the findings of a fresh analysis', () => {
  // sections of unchanged text keep their values, whose schema errors are remembered: each
  // step must still report exactly what a cold analysis reports, at the new positions
  const evals = Array.from({ length: 12 }, (_, i) => ({ name: `e${i}`, path: 'openai/gsm8k', split: 'test' }));
  let text = trinity({ buffer: { explorer_input: { eval_tasksets: evals } }, trainer: { save_interval: 2.5 } });
  const steps: ((t: string) => string)[] = [
    (t) => t.replace('name: e7\n', 'name: e7\n        repeat_timez: 2\n'), // unknown key inside a list item
    (t) => t.replace('mode: both\n', 'mode: both\n# moved\n'), // everything below moves
    (t) => t.replace('save_interval: 2.5', 'save_interval: 3'), // one error fixed, the other stays
    (t) => t.replace('repeat_timez: 2', 'repeat_times: 2'),
  ];
  const cache = new ParseCache();
  const key = (a: ReturnType<typeof run>) => JSON.stringify(a.findings.map((f) => [f.code, f.span, en(f.message)]));
  const seen: string[] = [];
  for (const step of [(t: string) => t, ...steps]) {
    text = step(text);
    const warm = run(text, { cache });
    assert.equal(key(warm), key(run(text)), text);
    seen.push(...warm.findings.map((f) => f.code));
  }
  assert.ok(seen.includes('schema.unknown-key') && seen.includes('schema.type'), seen.join(' '));
  expectNo(run(text, { cache }), 'schema.unknown-key');
  const moved = run(text.replace('repeat_times: 2', 'repeat_timez: 2'), { cache });
  expectFinding(moved, 'schema.unknown-key', { line: lineOf(text, 'repeat_times: 2') });
});

test('an unknown key in trainer.trainer_config: an error with 0.5.2 (merged strictly), a warning with 0.6 (one stored validator drops it)', () => {
  const text = trinity({ trainer: { trainer_config: { actor_rollout_ref: { actor: { ppo_epoch: 2 } } } } });
  const f = expectFinding(run(text), 'schema.unknown-key-dropped', { severity: 'warning', line: lineOf(text, 'ppo_epoch:') });
  assert.equal(
    en(f.message),
    'Unknown key `ppo_epoch` in `trainer.trainer_config.actor_rollout_ref.actor` (Actor): veRL does not read it. In Trinity-RFT 0.6.0 the validator of pan-x-c@0ccf77cf drops it silently and that of agentscope-ai@1c35a79b rejects it.',
  );
  assert.equal(f.fixes?.[0].edits[0].newText, 'ppo_epochs');
  expectNo(run(text), 'schema.unknown-key');
  expectFinding(run(text, { trinityVersion: '0.5.2' }), 'schema.unknown-key', { severity: 'error' });
  // elsewhere an unknown key stays an error with 0.6
  expectFinding(run(trinity({ trainer: { ppo_epochs: 2 } })), 'schema.unknown-key', { severity: 'error' });
});
