// The Ray flow in the real workbench (packaged VSIX, Chromium), against a REAL two-node Ray 2.58
// cluster in a loopback-only network namespace (scripts/test.mjs runs this file under
// `unshare -n`; only Ray's telemetry packages are stood in for). As a user: "Connect to Ray
// Cluster…" picks the configured cluster, the Ray view shows nodes; with the config open,
// "Run on Ray Cluster…" takes an edited entrypoint (the STAND-IN trainer
// test/fixtures/ray/standin_trainer.py, no GPU here); the job appears in the view and the run's
// charts fill in the metrics view (through a relay job: the job dir does not exist yet when the
// run is submitted, so the local-dir path is not taken). Screenshot: test-results/screenshots/ray-view.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot, venvPython } from '../harness/paths';
import { netnsStrays, RAY_PROCESS, raySkipReason, startRayCluster, type RayCluster } from '../harness/ray-cluster';
import { openWorkbench, type Workbench } from './workbench';

const skip = raySkipReason();
let cluster: RayCluster | undefined;
let ws: string;
let ckpt: string;

before(async () => {
  if (skip) return;
  cluster = await startRayCluster({ worker: true });
  ckpt = fs.mkdtempSync('/tmp/arl-ckpt-');
  ws = fs.mkdtempSync('/tmp/arl-e2e-ws-');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), ws, { recursive: true });
  fs.mkdirSync(path.join(ws, 'ray-demo'));
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/standin_trainer.py'), path.join(ws, 'ray-demo/standin_trainer.py'));
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/metrics/trinity_job.py'), path.join(ws, 'ray-demo/trinity_job.py'));
  const text = fs
    .readFileSync(path.join(ws, 'gsm8k/gsm8k.yaml'), 'utf8')
    .replace(/^name: .*$/m, 'name: ray-e2e')
    .replace(/^checkpoint_root_dir: .*$/m, `checkpoint_root_dir: ${ckpt}`);
  fs.writeFileSync(path.join(ws, 'ray-demo/ray-e2e.yaml'), text);
});

after(async () => {
  await cluster?.stop();
  if (cluster) assert.deepEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left');
  for (const d of [ckpt, ws]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

test("Ray view: connect, run a config on the cluster, see the job and the run's charts", { skip, timeout: 300_000 }, async () => {
  const wb: Workbench = await openWorkbench({
    workspace: ws,
    settings: { 'agentrl.ray.clusters': [{ name: 'e2e cluster', url: cluster!.url }], 'agentrl.ray.refreshSeconds': 1 },
    viewport: { width: 1500, height: 900 },
  });
  try {
    const page = wb.page;
    await wb.runCommand('Agent RL: Connect to Ray Cluster…');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'e2e cluster' }).click();
    const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Ray/i }) });
    await view.getByRole('treeitem', { name: /^e2e cluster/ }).waitFor({ timeout: 60_000 });
    await view.getByRole('treeitem', { name: /^Nodes/ }).waitFor({ timeout: 60_000 });
    await view.locator('.monaco-list-row', { hasText: /gpu_node=1/ }).waitFor({ timeout: 30_000 });
    await view.getByRole('treeitem', { name: /ALIVE/ }).nth(1).waitFor({ timeout: 30_000 });
    assert.equal(await view.getByRole('treeitem', { name: /ALIVE/ }).count(), 2);

    await wb.openFile('ray-demo/ray-e2e.yaml'); // resolves once the editor has the file
    // Its first step is the Entrypoint input: until that shows nothing was submitted, so the
    // command may run again; an error toast or another quick input in its place is reported.
    await wb.runCommandUntil('Agent RL: Run on Ray Cluster…', page.locator('.quick-input-widget', { hasText: 'Entrypoint' }), { timeoutMs: 15_000 });
    const input = page.locator('.quick-input-widget input');
    assert.equal(await input.inputValue(), 'trinity run --config ray-demo/ray-e2e.yaml', 'entrypoint derived from the Trinity config');
    await input.fill(`${venvPython} ray-demo/standin_trainer.py --config ray-demo/ray-e2e.yaml --steps 40 --interval 0.25`);
    await page.keyboard.press('Enter');

    await view.getByRole('treeitem', { name: /^agentrl-sample\/ray-e2e/ }).waitFor({ timeout: 60_000 });
    const charts = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await charts.locator('.card[data-chart="rollout/accuracy/mean"] canvas').first().waitFor({ timeout: 90_000 });
    await view.getByRole('treeitem', { name: /^agentrl-sample\/ray-e2e.*SUCCEEDED/ }).waitFor({ timeout: 90_000 });
    await page.waitForTimeout(1500); // let the last points draw
    const shot = await wb.screenshot('ray-view');
    assert.ok(fs.statSync(shot).size > 20_000);
  } finally {
    await wb.close();
  }
});
