// Debug This Rollout's debug configuration: the contract the debugger reads (`rollout.fromJob`,
// `rollout.id`), the config's folder as cwd, and what a launch.json entry of the same config
// carries over (interpreter, environment, folder), with ${workspaceFolder} replaced.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchEntryFor, replayLaunchConfig } from '../../../../src/metrics/replay/launch-config';

test('the replay configuration: type agentrl, the config, the experience, cwd beside the config', () => {
  assert.deepEqual(replayLaunchConfig({ name: 'Debug This Rollout', config: '/ws/toolcall/toolcall.yaml', fromJob: '/ws/.agentrl/demo/demo-run', id: 17 }), {
    type: 'agentrl',
    request: 'launch',
    name: 'Debug This Rollout',
    config: '/ws/toolcall/toolcall.yaml',
    cwd: '/ws/toolcall',
    rollout: { fromJob: '/ws/.agentrl/demo/demo-run', id: 17 },
  });
});

test("a launch.json entry of the same config lends its interpreter, env, cwd and model endpoint (to go on against after a divergence), not its tasks; a relay's token joins the env", () => {
  const entries = [
    { type: 'python', request: 'launch', config: '${workspaceFolder}/toolcall/toolcall.yaml' },
    { type: 'agentrl', request: 'launch', name: 'other', config: '${workspaceFolder}/math/config.yaml', python: '/other' },
    {
      type: 'agentrl',
      request: 'launch',
      name: 'Debug toolcall rollouts',
      config: '${workspaceFolder}/toolcall/toolcall.yaml',
      cwd: '${workspaceFolder}/toolcall',
      python: '${workspaceFolder}/.venv/bin/python',
      env: { A: '1' },
      tasks: 3,
      model: { baseUrl: 'http://127.0.0.1:8089/v1' },
      breakOn: ['llm'],
    },
  ];
  const entry = launchEntryFor(entries, '/ws/toolcall/toolcall.yaml', '/ws');
  assert.equal(entry?.name, 'Debug toolcall rollouts');
  const c = replayLaunchConfig({
    name: 'D',
    config: '/ws/toolcall/toolcall.yaml',
    fromJob: 'ws://127.0.0.1:9/',
    id: 3,
    entry,
    folder: '/ws',
    env: { AGENTRL_RELAY_TOKEN: 't' },
  });
  assert.equal(c.python, '/ws/.venv/bin/python');
  assert.equal(c.cwd, '/ws/toolcall');
  assert.deepEqual(c.env, { A: '1', AGENTRL_RELAY_TOKEN: 't' });
  assert.deepEqual(c.model, { baseUrl: 'http://127.0.0.1:8089/v1' }, 'the live model a diverged replay may go on against');
  for (const k of ['tasks', 'breakOn']) assert.equal(c[k], undefined, `${k} is the entry's own`);
  assert.equal(launchEntryFor(entries, '/ws/gsm8k/gsm8k.yaml', '/ws'), undefined);
});
