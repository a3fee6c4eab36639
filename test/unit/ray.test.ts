// Pure Ray logic: entrypoints and run identity from configs, stall detection (fixed and
// cadence-derived thresholds, what we explain), the poller's one-in-flight + backoff, the relay
// job request, and the view's rows.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RayJob, RayNode } from '../../src/ray/api/api-types';
import { english } from '../../src/base/l10n';
import { jobDetails, jobRow, nodeRow, type ClusterSnapshot } from '../../src/ray/cluster/cluster-model';
import { deriveEntrypoint, runInfo } from '../../src/ray/submit/entrypoint';
import { Poller } from '../../src/ray/cluster/poller';
import { pinResource, relayJobRequest, relayUrlFromLog, tunnelHint } from '../../src/ray/submit/relay-job';
import { describeFailure, StallDetector } from '../../src/ray/cluster/stall';

test('entrypoints and run identity per config kind', () => {
  const t = runInfo('trinity', { project: 'gsm8k', name: 'qwen-grpo', checkpoint_root_dir: '/ckpt/', mode: 'both' });
  assert.equal(t.jobDir, '/ckpt/gsm8k/qwen-grpo');
  assert.equal(t.namespace, 'gsm8k/qwen-grpo');
  assert.equal(deriveEntrypoint(t, 'configs/my run.yaml'), "trinity run --config 'configs/my run.yaml'");
  assert.equal(runInfo('trinity', { project: 'p', group: 'g', name: 'n', checkpoint_root_dir: '/c' }).namespace, 'p/g/n');
  assert.equal(runInfo('trinity', { project: 'p', name: '${oc.env:X}', checkpoint_root_dir: '/c' }).jobDir, undefined, 'unresolved interpolation: unknown');
  const aj = runInfo('ajet', { ajet: { project_name: 'math', experiment_name: 'e1', backbone: 'verl' } });
  assert.equal(deriveEntrypoint(aj, 'math.yaml'), 'ajet --conf math.yaml --backbone verl --with-ray');
  assert.equal(deriveEntrypoint(runInfo('astuner', { astuner: {} }), 'a.yaml'), 'astuner --conf a.yaml --backbone trinity --with-ray');
});

const running = (over: Partial<RayJob> = {}): RayJob => ({
  job_id: null,
  submission_id: 's1',
  status: 'RUNNING',
  entrypoint: 'trinity run --config x.yaml',
  ...over,
});

test('stall: a fixed threshold flags after N ms without progress; any counter advancing resets it', () => {
  const d = new StallDetector({ thresholdMs: 1000 }, 0);
  d.observe({ logBytes: 10 }, 100);
  assert.equal(d.check(900, { job: running() }), undefined);
  assert.ok(d.check(1200, { job: running() }));
  d.observe({ logBytes: 10, points: 5 }, 1300);
  assert.equal(d.check(2200, { job: running() }), undefined, 'points advanced');
  d.observe({ logBytes: 10, points: 5 }, 2250);
  assert.ok(d.check(2400, { job: running() }));
  assert.equal(d.check(2400, { job: running({ status: 'SUCCEEDED' }) }), undefined, 'ended jobs are not stalled');
});

test("stall: the default threshold follows the run's own cadence (10 × median step gap, clamped)", () => {
  const d = new StallDetector({ minMs: 1000, maxMs: 100_000, initialMs: 50_000 }, 0);
  assert.equal(d.thresholdMs(), 50_000, 'before any cadence');
  for (let i = 1; i <= 5; i++) d.observe({ step: i }, i * 2000);
  assert.equal(d.thresholdMs(), 20_000);
  assert.equal(d.check(10_000 + 19_000, {}), undefined);
  const r = d.check(10_000 + 21_000, {
    job: running({ driver_node_id: 'n2' }),
    actors: [
      { actor_id: 'a1', name: 'explorer', state: 'ALIVE' },
      { actor_id: 'a2', name: 'trainer', state: 'DEAD' },
      { actor_id: 'a3', name: 'explorer_rollout_model_0', state: 'RESTARTING' },
    ],
    nodes: [
      { node_id: 'n1', node_ip: '10.0.0.1', is_head_node: true, state: 'ALIVE', resources_total: {} },
      { node_id: 'n2', node_ip: '10.0.0.2', is_head_node: false, state: 'DEAD', state_message: 'health check failed', resources_total: {} },
    ],
    logTail: 'Step 4 done\nINFO explorer: waiting for the synchronizer to finish weight sync\n',
  })!;
  assert.deepEqual(r.actorsNotAlive, [
    { name: 'trainer', state: 'DEAD' },
    { name: 'explorer_rollout_model_0', state: 'RESTARTING' },
  ]);
  assert.deepEqual(r.deadNodes, [{ id: 'n2', ip: '10.0.0.2', message: 'health check failed' }]);
  assert.equal(r.explorerWaitsOnSynchronizer, true);
  assert.equal(r.lastLogLines.length, 2);
});

test('a FAILED job: its message, dead nodes and log tail', () => {
  const f = describeFailure(running({ status: 'FAILED', message: 'Job supervisor actor died', error_type: 'JOB_SUPERVISOR_ACTOR_DIED' }), {
    logTail: 'a\nb\nTraceback\n',
  })!;
  assert.equal(f.message, 'Job supervisor actor died');
  assert.deepEqual(f.lastLogLines, ['a', 'b', 'Traceback']);
  assert.equal(describeFailure(running()), undefined);
});

test('poller: one refresh in flight, fast when visible, slow when hidden, backoff on errors', async () => {
  const timers: Array<{ f: () => void; ms: number }> = [];
  let inflight = 0;
  let max = 0;
  let fail = false;
  let release: () => void = () => {};
  const p = new Poller(
    async () => {
      inflight++;
      max = Math.max(max, inflight);
      await new Promise<void>((r) => (release = r));
      inflight--;
      if (fail) throw new Error('500');
    },
    { visibleMs: 1000, hiddenMs: 60_000, maxBackoffMs: 16_000, setTimer: (f, ms) => timers.push({ f, ms }), clearTimer: () => {} },
  );
  p.setVisible(true);
  p.now();
  p.now();
  assert.equal(max, 1);
  release();
  await new Promise((r) => setImmediate(r));
  // the coalesced second request runs once
  assert.equal(p.refreshes, 2);
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(max, 1, 'never two in flight');
  assert.equal(timers.at(-1)!.ms, 1000);
  p.setVisible(false);
  assert.equal(p.nextDelay(), 60_000);
  p.setVisible(true);
  fail = true;
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(p.backingOff, true);
  assert.equal(p.nextDelay(), 2000);
  p.stop();
});

test('relay job: request pinned by a sliver of the resource, URL from the log, tunnel hint', () => {
  const r = relayJobRequest({ packageUri: 'gcs://_ray_pkg_ab.zip', jobDir: '/ckpt/p/my run', forRun: 'raysubmit_1', resource: 'gpu_node', token: 't0k' });
  const args = "--job-dir '/ckpt/p/my run' --host 127.0.0.1 --port 0 --exit-when-idle 1800";
  assert.ok(r.entrypoint.includes(`then exec node .agentrl/agentrl.js relay ${args}; fi`), r.entrypoint);
  assert.ok(r.entrypoint.includes(`exec "$py" .agentrl/agentrl_relay.py ${args}; fi; done`), r.entrypoint);
  assert.deepEqual(r.entrypoint_resources, { gpu_node: 0.001 });
  assert.equal(r.runtime_env?.env_vars?.AGENTRL_RELAY_TOKEN, 't0k');
  assert.equal(relayUrlFromLog('x\nagentrl relay: listening on ws://127.0.0.1:40123/ (2 sources under /x)\n'), 'ws://127.0.0.1:40123/');
  assert.equal(relayUrlFromLog('starting'), undefined);
  assert.equal(tunnelHint('ws://127.0.0.1:40123/', '10.0.0.2'), 'ssh -N -L 40123:127.0.0.1:40123 -- 10.0.0.2');
  // A node IP from Ray's API is data, not shell: each hostile one is one single-quoted word.
  for (const ip of ['$(touch /tmp/pwned)', '10.0.0.2; rm -rf ~', '`id`', '10.0.0.2\nid', "a'b"]) {
    const hint = tunnelHint('ws://127.0.0.1:40123/', ip);
    const words = hint.split(' -- ')[1];
    assert.ok(words.startsWith("'") && words.endsWith("'"), hint);
    assert.equal(words.slice(1, -1).replace(/'\\''/g, "'"), ip, hint);
  }
  assert.ok(tunnelHint('ws://127.0.0.1:40123/', '-oProxyCommand=id').endsWith(' -- -oProxyCommand=id'), 'after --, never an ssh option');
  const dash = relayJobRequest({ packageUri: 'gcs://x.zip', jobDir: '/ckpt/p/r', forRun: 'raysubmit_1', runName: '-weird' });
  assert.ok(dash.entrypoint.includes(' --run=-weird'), dash.entrypoint);
  const nodes: RayNode[] = [{ node_id: 'n2', node_ip: '10.0.0.2', is_head_node: false, state: 'ALIVE', resources_total: {} }];
  assert.equal(pinResource(running({ driver_node_id: 'n2' }), nodes), 'node:10.0.0.2');
  assert.equal(pinResource(running(), nodes, { gpu_node: 1, CPU: 1 }), 'gpu_node');
});

test('view rows: nodes with resources, jobs with status/age/metadata, stall and failure details', () => {
  const n = nodeRow(
    {
      node_id: 'abcdef1234',
      node_ip: '127.0.0.1',
      is_head_node: false,
      state: 'DEAD',
      resources_total: { CPU: 1, memory: 2 * 2 ** 30, gpu_node: 1, 'node:127.0.0.1': 1 },
    },
    {},
    2,
  );
  assert.equal(n.type === 'node' && n.alive, false);
  assert.match(n.description, /^DEAD · CPU 1 · mem 2\.0 GB · gpu_node=1$/);
  const j = jobRow(running({ start_time: 0, metadata: { agentrl: '1', 'agentrl.project': 'p', 'agentrl.name': 'n' } }), 125_000, true);
  assert.equal(j.label, 'p/n');
  assert.match(j.description, /^STALLED · RUNNING · 2m · trinity run/);
  const snap = {
    stalls: {
      s1: {
        stalledForMs: 600_000,
        thresholdMs: 300_000,
        actorsNotAlive: [{ name: 'trainer', state: 'DEAD' }],
        deadNodes: [],
        explorerWaitsOnSynchronizer: true,
        lastLogLines: [],
      },
    },
    failures: {},
    actors: {},
  } as unknown as ClusterSnapshot;
  assert.deepEqual(
    jobDetails(snap, 's1', english).map((r) => r.label),
    ['no progress for 10m (threshold 5m)', 'actor trainer is DEAD', 'the explorer waits on the synchronizer'],
  );
});
