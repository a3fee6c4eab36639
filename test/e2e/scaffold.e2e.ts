// The "New Workflow" wizard driven through its QuickPick UI in the real workbench (packaged VSIX):
// pick a framework and a template, go Back, see a name refused, create the project, and land in
// its workflow file. Screenshots: test-results/screenshots/scaffold-*.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { openWorkbench, Workbench } from './workbench';

let wb: Workbench;
before(async () => {
  wb = await openWorkbench();
});
after(async () => {
  await wb?.close();
});

test('New Workflow: QuickPick steps with Back and validation create the project and open it', async () => {
  const { page } = wb;
  const widget = page.locator('.quick-input-widget');
  const title = (text: string) => widget.locator('.quick-input-title', { hasText: `New RL Workflow: ${text}` }).waitFor({ timeout: 30000 });
  const row = (text: string) => widget.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  const input = widget.locator('.quick-input-box input');

  await wb.runCommand('Agent RL: New Workflow…');
  await title('Framework');
  await row('Trinity-RFT').click();

  await title('Template');
  await row('Tool-calling agent (Countdown)').waitFor();
  await wb.screenshot('scaffold-template-step');
  await row('Single-turn math (GSM8K)').click();

  await title('Name');
  assert.equal(await input.inputValue(), 'math_agent_2', 'the template suggests a free name (sample-workspace has math_agent)');
  // Back returns to the template step, which remembers the choice.
  await widget.locator('.codicon-quick-input-back').click();
  await title('Template');
  await row('Single-turn math (GSM8K)').click();

  await title('Name');
  await input.fill('class');
  await widget.locator('.quick-input-message', { hasText: "'class' is a Python keyword" }).waitFor({ timeout: 30000 });
  await input.fill('e2e_agent');
  await page.keyboard.press('Enter');

  await title('Folder');
  await row('Workspace folder').waitFor();
  await page.keyboard.press('Enter');

  await title('Model');
  assert.equal(await input.inputValue(), 'Qwen/Qwen2.5-0.5B-Instruct');
  await page.keyboard.press('Enter');

  await title('Data');
  await row('Bundled sample').waitFor();
  await wb.screenshot('scaffold-data-step');
  await page.keyboard.press('Enter');

  // No dead end: with no model server answering here, the wizard asks which endpoint the
  // debug entry should use (with one answering, it takes that one and opens the project).
  const endpoint = widget.locator('.quick-input-title', { hasText: 'Model endpoint for debugging' });
  const opened = page.locator('.tab.active', { hasText: 'workflow.py' });
  await Promise.race([endpoint.waitFor({ timeout: 30000 }), opened.waitFor({ timeout: 30000 })]);
  if (await endpoint.isVisible()) {
    assert.equal(await input.inputValue(), 'http://127.0.0.1:8000/v1');
    await page.keyboard.press('Enter');
  }
  await opened.waitFor({ timeout: 30000 });
  await page
    .locator('.view-lines', { hasText: /e2e_agent_workflow/ })
    .first()
    .waitFor({ timeout: 30000 });
  const project = path.join(wb.workspace, 'e2e_agent');
  for (const f of ['workflow.py', 'reward.py', 'config.yaml', 'README.md', 'data/train.jsonl']) assert.ok(fs.existsSync(path.join(project, f)), f);
  assert.match(fs.readFileSync(path.join(wb.workspace, '.vscode', 'launch.json'), 'utf8'), /"type": "agentrl"/);
  await wb.waitForNotification('Created e2e_agent');
  await wb.screenshot('scaffold-created');
  // F5 must run the new entry, not the one selected before: the toast offers to select it (VS
  // Code's debug picker on that entry; picking it selects it for F5 and starts it)
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Created e2e_agent' }).first();
  await toast.getByRole('button', { name: 'Select and Debug "Debug e2e_agent rollout"' }).click();
  const entry = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Debug e2e_agent rollout' }).first();
  await entry.waitFor({ timeout: 30000 });
  // the new entry comes first, highlighted: Enter selects it for F5 and starts it
  assert.match((await widget.locator('.quick-input-list .monaco-list-row').first().textContent()) ?? '', /Debug e2e_agent rollout/);
  await wb.screenshot('scaffold-select-entry');
  await page.keyboard.press('Escape');
  const launch = fs.readFileSync(path.join(wb.workspace, '.vscode', 'launch.json'), 'utf8');
  assert.match(launch.slice(launch.indexOf('Debug e2e_agent rollout')), /"breakOn": \[\s*"llm"\s*\]/, 'the new entry stops on the first LLM call');
});

test('the "Get started with Agent RL" walkthrough: five steps; its button runs New Workflow and completes the step', async () => {
  const { page } = wb;
  await wb.runCommand('Welcome: Open Walkthrough...');
  const pick = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Get started with Agent RL' }).first();
  await pick.waitFor({ timeout: 30000 });
  await pick.click();
  const gettingStarted = page.locator('.gettingStartedContainer');
  const step = (title: string) => gettingStarted.locator('.getting-started-step', { hasText: title }).first();
  for (const title of ['Scaffold a workflow', 'Fix a config error', 'Debug a rollout', 'Watch training metrics', 'Compare two models'])
    await step(title).waitFor({ timeout: 30000 });

  await step('Scaffold a workflow').click();
  await step('Scaffold a workflow').getByRole('button', { name: 'New Workflow…' }).click();
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'New RL Workflow: Framework' }).waitFor({ timeout: 30000 });
  await page.keyboard.press('Escape');
  await page.locator('.getting-started-step[aria-checked="true"]', { hasText: 'Scaffold a workflow' }).waitFor({ timeout: 30000 });

  await step('Fix a config error').click();
  // Every feature has landed: the step describes the live checker, not a placeholder.
  await gettingStarted.getByText('Try setting mode: Explore', { exact: false }).first().waitFor({ timeout: 30000 });
  assert.equal(await gettingStarted.getByText('Not in this build yet', { exact: false }).count(), 0);
  await wb.screenshot('scaffold-walkthrough');
  await step('Watch training metrics').click();
  await step('Watch training metrics').getByRole('button', { name: 'Show Training Metrics' }).waitFor({ timeout: 10000 });
  await wb.screenshot('scaffold-walkthrough-metrics');
});
