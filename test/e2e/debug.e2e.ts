// The rollout debugger in the real workbench, with the packaged VSIX: F5 on the sample
// tool-calling workspace (its launch.json entry) against the real llama.cpp model server;
// the Debug view stops on the first LLM turn; stepped over to the next call, "Show Tokens" on the
// first call's Response opens the token view of that call (prompt + completion, completion trained). Screenshots:
// test-results/screenshots/debug-stopped-on-turn.png, debug-call-tokens.png
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../harness/model-server';
import { repoRoot } from '../harness/paths';
import { until } from '../harness/wait';
import { pickFromContextMenu, setExpanded } from './variables';
import { openWorkbench, type Workbench } from './workbench';

const skip = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';
let wb: Workbench | undefined;
let model: ModelServer | undefined;
let workspace: string;

before(async () => {
  if (skip) return;
  model = await startModelServer();
  workspace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-e2e-debug-')), 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  const launch = path.join(workspace, '.vscode', 'launch.json');
  fs.writeFileSync(launch, fs.readFileSync(launch, 'utf8').replace('http://127.0.0.1:8089/v1', model.url));
  wb = await openWorkbench({ workspace, viewport: { width: 1440, height: 900 } });
});
after(async () => {
  await wb?.close();
  await model?.stop();
  if (workspace) fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
});

test('F5 on the sample stops on the first LLM turn in the Debug view', { skip, timeout: 240_000 }, async () => {
  try {
    await stopsOnTurn();
  } catch (e) {
    await wb!.screenshot('debug-failure').catch(() => undefined);
    throw e;
  }
});

async function stopsOnTurn(): Promise<void> {
  const page = wb!.page;
  await wb!.runCommand('View: Show Run and Debug');
  await wb!.runCommand('Debug: Start Debugging');
  // The palette may land on "Select and Start Debugging": pick the sample's launch entry.
  const pick = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Debug toolcall rollouts' }).first();
  // Either VS Code asks which launch entry (the picker: pick it) or the session starts on its
  // own; whichever shows first, however long a loaded machine takes to show it.
  const toolbar = page.locator('.debug-toolbar');
  await until(
    'the launch picker or the debug session',
    async () => {
      if (await pick.isVisible()) {
        await pick.click();
        return true;
      }
      return toolbar.isVisible();
    },
    120_000,
    200,
  );
  // One episode so far: VS Code shows its thread (Tparis#R0) in the header, its turns as rows.
  const turn = page.locator('.debug-call-stack .monaco-list-row', { hasText: /llm #1 ▸ request pending/ }).first();
  await turn.waitFor({ timeout: 120_000 });
  // The Variables view shows the pending request's scopes.
  const variables = page.locator('.debug-variables');
  await variables.locator('.monaco-list-row', { hasText: 'Request' }).first().waitFor({ timeout: 30_000 });
  const messages = variables.locator('.monaco-list-row', { hasText: /messages\s*=\s*list\[1\]/ }).first();
  await messages.waitFor({ timeout: 30_000 });
  await messages.click();
  await variables
    .locator('.monaco-list-row', { hasText: /What\sis\sthe\sweather\sin\sParis/ })
    .first()
    .waitFor({ timeout: 30_000 });
  // The editor shows the workflow line that made the call.
  await page.locator('.tab.active', { hasText: 'workflow.py' }).waitFor({ timeout: 30_000 });
  const shot = await wb!.screenshot('debug-stopped-on-turn');
  assert.ok(fs.statSync(shot).size > 10_000);
  await showsTokens();
  await page.locator('.debug-toolbar .codicon-debug-stop').first().click();
  await turn.waitFor({ state: 'detached', timeout: 60_000 });
  const runs = path.join(workspace, '.agentrl', 'runs');
  assert.equal(fs.readdirSync(runs).length, 1, 'the stopped run was saved');
}

/** Step over to the next call, then "Show Tokens" on the first call's Response. */
async function showsTokens(): Promise<void> {
  const page = wb!.page;
  await wb!.runCommand('Debug: Step Over');
  // Stepping over stops at the next LLM call; the first call is a frame below it.
  const done = page.locator('.debug-call-stack .monaco-list-row', { hasText: /llm #1 → get_weather/ }).first();
  await done.waitFor({ timeout: 120_000 });
  await done.click();
  await page.locator('.debug-call-stack .monaco-list-row.selected', { hasText: /llm #1 → get_weather/ }).waitFor({ timeout: 30_000 });
  const variables = page.locator('.debug-variables');
  // The Variables view is short and opens the first scope: fold the request, unfold the
  // reply, so the reply's rows are on screen (each click only when the scope is not so yet).
  await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Request$/ }).first(), false);
  await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Response$/ }).first(), true);
  // The row reads `tokens = <prompt> + <completion> tokens (right-click: Show tokens)`.
  const tokens = variables.locator('.monaco-list-row', { hasText: /tokens\s*=\s*\d+ \+ \d+ tokens/ }).first();
  await tokens.waitFor({ timeout: 30_000 });
  const [, prompt, completion] = /(\d+) \+ (\d+) tokens/.exec(await tokens.innerText())!;
  const tab = page.locator('.tab', { hasText: /Tokens: T\w+#R0 llm #1/ }).first();
  await pickFromContextMenu(tokens, 'Show Tokens', tab);
  // The token view draws inside the webview's iframes.
  const view = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  const summary = view.locator('.tv-summary').first();
  await summary.waitFor({ timeout: 30_000 });
  // the summary counts the call's prompt and completion; the completion is what is trained
  const total = Number(prompt) + Number(completion);
  const text = await summary.innerText();
  assert.ok(text.includes(`${total} tokens`), text);
  assert.ok(text.includes(`${completion} trained`), text);
  assert.ok((await view.locator('.tv-tok').count()) > 20, 'tokens are drawn');
  // the reply's least likely token, scrolled to and marked: the completion is on screen
  await view.locator('button', { hasText: 'Lowest logprob' }).click();
  const lowest = view.locator('.tv-tok.tv-focus');
  await lowest.waitFor({ timeout: 30_000 });
  assert.doesNotMatch((await lowest.getAttribute('class')) ?? '', /tv-in-prompt/, 'the lowest logprob is in the completion');
  const shot = await wb!.screenshot('debug-call-tokens');
  assert.ok(fs.statSync(shot).size > 10_000);
}
