// Kind detection: modeline and user globs first, then content; other YAML is left alone.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { kindFromContent, kindFromGlobs } from '../../../../src/config/core/detect-kind';
import { looksLikeRlConfig } from '../../../../src/config/core/looks-like-config';
import { run, trinity } from '../helpers';

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
