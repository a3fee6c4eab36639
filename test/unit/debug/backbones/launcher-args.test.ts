// `launcherArgs` (AgentJet / ASTuner launcher flags) in a launch configuration: a list of strings,
// and only with an upstream backbone. Passing them to the upstream CLI is in test/component.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { validateLaunchArgs } from '../../../../src/debug/runtime/plan';

test('launcherArgs are checked: a list of strings, with an upstream backbone', () => {
  assert.deepEqual(validateLaunchArgs({ config: 'x', backbone: 'ajet', launcherArgs: ['--autokill'] }), []);
  assert.match(validateLaunchArgs({ config: 'x', backbone: 'ajet', launcherArgs: '--autokill' as never }).join('\n'), /"launcherArgs" must be a list of strings/);
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
