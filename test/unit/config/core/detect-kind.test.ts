// Kind detection: modeline and user globs first, then content; other YAML is left alone.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindFromContent, kindFromGlobs } from '../../../../src/config/core/detect-kind';
import { looksLikeRlConfig } from '../../../../src/config/core/looks-like-config';
import { describe, en, run, trinity } from '../helpers';

test('content: Trinity by its sections, astuner:/ajet: roots, trinity:-only layers', () => {
  assert.equal(kindFromContent(['mode', 'algorithm', 'buffer', 'explorer']), 'trinity');
  assert.equal(kindFromContent(['astuner', 'hydra', 'defaults']), 'astuner');
  assert.equal(kindFromContent(['ajet', 'trinity', 'hydra', 'defaults']), 'ajet');
  assert.equal(kindFromContent(['trinity'], '/repo/astuner/default_config/trinity/trinity_default.yaml'), 'astuner');
  assert.equal(kindFromContent(['trinity'], '/repo/ajet/default_config/trinity/trinity_default.yaml'), 'ajet');
});

test('content: other YAML is not claimed', () => {
  assert.equal(kindFromContent(['algorithm']), null, 'one section is not enough');
  assert.equal(kindFromContent(['project_name', 'np', 'process']), null, 'a Data-Juicer recipe');
  assert.equal(kindFromContent(['algorithm', 'trainer', 'data', 'critic', 'actor_rollout_ref', 'reward_model']), null, 'a veRL config');
  assert.equal(kindFromContent(['apiVersion', 'kind', 'metadata', 'spec']), null, 'Kubernetes');
  const a = run('apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: [{name: a}]}\n');
  assert.equal(a.kind, null);
  assert.equal(a.findings.length, 0);
});

test('a modeline decides, and can turn checking off', () => {
  assert.equal(run('# agentrl: trinity\nfoo: 1\n').kind, 'trinity');
  assert.equal(run('# agentrl: ajet\nfoo: 1\n').kind, 'ajet');
  assert.equal(run(`# agentrl: none\n${trinity()}`).kind, null);
});

test('agentrl.config.files globs force a kind (relative to a workspace root)', () => {
  assert.equal(kindFromGlobs('/ws/configs/a.yaml', { 'configs/**/*.yaml': 'trinity' }, ['/ws']), 'trinity');
  assert.equal(kindFromGlobs('/ws/other/a.yaml', { 'configs/**/*.yaml': 'trinity' }, ['/ws']), undefined);
  assert.equal(kindFromGlobs('/ws/x/legacy.yaml', { 'legacy.yaml': 'none' }, ['/ws']), 'none');
  const a = run('foo: 1\n', { file: '/ws/configs/a.yaml', roots: ['/ws'], globs: { 'configs/*.yaml': 'astuner' } });
  assert.equal(a.kind, 'astuner');
});

test('a broken document keeps the kind it had (sticky) so diagnostics do not vanish while typing', () => {
  const broken = trinity().replace(/^algorithm:/m, 'algorithm: [');
  assert.equal(run(broken, { stickyKind: 'trinity' }).kind, 'trinity');
});

test('the activation sniffer agrees on typical files', () => {
  assert.ok(looksLikeRlConfig(trinity()));
  assert.ok(looksLikeRlConfig('astuner:\n  model:\n    path: x\n'));
  assert.ok(looksLikeRlConfig('# agentrl: trinity\nfoo: 1\n'));
  assert.ok(!looksLikeRlConfig('apiVersion: v1\nkind: Pod\n'));
});

test('an explicit kind beats the modeline; the modeline still names the release', () => {
  const a = run(`# agentrl: none\n${trinity()}`, { forcedKind: 'trinity' });
  assert.equal(a.kind, 'trinity');
  assert.equal(a.detection.by, 'option');
  assert.equal(run(`# agentrl: trinity@0.5.2\n${trinity()}`, { forcedKind: 'trinity' }).trinityVersion, '0.5.2');
  assert.equal(run(`# agentrl: astuner\n${trinity()}`, { forcedKind: 'trinity' }).kind, 'trinity');
});

test('a named file that matches no kind: the likeliest kind, with input.kind-guessed; found by a walk: skipped', () => {
  const base = trinity();
  const many = base + Array.from({ length: 15 }, (_, i) => `extra_${i}: ${i}\n`).join('');
  assert.equal(run(many).kind, null, 'content alone decides nothing');
  const a = run(many, { guessKind: true });
  assert.equal(a.kind, 'trinity');
  assert.equal(a.detection.by, 'guess');
  const f = a.findings.find((x) => x.code === 'input.kind-guessed');
  assert.equal(f?.severity, 'warning');
  assert.match(en(f.message), /\(\d+ of its 2\d top-level keys are Trinity-RFT sections\); checked as a Trinity-RFT config/);
  assert.ok(a.findings.some((x) => x.code === 'schema.unknown-key' && x.severity === 'error'));
  // YAML broken by a tab: keys read off the text, the syntax error is reported
  const tab = run(base.replace(/\n {2}(\w)/, '\n\t$1'), { guessKind: true });
  assert.equal(tab.kind, 'trinity');
  assert.ok(
    tab.findings.some((x) => x.code === 'yaml.syntax' && x.severity === 'error'),
    describe(tab),
  );
  // a value too deep to parse: the limit is an error once the file is a config
  const deep = run(base.replace(/^name: .*$/m, `name: ${'${oc.env:V,'.repeat(300)}x${'}'.repeat(300)}`), { guessKind: true });
  assert.equal(deep.findings.find((x) => x.code === 'input.too-deep')?.severity, 'error');
  assert.match(en(deep.findings.find((x) => x.code === 'input.kind-guessed')!.message), /its YAML could not be read as a mapping/);
  // an `ajet:` root read off a broken text
  assert.equal(run('ajet:\n\tproject_name: x\n', { guessKind: true }).kind, 'ajet');
  // the user's own `# agentrl: none` is respected
  assert.equal(run(`# agentrl: none\n${many}`, { guessKind: true }).kind, null);
});
