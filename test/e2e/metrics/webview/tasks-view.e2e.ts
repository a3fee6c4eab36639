// The Tasks view in the real workbench (packaged VSIX, Chromium) on the demo run: the demo's
// stand-in trainer (demo/demo_trainer.py, no model: its simulated taskset) writes a job dir, a
// relay serves it, the metrics view connects through the endpoints setting. The view switch
// opens the Tasks view: the counts per class (two of each), the evidence (mode collapse) whose
// rollouts open side by side, and a task's rollouts at its first and last version. Screenshots:
// test-results/screenshots/metrics-tasks-*.png.
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { repoRoot } from '../../../harness/paths';
import { openWorkbench } from '../../workbench';

let tmp: string;
let relay: ChildProcess | undefined;
let url: string;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tasks-e2e-'));
  const job = path.join(tmp, 'demo-run');
  const w = spawnSync(
    'python3',
    [path.join(repoRoot, 'demo', 'demo_trainer.py'), '--job-dir', job, '--steps', '40', '--step-seconds', '0', '--model-url', ''],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(w.status, 0, w.stderr);
  relay = spawn(process.execPath, [path.join(repoRoot, 'dist', 'agentrl.js'), 'relay', '--job-dir', job, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    relay!.stdout!.on('data', (b) => {
      out += b;
      const m = out.match(/listening on (ws:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    relay!.on('exit', (c) => reject(new Error(`relay exited ${c}`)));
  });
});

after(() => {
  relay?.kill('SIGKILL');
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test(
  'the Tasks view on the demo run: every class counted, mode collapse clicked through to its rollouts, a task step 0 vs step 40',
  { timeout: 300_000 },
  async () => {
    const wb = await openWorkbench({ settings: { 'agentrl.metrics.endpoints': [{ name: 'demo', url }] } });
    try {
      await wb.runCommand('Agent RL: Show Training Metrics');
      const view = wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
      await view.locator('.chip.state-live').waitFor({ timeout: 90000 });
      await view.locator('.view-switch button[data-view="tasks"]').click();
      const table = view.locator('.tasks-table');
      await table.locator('tr.task-row').first().waitFor({ timeout: 60000 });
      assert.deepEqual(await table.locator('.class-chip').allInnerTexts(), ['All 10', 'learned 2', 'never 2', 'always 2', 'forgotten 2', 'flaky 2']);
      assert.match(await table.locator('.summary').innerText(), /10 tasks over model versions 0–40/);
      // A filter: only the forgotten ones.
      await table.locator('.class-chip[data-class="forgotten"]').click();
      assert.deepEqual(await view.locator('.tasks-table tr.task-row td.task').allInnerTexts(), ['1/6', '1/7']);
      await view.locator('.tasks-table .class-chip[data-class="all"]').click();
      await wb.screenshot('metrics-tasks-table');

      // The evidence, and the rollouts behind it side by side.
      const finding = view.locator('.finding[data-kind="mode_collapse"]');
      assert.match(await finding.locator('.detail').innerText(), /^the same response \(up to case and spacing\) answered/);
      assert.equal(await view.locator('.findings h3').innerText(), 'Evidence, not proof');
      await finding.locator('button.finding-rollouts').click();
      const columns = view.locator('.task-rollouts .rollout-column');
      await columns.first().locator('.message.role-assistant', { hasText: 'The answer is 42.' }).waitFor({ timeout: 30000 });
      assert.ok((await columns.count()) >= 3);
      await wb.screenshot('metrics-tasks-finding');

      // A task through training: its first and last version side by side.
      await view.locator('.tasks-table tr.task-row[data-task="1/6"]').click();
      await columns.nth(1).locator('.message.role-assistant').waitFor({ timeout: 30000 });
      assert.equal(await columns.count(), 2);
      const labels = await view.locator('.task-rollouts .rollout-column header .label').allInnerTexts();
      assert.match(labels[0], /^Model version 0 · #\d+ · Reward 1\.00/);
      assert.match(labels[1], /^Model version 40 · #\d+ · Reward 0\.00/);
      await view.locator('.task-rollouts').scrollIntoViewIfNeeded();
      await wb.screenshot('metrics-tasks-task');
    } catch (e) {
      await wb.screenshot('metrics-tasks-failed');
      throw e;
    } finally {
      await wb.close();
    }
  },
);
