// Against a REAL two-node Ray 2.58 cluster (head + worker raylet, loopback-only network
// namespace; only Ray's telemetry packages are stood in for, ../shared/fixtures/ray): list
// nodes and jobs, submit a run from a workspace folder, stream its logs, start the relay job on
// the node holding the job-dir resource and receive every point, flag a stalled run within the
// configured time, stop it, and report a job whose node is killed as FAILED with the node DEAD.
// The trainer is a STAND-IN (test/fixtures/ray/standin_trainer.py): no GPU / vLLM here.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { RayClient, tailLogs } from '../../../src/ray/api/client';
import { runInfo } from '../../../src/ray/submit/entrypoint';
import { ClusterMonitor } from '../../../src/ray/cluster/monitor';
import { submitRun, startRelayJob } from '../../../src/ray/submit/submit';
import { RelayClient } from '../../../src/relay-protocol/client';
import { repoRoot, venvPython } from '../../harness/paths';
import { killNetnsStrays, netnsStrays, RAY_PROCESS, raySkipReason, startRayCluster, type RayCluster } from '../../harness/ray-cluster';
import { type Probe, until as poll } from '../../harness/wait';
import { pointsOf } from '../../harness/relay-points';

/** Ray is slow to answer: a minute by default, polled every 300 ms. */
const until = <T>(what: string, f: Probe<T>, timeoutMs = 60_000, everyMs = 300): Promise<T> => poll(what, f, timeoutMs, everyMs);

const skip = raySkipReason();
const cli = path.join(repoRoot, 'dist', 'agentrl.js');

/** A user's workspace: a Trinity-shaped config plus the stand-in trainer as its "workflow code". */
function makeWorkspace(root: string, ckpt: string, name: string): { folder: string; config: string } {
  const folder = path.join(root, `ws-${name}`);
  fs.mkdirSync(path.join(folder, 'checkpoints-local'), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'ray', 'standin_trainer.py'), path.join(folder, 'standin_trainer.py'));
  fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), path.join(folder, 'trinity_job.py'));
  fs.writeFileSync(path.join(folder, '.gitignore'), 'checkpoints-local/\n*.bin\n');
  fs.writeFileSync(path.join(folder, 'checkpoints-local', 'big.bin'), Buffer.alloc(1024 * 1024));
  const config = path.join(folder, 'gsm8k.yaml');
  fs.writeFileSync(config, `project: ray-test\nname: ${name}\ncheckpoint_root_dir: ${ckpt}\nmode: both\n`);
  return { folder, config };
}

describe('Ray cluster (real Ray 2.58, two nodes, loopback-only netns)', { skip }, () => {
  let cluster: RayCluster;
  let client: RayClient;
  let tmp: string;
  let workerNodeId: string;

  before(async () => {
    assert.ok(fs.existsSync(cli), 'dist/agentrl.js is built');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-raytest-'));
    cluster = await startRayCluster({ worker: true });
    client = new RayClient({ url: cluster.url });
    await until(
      'the dashboard',
      () =>
        client.version().then(
          (v) => v,
          () => undefined,
        ),
      30_000,
    );
    // Here, not in the first test: every test must run alone (--grep), and two need the worker.
    workerNodeId = (await twoAliveNodes()).find((n) => !n.is_head_node)!.node_id;
  });

  const twoAliveNodes = () =>
    until('two alive nodes', async () => {
      const n = await client.nodes();
      return n.filter((x) => x.state === 'ALIVE').length === 2 ? n : undefined;
    });

  after(async () => {
    await cluster?.stop();
    assert.deepEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left in the namespace');
    await killNetnsStrays(/./); // anything else in this test's namespace is ours too
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('lists both nodes (head and the gpu_node worker) and the jobs', async () => {
    const nodes = await twoAliveNodes();
    const head = nodes.find((n) => n.is_head_node)!;
    const worker = nodes.find((n) => !n.is_head_node)!;
    assert.equal(head.resources_total.head_node, 1);
    assert.equal(worker.resources_total.gpu_node, 1);
    assert.equal(worker.node_id, workerNodeId);
    assert.ok(Array.isArray(await client.jobs()));
  });

  test('submits a run from a workspace folder, streams its logs, and the relay on the gpu_node delivers every point', async () => {
    const ckpt = path.join(tmp, 'ckpt');
    const { folder, config } = makeWorkspace(tmp, ckpt, 'run1');
    const info = runInfo('trinity', parse(fs.readFileSync(config, 'utf8')));
    assert.equal(info.jobDir, `${ckpt}/ray-test/run1`);
    const entrypoint = `${venvPython} standin_trainer.py --config gsm8k.yaml --steps 6 --interval 0.5`;
    const sub = await submitRun(client, { folder, config, info, entrypoint, limitBytes: 50 * 2 ** 20, cliBundle: cli, resources: { gpu_node: 0.5 } });
    assert.ok(!sub.pkg.files.some((f) => f.startsWith('checkpoints-local/')), '.gitignore respected');
    assert.ok(sub.pkg.files.includes('.agentrl/agentrl.js'), 'the CLI travels in the package');
    assert.equal(sub.uploaded, true);
    // the same folder again: the package hash exists, no second upload
    const again = await submitRun(client, { folder, config, info, entrypoint: 'true', limitBytes: 50 * 2 ** 20, cliBundle: cli, resources: { gpu_node: 0.1 } });
    assert.equal(again.uploaded, false);
    assert.equal(again.pkg.uri, sub.pkg.uri);

    let streamed = '';
    let ended = false;
    const tail = tailLogs(
      client,
      sub.submissionId,
      (t) => (streamed += t),
      () => (ended = true),
    );
    const relay = await startRelayJob(
      client,
      { packageUri: sub.pkg.uri, jobDir: info.jobDir, forRun: sub.submissionId, runName: 'run1', resource: 'gpu_node' },
      60_000,
    );
    const relayJob = await client.job(relay.submissionId);
    assert.equal(relayJob.driver_node_id, workerNodeId, 'the relay job runs on the node holding gpu_node');
    const run = await until(
      'the run to succeed',
      async () => {
        const j = await client.job(sub.submissionId);
        return ['SUCCEEDED', 'FAILED', 'STOPPED'].includes(j.status) ? j : undefined;
      },
      90_000,
    );
    assert.equal(run.status, 'SUCCEEDED', run.message ?? '');
    assert.equal(run.metadata?.['agentrl.name'], 'run1');
    await until('the log stream to end', () => ended || undefined, 20_000);
    tail.close();
    for (let s = 0; s < 6; s++) assert.match(streamed, new RegExp(`Step ${s}: wrote`), `log line of step ${s} streamed`);

    const expected = fs
      .readFileSync(path.join(info.jobDir, 'expected.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { role: string; tag: string; step: number; value: number });
    const got = new Map<string, number>();
    const rc = new RelayClient({ url: relay.url, experiences: false });
    rc.on('points', (b) => {
      for (const p of pointsOf(b)) {
        const k = `${p.role}|${p.tag}|${p.step}`;
        assert.ok(!got.has(k), `point ${k} delivered twice`);
        got.set(k, p.value);
      }
    });
    rc.start();
    await until(`${expected.length} points`, () => got.size >= expected.length || undefined, 30_000);
    await rc.close();
    assert.equal(got.size, expected.length);
    for (const e of expected) assert.equal(got.get(`${e.role}|${e.tag}|${e.step}`), e.value, `${e.role} ${e.tag} @${e.step}`);
    assert.ok(await client.stop(relay.submissionId));
    await until('the relay to stop', async () => ((await client.job(relay.submissionId)).status === 'STOPPED' ? true : undefined), 30_000);
  });

  test('a run that stops writing is flagged stalled within the configured time; stop works', async () => {
    const { folder, config } = makeWorkspace(tmp, path.join(tmp, 'ckpt'), 'stall');
    const info = runInfo('trinity', parse(fs.readFileSync(config, 'utf8')));
    const sub = await submitRun(client, {
      folder,
      config,
      info,
      entrypoint: `${venvPython} standin_trainer.py --config gsm8k.yaml --steps 3 --interval 0.3 --then stall`,
      limitBytes: 50 * 2 ** 20,
      resources: { head_node: 0.5 },
    });
    const thresholdMs = 4000;
    // The monitor's clock: the run's start by Ray's clock, then 500 ms a poll (the polls' own
    // pace), so "within the configured time" is counted in polls whatever the machine's load.
    let clock = (await client.job(sub.submissionId)).start_time ?? 0;
    const monitor = new ClusterMonitor({ url: cluster.url, stall: { thresholdMs }, now: () => clock });
    let lastProgress = clock;
    let seenLen = 0;
    const report = await until(
      'the stall report',
      async () => {
        clock += 500;
        const s = await monitor.refresh();
        const log = monitor.log(sub.submissionId);
        if (log.length > seenLen) {
          seenLen = log.length;
          lastProgress = clock;
        }
        // A stand-in slowed by the machine's load can go quiet for the threshold before it
        // reaches the stall (a true flag, but not this one): wait for the stall at the synchronizer.
        const stall = s.stalls[sub.submissionId];
        return stall?.explorerWaitsOnSynchronizer ? stall : undefined;
      },
      60_000,
      500,
    );
    const flaggedAfter = clock - lastProgress;
    assert.ok(report.stalledForMs >= thresholdMs);
    assert.ok(flaggedAfter < thresholdMs + 3000, `flagged ${flaggedAfter} ms after the last progress (threshold ${thresholdMs} ms)`);
    assert.ok(report.explorerWaitsOnSynchronizer, 'the log says it waits on the synchronizer');
    assert.match(report.lastLogLines.join('\n'), /Step 2: wrote/);
    assert.ok(await client.stop(sub.submissionId));
    const stopped = await until(
      'STOPPED',
      async () => {
        const j = await client.job(sub.submissionId);
        return j.status === 'STOPPED' ? j : undefined;
      },
      30_000,
    );
    assert.equal(stopped.status, 'STOPPED');
    const s = await monitor.refresh();
    assert.equal(s.stalls[sub.submissionId], undefined, 'a stopped run is no longer stalled');
    assert.ok(await client.delete(sub.submissionId));
    assert.ok(!(await client.jobs()).some((j) => j.submission_id === sub.submissionId), 'deleted');
  });

  test('a job whose node dies (worker raylet killed) is reported FAILED with the node DEAD', async () => {
    const { folder, config } = makeWorkspace(tmp, path.join(tmp, 'ckpt'), 'killed');
    const info = runInfo('trinity', parse(fs.readFileSync(config, 'utf8')));
    const sub = await submitRun(client, {
      folder,
      config,
      info,
      entrypoint: `${venvPython} standin_trainer.py --config gsm8k.yaml --steps 1000 --interval 0.5`,
      limitBytes: 50 * 2 ** 20,
      resources: { gpu_node: 0.5 },
    });
    await until(
      'RUNNING with a Step line',
      async () => ((await client.job(sub.submissionId)).status === 'RUNNING' && /Step 1:/.test(await client.logs(sub.submissionId)) ? true : undefined),
      60_000,
    );
    // the view has been watching the run (it keeps the log it saw: a dead node's logs are gone)
    const monitor = new ClusterMonitor({ url: cluster.url });
    await monitor.refresh();
    assert.match(monitor.log(sub.submissionId), /Step 1:/);
    const pid = cluster.workerRayletPid();
    assert.ok(pid, 'the worker raylet is found');
    process.kill(pid, 'SIGKILL');
    const snap = await until(
      'FAILED + DEAD node',
      async () => {
        const s = await monitor.refresh();
        return s.failures[sub.submissionId] && s.nodes.some((n) => n.node_id === workerNodeId && n.state === 'DEAD') ? s : undefined;
      },
      90_000,
      1000,
    );
    const f = snap.failures[sub.submissionId];
    assert.ok(f.message.length > 0, 'the failure message is shown');
    assert.ok(
      f.deadNodes.some((n) => n.id === workerNodeId),
      'the dead node is named',
    );
    assert.match(f.lastLogLines.join('\n'), /Step \d+: wrote/, 'the log tail is shown');
  });
});
