// A newcomer's first ten minutes, from `npm start`: the sandbox (a copy of the sample workspace)
// opens on our walkthrough; the demo run ("demo: simulated trainer", a stand-in for the GPU
// trainer, with real rollouts of the tiny fixture model) streams into the metrics view with no
// input beyond opening it, its charts grow, a click on a step shows its rollouts (the drawer's
// table whole at a wide and a narrow editor) and a rollout's tokens (texts, turns labelled); F5
// on the sample stops before the first LLM call and Show Tokens there has texts and labelled
// turns too; Compare Models starts from the endpoint the workspace names; the wizard's project
// runs on F5 to completion against the sandbox's model; Ctrl+C stops everything and the git tree
// stays as it was. What a person looks at is shot in the dark theme and again in the light one.
// Screenshots: test-results/screenshots/start-*.png.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { repoRoot, screenshotsDir } from '../harness/paths';
import { runPaletteCommand } from './palette';
import { freePort } from '../harness/vscode-server';
import { until } from '../harness/wait';
import { pickFromContextMenu, setExpanded } from './variables';

let start: ChildProcess | undefined;
let browser: Browser | undefined;
let sandboxRoot: string | undefined;
after(async () => {
  // Still open: the test failed on the way; what the screen showed then.
  const last = browser?.contexts()[0]?.pages()[0];
  if (last) await shot(last, 'start-failure').catch(() => undefined);
  await browser?.close().catch(() => undefined);
  // On failure: Ctrl+C first (it stops the model server, the demo and code-server, each in its
  // own process group), then force.
  if (start?.pid && start.exitCode === null) {
    const exited = new Promise((r) => start!.once('exit', r));
    start.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20000))]);
    if (start.exitCode === null) process.kill(-start.pid, 'SIGKILL');
  }
  if (sandboxRoot) fs.rmSync(sandboxRoot, { recursive: true, force: true });
});

/** Processes whose command line mentions this sandbox's port (code-server and its children). */
function processesOnPort(port: number): string[] {
  const ps = spawnSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).stdout;
  return ps.split('\n').filter((l) => l.includes(`127.0.0.1:${port}`) && !l.includes('ps -eo'));
}
const gitStatus = () => spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repoRoot, encoding: 'utf8' }).stdout;

async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotsDir, { recursive: true });
  const file = path.join(screenshotsDir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

const DARK = 'Default Dark Modern';
const LIGHT = 'Default Light Modern';

/** Sets the colour theme in the sandbox's workspace settings (the copy's own, so the sandbox's
 *  user settings stay as they were), and waits for the workbench and the given webviews to wear it. */
async function setTheme(page: Page, sandbox: string, theme: string, webviews: FrameLocator[]): Promise<void> {
  fs.writeFileSync(path.join(sandbox, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }, null, 2) + '\n');
  const light = theme === LIGHT;
  await page.locator(`.monaco-workbench.${light ? 'vs' : 'vs-dark'}`).waitFor({ timeout: 30000 });
  for (const w of webviews) await w.locator(`body.${light ? 'vscode-light' : 'vscode-dark'}`).waitFor({ timeout: 30000 });
}

/** `name`-dark.png, then the same screen in the light theme (`name`-light.png), back to dark. */
async function shotBothThemes(page: Page, sandbox: string, name: string, webviews: FrameLocator[] = []): Promise<void> {
  await shot(page, `${name}-dark`);
  await setTheme(page, sandbox, LIGHT, webviews);
  await shot(page, `${name}-light`);
  await setTheme(page, sandbox, DARK, webviews);
}

/** Picks a launch entry in the Run and Debug view's dropdown. */
async function pickLaunch(page: Page, name: string): Promise<void> {
  await runPaletteCommand(page, 'View: Show Run and Debug');
  const select = page.locator('.start-debug-action-item .monaco-select-box');
  await select.waitFor({ timeout: 30000 });
  for (let i = 0; i < 20; i++) {
    if ((await select.getAttribute('title'))?.includes(name) || (await select.inputValue().catch(() => '')) === name) return;
    await select.click();
    const option = page.locator('.select-box-dropdown-list-container .monaco-list-row', { hasText: name }).first();
    if (
      await option.waitFor({ timeout: 2000 }).then(
        () => true,
        () => false,
      )
    ) {
      await option.click();
      return;
    }
    await page.keyboard.press('Escape');
  }
  await shot(page, 'start-failure-debug-pick');
  assert.fail(`"${name}" is not in the Run and Debug dropdown`);
}

/** The drawer's rollouts table as laid out: its last header, and whether anything is cut off. */
async function drawerTable(drill: Locator): Promise<{ last: string; lastRight: number; listRight: number; overflow: number; drawer: number }> {
  // What of the DOM this reads (the tests compile without the DOM's types).
  type El = {
    querySelector(s: string): El | null;
    getBoundingClientRect(): { right: number; width: number };
    textContent: string | null;
    scrollWidth: number;
    clientWidth: number;
  };
  return drill.evaluate((el: El) => {
    const list = el.querySelector('.rollout-list')!;
    const th = el.querySelector('table.rollouts thead th:last-child')!;
    return {
      last: th.textContent ?? '',
      lastRight: th.getBoundingClientRect().right,
      listRight: list.getBoundingClientRect().right,
      overflow: list.scrollWidth - list.clientWidth,
      drawer: el.getBoundingClientRect().width,
    };
  });
}

/** A token view shows texts (not ids) from the model's own tokenizer, and, with `turns`, labels
 *  its turns (the chat template). `names`: its notes name the tokenizer (the views of a call
 *  and of a buffer row do; that of what a workflow returned names the experience instead). */
async function assertTokenTexts(tv: Locator, what: string, o: { turns: boolean; names: boolean }): Promise<void> {
  await tv.locator('.tv-tok').first().waitFor({ timeout: 60000 });
  const notes = await tv.locator('.tv-notes').innerText();
  if (o.names) assert.match(notes, /tokenizer of \S*tiny-toolcall/, `${what}: ${notes}`);
  assert.doesNotMatch(notes, /No tokenizer|No chat template|from the endpoint/, `${what}: ${notes}`);
  assert.match(await tv.locator('.tv-window').innerText(), /im_start/, `${what}: token texts, not ids`);
  if (o.turns) assert.ok((await tv.locator('.tv-tok[data-turn]').count()) >= 2, `${what}: the turns are labelled`);
}

/** Steps of the sandbox's demo run whose buffer rows include real rollouts (tasks of the sample taskset), newest first. */
function realRolloutSteps(sandbox: string, taskIds: string[]): number[] {
  const demo = path.join(sandbox, '.agentrl', 'demo');
  const dbs = fs.existsSync(demo) ? (fs.readdirSync(demo, { recursive: true }) as string[]).filter((f) => f.endsWith('experience_buffer.db')) : [];
  if (!dbs.length) return [];
  const sql = `SELECT DISTINCT model_version FROM experience_buffer WHERE task_id IN (${taskIds.map(() => '?').join(',')}) ORDER BY 1 DESC`;
  const py =
    'import sqlite3,sys; d=sqlite3.connect("file:"+sys.argv[1]+"?mode=ro", uri=True); print(" ".join(str(v) for (v,) in d.execute(sys.argv[2], sys.argv[3:])))';
  const r = spawnSync('python3', ['-c', py, path.join(demo, dbs[0]), sql, ...taskIds], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.split(/\s+/).filter(Boolean).map(Number) : [];
}

/** Points charted on a card (its "N points" meta). */
async function pointsOn(view: FrameLocator, chart: string): Promise<number> {
  const text = await view.locator(`.card[data-chart="${chart}"] .meta`).innerText();
  return Number(text.replace(/[^\d]/g, '')) || 0;
}

test('npm start: walkthrough first, the demo run live in the metrics view, rollouts, the wizard on F5, clean Ctrl+C', { timeout: 600_000 }, async () => {
  const vsix = process.env.AGENTRL_E2E_VSIX;
  assert.ok(vsix, 'AGENTRL_E2E_VSIX not set; run via scripts/test.mjs e2e');
  const gitBefore = gitStatus();
  const port = await freePort();
  const modelPort = await freePort();
  sandboxRoot = path.join(repoRoot, '.sandbox', `e2e-${port}`);
  const sandbox = path.join(sandboxRoot, 'sample-workspace');
  start = spawn(
    process.execPath,
    [path.join(repoRoot, 'scripts', 'start.mjs'), '--port', String(port), '--model-port', String(modelPort), '--vsix', vsix, '--sandbox', sandbox, '--reset'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  start.stderr!.on('data', (b) => (out += b));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 90 s:\n${out}`)), 90000);
    start!.stdout!.on('data', (b) => {
      out += b;
      const m = out.match(/(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    start!.on('exit', (c) => reject(new Error(`npm start exited early (${c}):\n${out}`)));
  });
  // A copy of the sample workspace, never the tracked one.
  assert.equal(decodeURIComponent(url.split('folder=')[1]), sandbox);
  assert.ok(fs.existsSync(path.join(sandbox, 'toolcall', 'toolcall.yaml')));
  assert.match(
    fs.readFileSync(path.join(sandbox, '.vscode', 'launch.json'), 'utf8'),
    new RegExp(`127\\.0\\.0\\.1:${modelPort}/v1`),
    "the copy debugs against this run's model",
  );
  assert.ok(processesOnPort(port).length > 0, 'code-server is not running');
  assert.match(out, new RegExp(`Model:\\s+http://127\\.0\\.0\\.1:${modelPort}/v1`));
  assert.match(out, /Demo:\s+demo: simulated trainer/);
  const models = (await (await fetch(`http://127.0.0.1:${modelPort}/v1/models`)).json()) as { data: { id: string }[] };
  assert.ok(models.data.length > 0, 'the model server lists no model');

  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  // First screen: our walkthrough, opened by itself.
  const walkthrough = page.locator('.gettingStartedContainer', { hasText: 'Get started with Agent RL' });
  await walkthrough.waitFor({ timeout: 90000 });
  await walkthrough.locator('.getting-started-step', { hasText: 'Watch training metrics' }).first().waitFor({ timeout: 30000 });
  // Its page (markdown media, the English one) renders next to the steps.
  await page
    .frameLocator('.getting-started-media iframe')
    .frameLocator('#active-frame')
    .locator('h2', { hasText: 'Scaffold a workflow' })
    .waitFor({ timeout: 30000 });
  assert.equal(await walkthrough.getByText(/[\u4e00-\u9fff]/).count(), 0, 'an English page has no Chinese section');
  await shot(page, 'start-walkthrough');
  // The rest in the dark theme, each screen a person looks at in the light one too.
  await setTheme(page, sandbox, DARK, []);

  // The metrics view: open it, nothing else. The demo is connected and its charts grow.
  await runPaletteCommand(page, 'Agent RL: Show Training Metrics');
  const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  const reward = 'rollout/accuracy/mean';
  await view.locator(`.card[data-chart="${reward}"] canvas`).first().waitFor({ timeout: 60000 });
  await view.locator('.card[data-chart="actor/pg_loss"] canvas').first().waitFor({ timeout: 60000 });
  await view.locator('.chip.state-live', { hasText: 'demo: simulated trainer' }).waitFor({ timeout: 60000 });
  const first = await pointsOn(view, reward);
  let later = first;
  for (let i = 0; i < 60 && later <= first + 2; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    later = await pointsOn(view, reward);
  }
  assert.ok(later > first + 2, `the reward chart grows (${first} → ${later} points)`);
  for (let i = 0; i < 40 && (await pointsOn(view, reward)) < 12; i++) await new Promise((r) => setTimeout(r, 1000));
  // The status bar names what it shows: the tag, not "reward" for whatever it is.
  await page
    .locator('.statusbar-item', { hasText: /rollout\/[\w/]+ -?\d/ })
    .first()
    .waitFor({ timeout: 30000 });
  assert.ok(fs.statSync(await shot(page, 'start-metrics')).size > 20_000);
  await shotBothThemes(page, sandbox, 'start-metrics', [view]);

  // Click a step on the reward chart: its rollouts (from the experience buffer). Every step has
  // the simulated taskset's rows (made-up texts: no logprobs); the fixture model's real rollouts,
  // named by the sample taskset's ids, come at the model's pace (a few steps in a hundred on
  // two cores): the buffer says which steps have one, and the drawer's task filter finds it
  // among the step's forty simulated rows.
  const taskIds = fs
    .readFileSync(path.join(repoRoot, 'sample-workspace', 'toolcall', 'data', 'train.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { id: string }).id);
  const realRow = new RegExp(`^(${taskIds.join('|')})\\d`);
  const over = view.locator(`.card[data-chart="${reward}"] .u-over`);
  const drill = view.locator('aside.drill');
  const realRollout = drill.locator('tr.rollout').filter({ hasText: realRow });
  const shown = (locator: Locator, timeout: number) =>
    locator
      .first()
      .waitFor({ timeout })
      .then(
        () => true,
        () => false,
      );
  const charted = await until(
    'a step of the chart with a real rollout',
    async () => {
      const points = await pointsOn(view, reward);
      const steps = realRolloutSteps(sandbox, taskIds).filter((s) => s < points - 1);
      return steps.length ? { steps, points } : undefined;
    },
    240_000,
    2000,
  );
  let found = false;
  for (const step of charted.steps.slice(0, 6)) {
    for (const off of [0, -0.4, 0.4]) {
      const box = (await over.boundingBox())!;
      // The x scale spans the charted steps 0 … points-1, and the live chart grows between
      // clicks: its points read again just before each.
      const points = await pointsOn(view, reward);
      const x = box.x + (box.width * (step + off)) / (points - 1);
      await page.mouse.move(x, box.y + box.height / 2);
      await page.mouse.click(x, box.y + box.height / 2);
      if (await shown(drill.locator('tr.rollout'), 3000))
        for (const id of taskIds) {
          await drill.locator('input.task-filter').fill(id);
          if ((found = await shown(realRollout, 1000))) break;
        }
      if (found) break;
      if (await drill.count())
        await drill
          .locator('header button')
          .click()
          .catch(() => undefined);
    }
    if (found) break;
  }
  assert.ok(
    found,
    `steps ${charted.steps.join(', ')} of ${charted.points} have rollouts of the sample taskset in the buffer; a click on the chart at none of them showed one`,
  );
  await realRollout.first().click();
  await drill
    .locator('.detail .message.role-user', { hasText: /What is|weather/ })
    .first()
    .waitFor({ timeout: 30000 });
  await shotBothThemes(page, sandbox, 'start-rollouts', [view]);
  // The drawer's table is whole, its id column last, at a wide and at a narrow editor.
  for (const [label, width] of [
    ['wide', 1440],
    ['narrow', 1000],
  ] as const) {
    await page.setViewportSize({ width, height: 900 });
    const t = await until(`the ${label} drawer laid out`, async () => {
      const d = await drawerTable(drill);
      return d.drawer > 0 && d.drawer <= width ? d : undefined;
    });
    assert.equal(t.last, 'id');
    assert.ok(t.overflow <= 1 && t.lastRight <= t.listRight + 1, `${label}: the table is cut off on the right: ${JSON.stringify(t)}`);
    await shot(page, `start-drawer-${label}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  // The rollout's tokens: texts from the run's tokenizer, turns labelled by its chat template.
  await drill.locator('.detail button.open-tokens').click();
  const drillTokens = drill.locator('.tokens .tv');
  await assertTokenTexts(drillTokens, "the rollout's Tokens", { turns: true, names: true });
  // The engine's logprobs, as a real run's buffer keeps them: a mean, no "not stored".
  const tokenSummary = await drillTokens.locator('.tv-summary').innerText();
  assert.match(tokenSummary, /mean logprob -?\d/, `the rollout's Tokens: ${tokenSummary}`);
  assert.doesNotMatch(await drillTokens.locator('.tv-notes').innerText(), /logprob/i);
  await drillTokens.scrollIntoViewIfNeeded();
  await shotBothThemes(page, sandbox, 'start-rollout-tokens', [view]);
  await drill.locator('header button').click();
  await runPaletteCommand(page, 'View: Close All Editors');

  // F5 on the sample's entry: it stops before the first LLM call; stepped over, Show Tokens on
  // that call's Response has texts and labelled turns (the model's folder beside the config).
  await pickLaunch(page, 'Debug toolcall rollouts');
  await page.locator('.start-debug-action-item .codicon-debug-start').first().click();
  const pending = page.locator('.debug-call-stack .monaco-list-row', { hasText: /llm #1 ▸ request pending/ }).first();
  await pending.waitFor({ timeout: 120_000 });
  const variables = page.locator('.debug-variables');
  await variables.locator('.monaco-list-row', { hasText: 'Request' }).first().waitFor({ timeout: 30_000 });
  await shotBothThemes(page, sandbox, 'start-debug-stopped');
  await runPaletteCommand(page, 'Debug: Step Over');
  const answered = page.locator('.debug-call-stack .monaco-list-row', { hasText: /llm #1 → / }).first();
  await answered.waitFor({ timeout: 120_000 });
  await answered.click();
  await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Request$/ }).first(), false);
  await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Response$/ }).first(), true);
  const tokensRow = variables.locator('.monaco-list-row', { hasText: /tokens\s*=\s*\d+ \+ \d+ tokens/ }).first();
  await tokensRow.waitFor({ timeout: 30_000 });
  await pickFromContextMenu(tokensRow, 'Show Tokens', page.locator('.tab', { hasText: /Tokens: T\w+#R0 llm #1/ }).first());
  const tokensView = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await assertTokenTexts(tokensView.locator('.tv').first(), 'Show Tokens', { turns: false, names: true });
  await shotBothThemes(page, sandbox, 'start-call-tokens', [tokensView]);
  // Step Out to where the episode returned: the tokens training learns from, with texts.
  await runPaletteCommand(page, 'Debug: Step Out');
  await page
    .locator('.debug-call-stack .monaco-list-row', { hasText: /T\w+#R0 reward/ })
    .first()
    .waitFor({ timeout: 120_000 });
  for (const scope of ['Request', 'Response'])
    await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: new RegExp(`^${scope}$`) }).first(), false, true);
  await setExpanded(variables.locator('.monaco-list-row[aria-level="1"]', { hasText: /^Episode$/ }).first(), true);
  const experiences = variables.locator('.monaco-list-row', { hasText: /experiences\s*=\s*\d+ experiences? with tokens/ }).first();
  await experiences.waitFor({ timeout: 30_000 });
  const learnsTab = page.locator('.tab', { hasText: /Tokens: T\w+#R0 #\d/ }).first();
  // Several experiences: the command asks which (the first is fine).
  const which = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();
  await pickFromContextMenu(experiences, 'Show Tokens Training Learns From', learnsTab.or(which));
  if (await which.isVisible().catch(() => false)) await which.click();
  await learnsTab.waitFor({ timeout: 30_000 });
  // (The sample's experiences carry no messages, as Trinity's from a model's history: no turns.)
  await assertTokenTexts(tokensView.locator('.tv').first(), 'Show Tokens Training Learns From', { turns: false, names: false });
  await shotBothThemes(page, sandbox, 'start-learns-tokens', [tokensView]);
  await page.locator('.debug-toolbar .codicon-debug-stop').first().click();
  await page.locator('.debug-toolbar').waitFor({ state: 'hidden', timeout: 60_000 });
  await runPaletteCommand(page, 'View: Close All Editors');

  // Compare Models: the form offers the endpoint launch.json names (the sandbox's model), says
  // that a model compared with itself shows only noise, and runs.
  const widget = page.locator('.quick-input-widget');
  await runPaletteCommand(page, 'Agent RL: Compare Models on Tasks…');
  await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'New comparison…' }).first().click();
  await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'toolcall/toolcall.yaml' }).first().click();
  await widget.locator('.quick-input-title', { hasText: 'Models to compare' }).waitFor({ timeout: 30000 });
  assert.match(await widget.locator('.quick-input-box input').inputValue(), new RegExp(`base=http://127\\.0\\.0\\.1:${modelPort}/v1`));
  await widget.locator('.quick-input-message', { hasText: 'the same endpoint' }).waitFor({ timeout: 10000 });
  await shot(page, 'start-compare-form');
  await page.keyboard.press('Enter');
  await widget.locator('.quick-input-title', { hasText: 'Tasks × repeats' }).waitFor({ timeout: 30000 });
  await widget.locator('.quick-input-box input').fill('2 1');
  await page.keyboard.press('Enter');
  const compare = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  // Both tasks scored by both models: a verdict (identical models: no difference beyond noise).
  await compare.locator('table.tasks tr[data-task]').nth(1).waitFor({ timeout: 300_000 });
  const verdict = (await compare.locator('#verdict').textContent()) ?? '';
  assert.ok(verdict.trim() && !/not enough tasks/.test(verdict), verdict);
  await shotBothThemes(page, sandbox, 'start-compare', [compare]);
  await runPaletteCommand(page, 'View: Close All Editors');

  // The wizard's project runs on F5 to completion against the sandbox's model.
  const title = (text: string) => widget.locator('.quick-input-title', { hasText: `New RL Workflow: ${text}` }).waitFor({ timeout: 30000 });
  const row = (text: string) => widget.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await runPaletteCommand(page, 'Agent RL: New Workflow…');
  await title('Framework');
  await row('Trinity-RFT').click();
  await title('Template');
  await row('Single-turn math (GSM8K)').click();
  await title('Name');
  await widget.locator('.quick-input-box input').fill('first_agent');
  await page.keyboard.press('Enter');
  for (const t of ['Folder', 'Model', 'Data']) {
    await title(t);
    await page.keyboard.press('Enter');
  }
  await page.locator('.tab.active', { hasText: 'workflow.py' }).waitFor({ timeout: 60000 });
  const launch = fs.readFileSync(path.join(sandbox, '.vscode', 'launch.json'), 'utf8');
  const entry = launch.slice(launch.indexOf('"Debug first_agent rollout"'));
  assert.match(entry, new RegExp(`"baseUrl": "http://127\\.0\\.0\\.1:${modelPort}/v1"`), 'the entry uses the model that answers');
  assert.doesNotMatch(entry.slice(0, entry.indexOf('}')), /apiKeyEnv/, 'a local endpoint asks for no key');
  const runs = path.join(sandbox, '.agentrl', 'runs');
  const before = fs.existsSync(runs) ? fs.readdirSync(runs) : [];
  // Run and Debug: the wizard's entry in the launch dropdown, then F5.
  await pickLaunch(page, 'Debug first_agent rollout');
  await page.locator('.start-debug-action-item .codicon-debug-start').first().click();
  let summary: { status?: string } | undefined;
  // The new entry stops before LLM calls (`breakOn`, as the sample's does): the run stops there
  // and goes on with Continue until it ends.
  const cont = page.locator('.debug-toolbar .codicon-debug-continue');
  let stops = 0;
  for (let i = 0; i < 180 && !summary; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    if (
      await cont
        .first()
        .isVisible()
        .catch(() => false)
    ) {
      stops++;
      await cont
        .first()
        .click()
        .catch(() => undefined);
    }
    const fresh = (fs.existsSync(runs) ? fs.readdirSync(runs) : []).filter((d) => !before.includes(d));
    const f = fresh.map((d) => path.join(runs, d, 'summary.json')).find((p) => fs.existsSync(p));
    if (f) summary = JSON.parse(fs.readFileSync(f, 'utf8')) as { status?: string };
  }
  assert.equal(summary?.status, 'completed', `the run ended: ${JSON.stringify(summary)}`);
  assert.ok(stops > 0, 'the new entry stopped before its first LLM call');
  // No modal or notification stopped it on the way.
  assert.equal(await page.locator('.notification-toast', { hasText: /OPENAI_API_KEY|ECONNREFUSED/ }).count(), 0);
  await shot(page, 'start-f5-done');
  // The Rollouts view: the run under its launch name with its reward; an episode opens as a
  // chat transcript (Markdown preview).
  const rolloutsHeader = page.locator('.pane-header', { hasText: /^Rollouts$/i }).first();
  if ((await rolloutsHeader.getAttribute('aria-expanded')) !== 'true') await rolloutsHeader.click();
  const rolloutsPane = page.locator('.pane', { has: rolloutsHeader });
  const runRow = rolloutsPane.locator('.monaco-list-row', { hasText: 'Debug first_agent rollout' }).first();
  await runRow.waitFor({ timeout: 30000 });
  assert.match(await runRow.innerText(), /reward \d\.\d\d/);
  await runRow.click();
  const episodeRow = rolloutsPane.locator('.monaco-list-row', { hasText: 'T0#R0' }).first();
  await episodeRow.waitFor({ timeout: 30000 });
  await episodeRow.click();
  await page.locator('.tab', { hasText: /Preview T0_R0/ }).waitFor({ timeout: 30000 });
  // The preview is a webview (nested frames): find the frame that renders the transcript.
  let transcript = '';
  for (let i = 0; i < 90 && !(/LLM call #1/.test(transcript) && /Reward: [01]/.test(transcript)); i++) {
    await new Promise((r) => setTimeout(r, 500));
    for (const f of page.frames()) {
      const text = String(await f.evaluate('document.body ? document.body.innerText : ""').catch(() => ''));
      if (/Reward: [01]/.test(text)) transcript = text;
    }
  }
  await shot(page, 'start-transcript');
  assert.match(transcript, /LLM call #1/);
  assert.match(transcript, /Reward: [01]/);
  assert.match(transcript, /user/);
  await browser.close();
  browser = undefined;

  // Ctrl+C (SIGINT to the script) stops everything it started.
  const exited = new Promise<number | null>((r) => start!.on('exit', (c) => r(c)));
  start.kill('SIGINT');
  assert.equal(await exited, 0);
  for (let i = 0; i < 50 && processesOnPort(port).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(processesOnPort(port), [], 'processes left behind after Ctrl+C');
  await assert.rejects(fetch(`http://127.0.0.1:${modelPort}/v1/models`), 'the model server still answers after Ctrl+C');
  const trainers = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter((l) => l.includes('demo_trainer.py') && l.includes(sandbox));
  assert.deepEqual(trainers, [], 'the demo trainer still runs after Ctrl+C');
  // Edits, the wizard's project, runs and the demo's job dir all stayed in the git-ignored copy.
  assert.equal(gitStatus(), gitBefore, 'git status changed');
});
