// "Start a local cluster" (item 5) for real: the command's startLocalCluster() runs Ray 2.58's
// `ray start --head` on loopback (in this test's loopback-only network namespace; the telemetry
// packages STOOD IN by ../shared/fixtures/ray), and the demo run goes through it as through any
// cluster: the sandbox's demo trainer (demo/demo_trainer.py — itself a stand-in for a Trinity
// run, "demo: simulated trainer", no GPU here) packed by prepareDemoRun as "Run the Demo on Ray"
// does. Teardown kills the namespace's Ray processes by pid (never
// `ray stop`, which would reach other namespaces' clusters on this machine).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { META } from '../../../../src/ray/api/api-types';
import { RayClient } from '../../../../src/ray/api/client';
import { prepareDemoRun } from '../../../../src/ray/submit/demo-run';
import { localHeadArgs, startLocalCluster } from '../../../../src/ray/cluster/local-cluster';
import { submitRun } from '../../../../src/ray/submit/submit';
import { repoRoot } from '../../../harness/paths';
import { killNetnsStrays, netnsStrays, rayBin, raySkipReason, telemetryStandIn } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip = raySkipReason();
let tmp: string | undefined;

after(async () => {
  if (skip) return;
  await killNetnsStrays();
  await killNetnsStrays(/./); // this namespace holds only this test: anything else left is ours too
  assert.deepEqual(netnsStrays(), [], 'nothing left running');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('local head arguments stay on loopback', () => {
  const a = localHeadArgs({ ray: 'ray', dashboardPort: 8265, numCpus: 2, resources: { demo: 1 } });
  assert.ok(a.includes('--dashboard-host=127.0.0.1') && a.includes('--node-ip-address=127.0.0.1'));
  assert.ok(a.includes('--resources={"demo":1}'));
});

test('a missing ray executable gives a clear error', async () => {
  await assert.rejects(startLocalCluster({ ray: '/nonexistent/ray' }), /ray start failed \(not started\).*ENOENT/s);
});

test('Start a local cluster, then the demo run (demo: simulated trainer) on it', { skip, timeout: 180_000 }, async () => {
  tmp = fs.mkdtempSync('/tmp/arl-ray-local-');
  const r = await startLocalCluster({
    ray: rayBin,
    dashboardPort: 8265,
    gcsPort: 6379,
    numCpus: 2,
    tempDir: path.join(tmp, 'ray'),
    env: { PYTHONPATH: telemetryStandIn },
  });
  assert.equal(r.dashboardUrl, 'http://127.0.0.1:8265');
  const client = new RayClient({ url: r.dashboardUrl });
  // `ray start` returns once the head is up; its dashboard may still be starting on a loaded machine
  const nodes = await until(
    'the dashboard to list the head node',
    async () => {
      const listed = await client.nodes().catch(() => undefined);
      return listed?.length ? listed : undefined;
    },
    120_000,
    500,
  );
  assert.equal(nodes.length, 1);
  assert.equal(nodes[0].is_head_node, true);
  const demo = prepareDemoRun({
    baseDir: path.join(tmp, 'ray-demo'),
    script: path.join(repoRoot, 'demo', 'demo_trainer.py'),
    name: 'first-run',
    steps: 3,
    stepSeconds: 0.2,
    modelUrl: '',
  });
  const sub = await submitRun(client, { folder: demo.folder, config: demo.config, info: demo.info, entrypoint: demo.entrypoint, limitBytes: 10 * 2 ** 20 });
  assert.equal((await client.job(sub.submissionId)).metadata?.[META.jobDir], demo.info.jobDir, 'the job names its job dir, as a Trinity run does');
  let status = '';
  for (let i = 0; i < 240 && !['SUCCEEDED', 'FAILED', 'STOPPED'].includes(status); i++) {
    status = (await client.job(sub.submissionId)).status;
    await new Promise((res) => setTimeout(res, 250));
  }
  assert.equal(status, 'SUCCEEDED', await client.logs(sub.submissionId));
  assert.match(await client.logs(sub.submissionId), /demo: simulated trainer -> .*first-run[\s\S]*demo: simulated trainer stopped/);
  const events = path.join(demo.info.jobDir, 'monitor', 'tensorboard', 'explorer');
  assert.ok(
    fs.readdirSync(events).some((f) => f.startsWith('events.out.tfevents.')),
    'the job dir has event files',
  );
  assert.match(fs.readFileSync(path.join(demo.info.jobDir, 'log', 'explorer.log'), 'utf8'), /Step 3:/);
});
