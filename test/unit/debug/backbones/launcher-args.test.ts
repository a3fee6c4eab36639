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
