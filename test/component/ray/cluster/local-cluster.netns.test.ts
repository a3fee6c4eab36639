// "Start a local cluster" (item 5) for real: the command's startLocalCluster() runs Ray 2.58's
// `ray start --head` on loopback (in this test's loopback-only network namespace; the telemetry
// packages STOOD IN by ../shared/fixtures/ray), and the demo run goes through it as through any
// cluster. The demo trainer is the STAND-IN test/fixtures/ray/standin_trainer.py until the
// sandbox's demo trainer lands. Teardown kills the namespace's Ray processes by pid (never
// `ray stop`, which would reach other namespaces' clusters on this machine).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { RayClient } from '../../../../src/ray/api/client';
import { runInfo } from '../../../../src/ray/submit/entrypoint';
import { localHeadArgs, startLocalCluster } from '../../../../src/ray/cluster/local-cluster';
import { submitRun } from '../../../../src/ray/submit/submit';
import { repoRoot, venvPython } from '../../../harness/paths';
import { killNetnsStrays, netnsStrays, rayBin, raySkipReason, telemetryStandIn } from '../../../harness/ray-cluster';

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

test('Start a local cluster, then the demo run (stand-in trainer) on it', { skip, timeout: 180_000 }, async () => {
  tmp = fs.mkdtempSync('/tmp/arl-ray-local-');
  const r = await startLocalCluster({ ray: rayBin, dashboardPort: 8265, gcsPort: 6379, numCpus: 2, tempDir: path.join(tmp, 'ray'), env: { PYTHONPATH: telemetryStandIn } });
  assert.equal(r.dashboardUrl, 'http://127.0.0.1:8265');
  const client = new RayClient({ url: r.dashboardUrl });
  const nodes = await client.nodes();
  assert.equal(nodes.length, 1);
  assert.equal(nodes[0].is_head_node, true);
  const folder = path.join(tmp, 'demo');
  fs.mkdirSync(folder);
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/standin_trainer.py'), path.join(folder, 'standin_trainer.py'));
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/metrics/trinity_job.py'), path.join(folder, 'trinity_job.py'));
  fs.writeFileSync(path.join(folder, 'demo.yaml'), `project: demo\nname: first-run\ncheckpoint_root_dir: ${tmp}/ckpt\n`);
  const info = runInfo('trinity', { project: 'demo', name: 'first-run', checkpoint_root_dir: `${tmp}/ckpt` });
  const sub = await submitRun(client, { folder, config: path.join(folder, 'demo.yaml'), info, entrypoint: `${venvPython} standin_trainer.py --config demo.yaml --steps 3 --interval 0.2`, limitBytes: 10 * 2 ** 20 });
  let status = '';
  for (let i = 0; i < 240 && !['SUCCEEDED', 'FAILED', 'STOPPED'].includes(status); i++) {
    status = (await client.job(sub.submissionId)).status;
    await new Promise((res) => setTimeout(res, 250));
  }
  assert.equal(status, 'SUCCEEDED', await client.logs(sub.submissionId));
  assert.match(await client.logs(sub.submissionId), /Step 2: wrote/);
  assert.ok(fs.existsSync(path.join(info.jobDir!, 'monitor', 'tensorboard', 'explorer')), 'the job dir has event files');
});
