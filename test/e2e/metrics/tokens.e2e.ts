// Inside a rollout, in the real workbench (packaged VSIX, Chromium): a Trinity-shaped job dir
// whose SQL buffer rows carry tensors (the fixture model's chat-template ids, logprobs, action
// mask, GRPO advantages; rollout 3 of each group truncated) and whose config copy names the
// fixture model's folder. The metrics view starts its own relay for the job dir; a click on the
// reward chart opens the step's rollouts with the health line above them, a rollout opens its
// GRPO group with its flags, and "Tokens" draws the token view with texts from the run's
// tokenizer. Screenshots: test-results/screenshots/metrics-tokens-*.png.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { tokenizeAndMask } from '../../../src/tokens/chat-template';
import { repoRoot, venvPython } from '../../harness/paths';
import { skipNoTokenizer, tinyTokenizer, tinyTokenizerDir } from '../../harness/tiny-tokenizer';
import { pointAtStep } from '../charts';
import { openWorkbench } from '../workbench';

const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py');
const STEPS = 40;
const CLICKED = 20;
let tmp: string;
let job: string;
let workspace: string;
const lengths = new Map<string, { tokens: number; promptLength: number }>();

before(() => {
  if (skipNoTokenizer) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-metrics-tokens-e2e-'));
  // The job dir sits in the workspace, as a local run's would.
  workspace = path.join(tmp, 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), workspace, { recursive: true });
  job = path.join(workspace, 'runs', 'qwen-grpo');
  // The rollouts' messages as the fixture writes them, tokenized as the model's chat template does.
  const tok = tinyTokenizer();
  const tokens: Record<string, { tokens: number[]; prompt_length: number; action_mask: number[] }> = {};
  for (let step = 0; step < STEPS; step++)
    for (let i = 0; i < 4; i++) {
      const t = tokenizeAndMask(tok, [
        { role: 'system', content: 'You are a helpful math assistant.' },
        { role: 'user', content: `Task ${step}: what is ${step} + ${i}?` },
        { role: 'assistant', content: `The answer is ${step + i}.` },
      ]);
      tokens[`${step}:${i}`] = { tokens: Array.from(t.ids), prompt_length: t.promptLength, action_mask: Array.from(t.mask.subarray(t.promptLength)) };
      lengths.set(`${step}:${i}`, { tokens: t.ids.length, promptLength: t.promptLength });
    }
  const file = path.join(tmp, 'tokens.json');
  fs.writeFileSync(file, JSON.stringify(tokens));
  const w = spawnSync(venvPython, [FIXTURE, 'write', job, '0', String(STEPS), '--tokens', file, '--model-path', tinyTokenizerDir], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(w.status, 0, w.stderr);
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

for (const [theme, name] of [
  ['Default Dark Modern', 'dark'],
  ['Default Light Modern', 'light'],
] as const) {
  test(
    `metrics drill-down (${name} theme): step → rollout → its GRPO group with flags → Tokens draws the token view`,
    { skip: skipNoTokenizer, timeout: 300_000 },
    async () => {
      const wb = await openWorkbench({ colorTheme: theme, workspace });
      try {
        // "Connect to Training Run…" → "Local job directory…" → the folder, as a user picks it.
        await wb.runCommand('Agent RL: Connect to Training Run…');
        await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Local job directory…' }).click();
        const input = wb.page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 30000 });
        // The dialog lists the job dir's entries once it has taken the typed path. Its listing of
        // the folder it opened on can land later and put that folder back in the input: then the
        // path is typed again, so Enter never accepts the workspace instead of the job dir.
        const jobEntry = wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'monitor' }).first();
        const typed = async () => (await input.inputValue()).replace(/[\\/]+$/, '') === job;
        // The simple folder dialog goes into the folder on the first Enter and takes it on the next.
        for (let i = 0; i < 4 && (await input.isVisible()); i++) {
          // Until the dialog lists the job dir: under load a late listing can replace the typed
          // path more than once, so the path is typed again each time that happened.
          for (let tries = 0; !(await typed()) || !(await jobEntry.isVisible()); tries++) {
            if (tries === 30) throw new Error(`the folder dialog never listed ${job}: its input shows "${await input.inputValue()}"`);
            if (!(await typed())) await input.fill(job + '/');
            await jobEntry.waitFor({ timeout: 2000 }).catch(() => undefined);
          }
          await wb.page.keyboard.press('Enter');
          await wb.page
            .locator('.quick-input-widget')
            .waitFor({ state: 'hidden', timeout: 3000 })
            .catch(() => undefined);
        }
        const view = wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
        await view.locator('.chip', { hasText: 'qwen-grpo' }).first().waitFor({ timeout: 30000 });
        await view.locator('.card[data-chart="rollout/accuracy/mean"] canvas').first().waitFor({ timeout: 90000 });
        await view.locator('.chip.state-live').waitFor({ timeout: 90000 });
        const at = await pointAtStep(view, 'rollout/accuracy/mean', CLICKED, STEPS);
        await wb.page.mouse.click(at.x, at.y);
        const drill = view.locator('aside.drill');
        await drill.locator('tr.rollout').first().waitFor({ timeout: 30000 });
        // The step's health: one group of 4, its rollout 3 truncated; its rewards differ (a gradient).
        assert.equal(
          await drill.locator('.health').innerText(),
          '0 of 1 groups give no gradient · 1 of 4 responses truncated · 0 empty · 0 with nothing trained',
        );
        await drill.locator('tr.rollout').first().click();
        await drill.locator('.detail .message.role-assistant', { hasText: /The answer is \d+\./ }).waitFor({ timeout: 30000 });
        // The group side by side: length, trained tokens, truncation, and its flag.
        const group = drill.locator('.group');
        assert.deepEqual(await group.locator('ul.group-flags li').allInnerTexts(), ['1 of 4 responses truncated']);
        const rowOf = async (label: string) =>
          group
            .locator('tr', { has: wb.page.locator(`th:text-is("${label}")`) })
            .locator('td')
            .allInnerTexts();
        const len = lengths.get(`${CLICKED}:0`)!;
        assert.equal((await rowOf('Length'))[0], String(len.tokens - len.promptLength));
        assert.deepEqual(await rowOf('truncated'), ['', '', '', '✂']);
        await group.scrollIntoViewIfNeeded();
        await wb.screenshot(`metrics-tokens-group-${name}`);
        // Tokens: asked of the relay, drawn by the token view with the run's tokenizer's texts.
        await drill.locator('.detail button.open-tokens').click();
        const tv = drill.locator('.tokens .tv');
        await tv.locator('.tv-tok').first().waitFor({ timeout: 30000 });
        assert.match(await tv.locator('.tv-summary').innerText(), new RegExp(`\\b${len.tokens} tokens\\b`));
        assert.match(await tv.locator('.tv-notes').innerText(), /tokenizer of .*tiny-toolcall/);
        const text = (await tv.locator('.tv-window').innerText()).replace(/\s+/g, ' ');
        // Whitespace is drawn visible (· for a space).
        assert.match(text, new RegExp(`The·answer·is·${CLICKED}\\.`));
        assert.match(text, /im_start/);
        await tv.scrollIntoViewIfNeeded();
        await wb.screenshot(`metrics-tokens-${name}`);
      } catch (e) {
        await wb.screenshot(`metrics-tokens-failed-${name}`);
        throw e;
      } finally {
        await wb.close();
      }
    },
  );
}
