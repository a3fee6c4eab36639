import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { evalFromLaunch, isCompareLaunch } from '../../../../src/eval/run/launch-spec';

const root = path.resolve('/ws');
const entry = (extra: Record<string, unknown> = {}) => ({
  type: 'agentrl',
  request: 'launch',
  name: 'cmp',
  config: 'toolcall/toolcall.yaml',
  cwd: 'toolcall',
  ...extra,
});

describe('a comparison from an agentrl launch entry', () => {
  test('only an entry with compareModels is a comparison', () => {
    assert.equal(isCompareLaunch(entry()), false);
    assert.equal(isCompareLaunch(entry({ compareModels: [] })), true);
  });

  test("the entry's attributes, paths against the workspace, saved in the workspace; defaults 10 × 4", () => {
    const spec = evalFromLaunch(
      entry({
        compareModels: ['base=http://127.0.0.1:8000/v1/', { name: 'hosted', baseUrl: 'https://api.example/v1', apiKeyEnv: 'KEY', timeout: 30 }],
        python: '/venv/bin/python',
        env: { A: '1' },
      }),
      root,
    );
    assert.equal(spec.config, path.join(root, 'toolcall', 'toolcall.yaml'));
    assert.equal(spec.cwd, path.join(root, 'toolcall'));
    assert.equal(spec.root, root, 'comparisons are kept in the workspace, not the workflow folder');
    assert.deepEqual(spec.models, [
      { name: 'base', baseUrl: 'http://127.0.0.1:8000/v1' },
      { name: 'hosted', baseUrl: 'https://api.example/v1', apiKeyEnv: 'KEY', timeout: 30 },
    ]);
    assert.deepEqual([spec.tasks, spec.repeat, spec.concurrency, spec.python], [10, 4, undefined, '/venv/bin/python']);
    assert.equal(spec.env?.A, '1');
    assert.equal(spec.env?.PATH, process.env.PATH, "the entry's env adds to the window's");
  });

  test('what cannot describe a comparison is a clear error', () => {
    const models = ['a=http://x/v1', 'b=http://y/v1'];
    assert.throws(() => evalFromLaunch(entry({ compareModels: 'a=http://x/v1' }), root), /"compareModels" is a list of models/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: ['a=http://x/v1'] }), root), /at least two models/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: ['a=http://x/v1', { name: 'b' }] }), root), /"compareModels"\[1\] is "name=URL"/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: models, config: undefined }), root), /"config" is required/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: models, tasks: [0, 1] }), root), /"tasks" must be a number of tasks/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: models, repeat: 0 }), root), /"repeat" must be a positive integer/);
    assert.throws(() => evalFromLaunch(entry({ compareModels: models, concurrency: 1.5 }), root), /"concurrency" must be a positive integer/);
  });
});
