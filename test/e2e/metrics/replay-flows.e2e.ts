// Debug this rollout, in the real workbench (packaged VSIX, Chromium): the demo run ("demo:
// simulated trainer", the stand-in for the GPU trainer; real rollouts of the tiny fixture model
// over the sample's tool-calling taskset) in the workspace as `npm start` leaves it; a Python
// breakpoint in the sample's reward function; a click on a step of the reward chart, an
// experience, "Debug this rollout": the debugger replays the recorded answers
// through the sample's workflow and stops in the reward function. Python breakpoints need the
// Python Debugger extension, which cannot be installed here: its attach glue is the test
// stand-in test/fixtures/debugpy-standin, packaged into a VSIX by this test.
// Screenshot: test-results/screenshots/metrics-debug-rollout.png.
// Then the same rollout with the sample workflow edited so its first request is not the recorded
// one: the replay stops where it diverged, the notification offers to go on against the live
// model (the launch entry's endpoint, the fixture model server), and "Go On Against the Live
// Model" runs the episode on to the reward function's breakpoint.
// Screenshots: metrics-replay-diverged.png (the offer), metrics-replay-live.png (the stop after it).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { runDemo, type DemoRow } from '../../harness/demo-run';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../../harness/model-server';
import { repoRoot, venvPython } from '../../harness/paths';
import { until } from '../../harness/wait';
import { pointAtStep } from '../charts';
import { openQuickInput } from '../palette';
import { openWorkbench, type Workbench } from '../workbench';

const skip = !modelRuntimeInstalled && 'node-llama-cpp not installed (bash scripts/setup.sh model)';
let tmp: string;
let workspace: string;
let job: string;
let standin: string;
let model: ModelServer | undefined;
let wb: Workbench | undefined;
let rows: DemoRow[] = [];

/** A row the sample's workflow replays to its reward: it ends with the model's answer. */
const answered = (r: DemoRow) => r.taskIndex !== null && r.messages.at(-1)?.role === 'assistant';

before(async () => {
  if (skip) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-e2e-replay-'));
  workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  job = path.join(workspace, '.agentrl', 'demo', 'demo-run');
  model = await startModelServer();
  rows = await runDemo({ jobDir: job, workspace, modelUrl: model.url, enough: (r) => r.some(answered) });
  // The sample's launch entry runs the workflow on the test venv's Python (it has debugpy for the
  // Python breakpoints); Debug this rollout takes the interpreter of the entry of the same config.
  const launch = path.join(workspace, '.vscode', 'launch.json');
  const entries = fs.readFileSync(launch, 'utf8');
  assert.ok(entries.includes('"name": "Debug toolcall rollouts",'));
  // Its model endpoint is what a diverged replay goes on against: the fixture model server.
  assert.ok(entries.includes('http://127.0.0.1:8089/v1'));
  fs.writeFileSync(
    launch,
    entries
      .replace('"name": "Debug toolcall rollouts",', `"name": "Debug toolcall rollouts",\n      "python": ${JSON.stringify(venvPython)},`)
      .replace('http://127.0.0.1:8089/v1', model.url),
  );
  // What `npm start` leaves in its sandbox: the extension connects the metrics view to the demo.
  fs.writeFileSync(
    path.join(workspace, '.agentrl', 'sandbox.json'),
    JSON.stringify({ model: model.url, demo: { jobDir: path.relative(workspace, job), name: 'demo: simulated trainer' } }),
  );
  const pkg = path.join(tmp, 'debugpy-standin');
  fs.cpSync(path.join(repoRoot, 'test', 'fixtures', 'debugpy-standin'), pkg, { recursive: true });
  standin = path.join(tmp, 'debugpy-standin.vsix');
  const vsce = spawnSync(
    path.join(repoRoot, 'node_modules', '.bin', 'vsce'),
    ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', standin],
    { cwd: pkg, encoding: 'utf8' },
  );
  assert.equal(vsce.status, 0, vsce.stderr);
});

after(async () => {
  await wb?.close();
  await model?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Shows the metrics, clicks the step of an experience the workflow replays to its reward, opens
 *  the step's experiences until one of those, and clicks Debug this rollout. */
async function debugAnsweredRollout(w: Workbench): Promise<void> {
  const page = w.page;
  const target = rows.find(answered)!;
  const meta = JSON.parse(fs.readFileSync(path.join(job, 'explorer_meta.json'), 'utf8')) as { latest_iteration: number };
  const steps = meta.latest_iteration + 1;
  await w.runCommand('Agent RL: Show Training Metrics');
  const view = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await view.locator('.card[data-chart="rollout/accuracy/mean"] canvas').first().waitFor({ timeout: 90_000 });
  const at = await pointAtStep(view, 'rollout/accuracy/mean', target.modelVersion, steps);
  await page.mouse.click(at.x, at.y);
  const drill = view.locator('aside.drill');
  await drill.locator('tr.rollout').first().waitFor({ timeout: 60_000 });
  // The experience: open each of the step's until one the workflow replays to its reward (its id in the heading).
  const list = drill.locator('tr.rollout');
  const heading = drill.locator('.detail h3');
  let found = false;
  let shown = '';
  for (let i = 0; i < (await list.count()) && !found; i++) {
    await list.nth(i).click();
    // The heading names the opened experience once its messages arrived (the previous one's until then).
    const before = shown;
    shown = await until('the opened experience', async () => {
      const t = (await heading.count()) ? await heading.innerText() : '';
      return /#\d+/.test(t) && t !== before && t;
    });
    const id = Number(/#(\d+)/.exec(shown)?.[1]);
    found = rows.some((r) => r.id === id && answered(r));
  }
  assert.ok(found, 'an experience of the step ends with the model answer');
  await drill.locator('.detail button.debug-rollout').click();
}

test('a step, an experience, Debug this rollout: the debugger stops in the sample reward function', { skip, timeout: 420_000 }, async () => {
  wb = await openWorkbench({ workspace, extraVsix: [standin], viewport: { width: 1440, height: 900 } });
  const page = wb.page;
  try {
    // A breakpoint on the reward's return line, set as a user does (go to the line, F9).
    const reward = path.join(workspace, 'toolcall', 'reward.py');
    const line = fs
      .readFileSync(reward, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('return {"accuracy"'));
    assert.ok(line > 0);
    // The sandbox opens the walkthrough once, on its first start: closed before the editor is used.
    await page.locator('.tab', { hasText: 'Walkthrough' }).waitFor({ timeout: 60_000 });
    await wb.runCommand('View: Close All Editors');
    await wb.openFile('toolcall/reward.py');
    const goTo = await openQuickInput(page, ['Control+G']);
    await goTo.fill(`:${line + 1}`);
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
    await page.keyboard.press('F9');
    await page.locator('.monaco-editor .codicon-debug-breakpoint').first().waitFor({ timeout: 30_000 });

    await debugAnsweredRollout(wb);
    // The replay runs the sample's workflow: its reward function stops on the breakpoint.
    await page
      .locator('.debug-call-stack .monaco-list-row', { hasText: /reward\.py|__call__/ })
      .first()
      .waitFor({ timeout: 180_000 });
    await page.locator('.tab.active', { hasText: 'reward.py' }).waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor .debug-top-stack-frame-line').first().waitFor({ timeout: 30_000 });
    const shot = await wb.screenshot('metrics-debug-rollout');
    assert.ok(fs.statSync(shot).size > 10_000);
    await wb.runCommand('Debug: Stop');
  } catch (e) {
    await wb.screenshot('metrics-debug-rollout-failed').catch(() => undefined);
    throw e;
  }
});

test(
  'the workflow changed since training: the replay stops where it diverged, the notification goes on against the live model, to the reward',
  { skip, timeout: 420_000 },
  async () => {
    assert.ok(wb, 'the workbench of the test before');
    const page = wb.page;
    // The workflow now opens with a system message the recording never had: LLM call 1 diverges.
    const wf = path.join(workspace, 'toolcall', 'workflow.py');
    const src = fs.readFileSync(wf, 'utf8');
    const edited = src.replace(
      'messages = [{"role": "user", "content": question}]',
      'messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": question}]',
    );
    assert.notEqual(edited, src, 'the sample workflow builds its first request as expected');
    fs.writeFileSync(wf, edited);
    try {
      await wb.runCommand('View: Close All Editors');
      await debugAnsweredRollout(wb);
      const offer = page.locator('.notifications-toasts .notification-toast', { hasText: /diverged at LLM call 1/ }).first();
      await offer.waitFor({ timeout: 180_000 });
      assert.match(await offer.innerText(), /The replay of Texp\d+#R0 diverged at LLM call 1: the workflow asked something the recording does not hold\./);
      // Stopped at the call that diverged, the reward not reached yet.
      await page
        .locator('.debug-call-stack .monaco-list-row', { hasText: /llm #1/ })
        .first()
        .waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('.debug-call-stack .monaco-list-row', { hasText: /reward\.py/ }).count(), 0);
      const diverged = await wb.screenshot('metrics-replay-diverged');
      assert.ok(fs.statSync(diverged).size > 10_000);
      await offer.getByRole('button', { name: 'Go On Against the Live Model' }).click();
      // The live model answers from call 1 on: the episode runs to the reward's breakpoint.
      await page
        .locator('.debug-call-stack .monaco-list-row', { hasText: /reward\.py|__call__/ })
        .first()
        .waitFor({ timeout: 240_000 });
      await page.locator('.tab.active', { hasText: 'reward.py' }).waitFor({ timeout: 30_000 });
      // The episode's thread runs again: its divergence stop has left the call stack.
      assert.equal(await page.locator('.debug-call-stack .monaco-list-row', { hasText: /replay diverged/i }).count(), 0);
      const live = await wb.screenshot('metrics-replay-live');
      assert.ok(fs.statSync(live).size > 10_000);
      await wb.runCommand('Debug: Stop');
    } catch (e) {
      await wb.screenshot('metrics-replay-live-failed').catch(() => undefined);
      throw e;
    } finally {
      fs.writeFileSync(wf, src);
    }
  },
);
