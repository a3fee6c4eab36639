// Workspace Trust: in Restricted Mode configs are still checked, but nothing runs code or
// opens a connection (capabilities.untrustedWorkspaces = limited).
import * as assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openWorkbench, Workbench } from './workbench';

let wb: Workbench;
before(async () => {
  wb = await openWorkbench({ untrusted: true, settings: { 'agentrl.metrics.endpoints': [{ name: 'node', url: 'ws://127.0.0.1:9/' }] } });
});
after(async () => {
  await wb?.close();
});

test('the folder opens in Restricted Mode', async () => {
  await wb.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 30000 });
});

test('config checks still work in an untrusted workspace', async () => {
  await wb.openFile('gsm8k/gsm8k.yaml');
  await wb.page.locator('.statusbar-item', { hasText: 'Trinity-RFT' }).first().waitFor({ timeout: 60000 });
});

test('connecting to a training run is refused with a clear message', async () => {
  await wb.runCommand('Agent RL: Connect to Training Run…');
  await wb.waitForNotification('connections to training runs are disabled in an untrusted workspace');
  // The endpoint from the settings is not contacted either (a restricted setting).
  assert.equal(await wb.page.locator('.statusbar-item', { hasText: /reward|rollout\//i }).count(), 0);
  await wb.screenshot('untrusted-workspace');
});
