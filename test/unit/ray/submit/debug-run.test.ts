// The debug variant of "Run on Ray Cluster…": RAY_DEBUG=1 (and post-mortem on request) in the
// runtime env, debugpy in its pip only when the cluster lacks it, AgentJet's --debug=TAGS from
// the launch entry; the probe job's command and answer.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { debugpyProbeRequest, debugRun, debugTagsOfLaunch, parseDebugpyProbe, withPip } from '../../../../src/ray/submit/debug-run';
import { META } from '../../../../src/ray/api/api-types';

test('RAY_DEBUG=1 beside the user’s variables; post-mortem only on request; debugpy only when the cluster lacks it', () => {
  const plain = debugRun('trinity', 'trinity run --config c.yaml', { HF_HOME: '/data' }, {}, true);
  assert.deepEqual(plain, { entrypoint: 'trinity run --config c.yaml', envVars: { HF_HOME: '/data', RAY_DEBUG: '1' } });
  const pm = debugRun('trinity', 'trinity run --config c.yaml', undefined, { postMortem: true }, false);
  assert.deepEqual(pm.envVars, { RAY_DEBUG: '1', RAY_DEBUG_POST_MORTEM: '1' });
  assert.deepEqual(pm.pip, ['debugpy']);
});

test('AgentJet and ASTuner get --debug=TAG1|TAG2 (quoted for the shell); Trinity does not; one typed by the user wins', () => {
  assert.equal(
    debugRun('ajet', 'ajet --conf c.yaml --backbone trinity --with-ray', undefined, { debugTags: ['TAG_1', 'TAG_2'] }, true).entrypoint,
    "ajet --conf c.yaml --backbone trinity --with-ray '--debug=TAG_1|TAG_2'",
  );
  assert.equal(debugRun('astuner', 'astuner --conf c.yaml', undefined, { debugTags: ['A'] }, true).entrypoint, 'astuner --conf c.yaml --debug=A');
  assert.equal(debugRun('trinity', 'trinity run --config c.yaml', undefined, { debugTags: ['A'] }, true).entrypoint, 'trinity run --config c.yaml');
  assert.equal(debugRun('ajet', 'ajet --conf c.yaml --debug=B', undefined, { debugTags: ['A'] }, true).entrypoint, 'ajet --conf c.yaml --debug=B');
});

test('debugpy joins the runtime env’s pip, unless the user already pins it', () => {
  assert.deepEqual(withPip({ entrypoint: 'x', runtime_env: { working_dir: 'gcs://p.zip' } }, ['debugpy']).runtime_env, {
    working_dir: 'gcs://p.zip',
    pip: ['debugpy'],
  });
  assert.deepEqual(withPip({ entrypoint: 'x', runtime_env: { pip: ['debugpy==1.8.0', 'numpy'] } }, ['debugpy']).runtime_env?.pip, ['debugpy==1.8.0', 'numpy']);
  const req = { entrypoint: 'x' };
  assert.equal(withPip(req, undefined), req);
});

test('the probe: a no-CPU job of ours, pinned like the run; its answer read back', () => {
  const req = debugpyProbeRequest('gpu_node');
  assert.equal(req.entrypoint_num_cpus, 0);
  assert.deepEqual(req.entrypoint_resources, { gpu_node: 0.001 });
  assert.equal(req.metadata?.[META.role], 'probe');
  assert.match(req.entrypoint, /^python -c 'import importlib\.util as u; .*find_spec\("debugpy"\).*' \|\| python3 -c /);
  assert.deepEqual(parseDebugpyProbe('noise\nAGENTRL_DEBUG_PROBE debugpy=no ray=2.58.0\n'), { debugpy: false, ray: '2.58.0' });
  assert.equal(parseDebugpyProbe('Traceback …\nModuleNotFoundError: ray'), undefined);
});

test('the tags of the launch entry whose config is this file, ${workspaceFolder} or relative', () => {
  const entries = [
    { type: 'python', config: '/w/c.yaml', debugTags: ['NO'] },
    { type: 'agentrl', request: 'launch', config: '${workspaceFolder}/other.yaml', debugTags: ['OTHER'] },
    { type: 'agentrl', request: 'launch', config: '${workspaceFolder}/c.yaml', debugTags: ['TAG_1', 7] },
  ];
  assert.deepEqual(debugTagsOfLaunch(entries, '/w/c.yaml', '/w'), ['TAG_1']);
  assert.deepEqual(debugTagsOfLaunch([{ type: 'agentrl', config: 'sub/c.yaml', debugTags: ['R'] }], '/w/sub/c.yaml', '/w'), ['R']);
  assert.equal(debugTagsOfLaunch(entries, '/w/none.yaml', '/w'), undefined);
  assert.equal(debugTagsOfLaunch(undefined, '/w/c.yaml', '/w'), undefined);
});
