// Attach Debugger in the real workbench (packaged VSIX, Chromium), against a REAL Ray 2.58
// cluster in a loopback-only network namespace (only Ray's telemetry packages are stood in
// for): a job run from the workspace pauses at breakpoint(); the Ray view lists the task under
// its job with file:line; clicking the row attaches (code-server has no Python Debugger
// extension: our own debugpy client); the editor stops at the user's line; Continue lets the
// job finish. Screenshot: test-results/screenshots/ray-attach.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { RayClient } from '../../../src/ray/api/client';
import { repoRoot } from '../../harness/paths';
import { rayVenv, raySkipReason, startRayCluster, type RayCluster } from '../../harness/ray-cluster';
import { until } from '../../harness/wait';
import { openWorkbench, type Workbench } from '../workbench';

const skip = raySkipReason();
let cluster: RayCluster | undefined;
let ws: string;

before(async () => {
  if (skip) return;
  cluster = await startRayCluster({ worker: false, profiling: true });
  ws = fs.mkdtempSync('/tmp/arl-e2e-attach-');
  fs.copyFileSync(path.join(repoRoot, 'test/fixtures/ray/paused_job.py'), path.join(ws, 'paused_job.py'));
});

after(async () => {
  await cluster?.stop();
  if (ws) fs.rmSync(ws, { recursive: true, force: true });
});

test('a paused task in the Ray view → Attach → the editor stops at the breakpoint() line; Continue finishes the job', { skip, timeout: 600_000 }, async () => {
  const pauseLine =
    fs
      .readFileSync(path.join(ws, 'paused_job.py'), 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('PAUSE-HERE')) + 1;
  const wb: Workbench = await openWorkbench({
    workspace: ws,
    settings: { 'agentrl.ray.clusters': [{ name: 'e2e cluster', url: cluster!.url }], 'agentrl.ray.refreshSeconds': 3 }, // rows redrawn less often: a click lands on the row it aimed at
    viewport: { width: 1500, height: 900 },
  });
  try {
    const page = wb.page;
    await wb.runCommand('Agent RL: Connect to Ray Cluster…');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'e2e cluster' }).click();
    const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Ray/i }) });
    await view.getByRole('treeitem', { name: /^e2e cluster/ }).waitFor({ timeout: 60_000 });

    // the user's job, as `ray job submit` would send it (RAY_DEBUG=1 is Ray's default since 2.39)
    const ray = new RayClient({ url: cluster!.url, timeoutMs: 30_000 });
    const sub = await ray.submit({
      entrypoint: `${path.join(rayVenv, 'bin', 'python')} ${path.join(ws, 'paused_job.py')}`,
      runtime_env: { env_vars: { RAY_DEBUG: '1' } },
    });

    await view.getByRole('treeitem', { name: new RegExp(`^${sub.submission_id}`) }).waitFor({ timeout: 120_000 });
    const row = view.getByRole('treeitem', { name: new RegExp(`compute paused at paused_job\\.py:${pauseLine}`) });
    await row.waitFor({ timeout: 240_000 });
    await wb.waitForNotification(/is paused at a breakpoint/, 60_000);
    await row.click();

    // the editor stops at the user's line: the paused_job.py tab, the top stack frame's line decorated
    await page
      .locator('.tab.active', { hasText: 'paused_job.py' })
      .waitFor({ timeout: 120_000 })
      .catch(async (e: Error) => {
        await wb.screenshot('ray-attach-failure');
        const said = await page.locator('.notifications-toasts .notification-toast, .statusbar').allTextContents();
        throw new Error(`${e.message}\nnotifications and status bar: ${said.join(' | ')}`);
      });
    await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'compute' }).first().waitFor({ timeout: 60_000 });
    const current = page.locator('.editor-group-container.active .monaco-editor .debug-top-stack-frame-line');
    await current.first().waitFor({ timeout: 60_000 });
    const lineNumber = await page.locator('.editor-group-container.active .monaco-editor .line-numbers.active-line-number').first().textContent();
    assert.equal(lineNumber?.trim(), String(pauseLine), 'the cursor is on the breakpoint() line');
    await page.waitForTimeout(500); // let the decorations draw
    const shot = await wb.screenshot('ray-attach');
    assert.ok(fs.statSync(shot).size > 20_000);

    await page.keyboard.press('F5'); // Continue
    const done = await until(
      'the job finishes',
      async () => {
        const j = await ray.job(sub.submission_id);
        return j.status === 'RUNNING' || j.status === 'PENDING' ? undefined : j;
      },
      180_000,
      1000,
    );
    assert.equal(done.status, 'SUCCEEDED', done.message ?? '');
    assert.match(await ray.logs(sub.submission_id), /compute returned 41/);
  } finally {
    await wb.close();
  }
});
