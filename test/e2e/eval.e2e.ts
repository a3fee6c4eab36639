// Models compared in the real workbench, with the packaged VSIX: "Agent RL: Compare Models on
// Tasks…" runs the sample tool-calling workspace's launch entry with `compareModels` against the
// real llama.cpp fixture model and a DELIBERATELY WEAKENED copy of it (the same model answering
// with at most 3 tokens), in the window; the comparison view opens, a regression is opened side by
// side, and after a reload of the window the view comes back (its serializer).
// Screenshot: test-results/screenshots/eval-compare-regression.png
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../harness/model-server';
import { repoRoot, venvPython } from '../harness/paths';
import { openWorkbench, type Workbench } from './workbench';

const skip = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';
const ENTRY = 'Compare the fixture model with a weakened copy';
let wb: Workbench | undefined;
let base: ModelServer | undefined;
let weakened: ModelServer | undefined;
let workspace: string;

before(async () => {
  if (skip) return;
  [base, weakened] = await Promise.all([startModelServer(), startModelServer({ maxTokens: 3 })]);
  workspace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-e2e-eval-')), 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  fs.writeFileSync(
    path.join(workspace, '.vscode', 'launch.json'),
    JSON.stringify(
      {
        version: '0.2.0',
        configurations: [
          {
            type: 'agentrl',
            request: 'launch',
            name: ENTRY,
            config: '${workspaceFolder}/toolcall/toolcall.yaml',
            cwd: '${workspaceFolder}/toolcall',
            ...(fs.existsSync(venvPython) ? { python: venvPython } : {}),
            tasks: 3,
            repeat: 2,
            compareModels: [`base=${base.url}`, `weakened=${weakened.url}`],
          },
        ],
      },
      null,
      2,
    ),
  );
  wb = await openWorkbench({ workspace, viewport: { width: 1440, height: 900 } });
});
after(async () => {
  await wb?.close();
  await Promise.all([base?.stop(), weakened?.stop()]);
  if (workspace) fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
});

test('Compare Models on Tasks runs a launch entry in the window and opens a regression side by side', { skip, timeout: 360_000 }, async () => {
  try {
    await compare();
  } catch (e) {
    await wb!.screenshot('eval-failure').catch(() => undefined);
    throw e;
  }
});

async function compare(): Promise<void> {
  const page = wb!.page;
  await wb!.runCommand('Agent RL: Compare Models on Tasks…');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: ENTRY }).first().click();
  // The run shows a cancellable progress notification counting each model's episodes.
  await wb!.waitForNotification(/Comparing base ↔ weakened on toolcall\.yaml/, 60_000);
  const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await view.locator('table.tasks tr[data-task]').nth(2).waitFor({ timeout: 240_000 });
  assert.match((await view.locator('#verdict').textContent()) ?? '', /^weakened is worse than base by 1\.00 ± 0\.00 on 3 tasks × 2$/);
  assert.equal(await view.locator('table.tasks tr.regression').count(), 3);
  // A regression side by side: the same question, the answers differ.
  await view.locator('table.tasks tr.regression').first().click();
  await view.locator('table.side-by-side tr.differs').first().waitFor({ timeout: 30_000 });
  assert.ok((await view.locator('table.side-by-side tr.same').count()) >= 1, 'the question is the same for both');
  const shot = await wb!.screenshot('eval-compare-regression');
  assert.ok(fs.statSync(shot).size > 10_000);
  const saved = fs.readdirSync(path.join(workspace, '.agentrl', 'eval'));
  assert.equal(saved.length, 1, 'the comparison is saved under .agentrl/eval/');
  // A reload of the window brings the view back with the same comparison (the panel serializer).
  // (Reload Window, not a page reload: the workbench saves its editors on the way.)
  await wb!.runCommand('Developer: Reload Window');
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  const back = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await back.locator('table.tasks tr.regression').nth(2).waitFor({ timeout: 60_000 });
  assert.equal(await back.locator('h1').textContent(), 'weakened ↔ base · toolcall.yaml');
}
