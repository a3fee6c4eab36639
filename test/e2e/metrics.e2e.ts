// The metrics view in the real workbench (packaged VSIX, Chromium), on a real relay reading
// tensorboardX event files and a SQLite experience buffer: the expected charts render with
// the pinned reward row first, the planted one-point spike is inside the envelope, the
// status bar shows the reward, clicking a step opens its rollouts. Screenshots in a dark and
// a light theme (test-results/screenshots/metrics-*.png).
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { FrameLocator } from 'playwright-core';
import { repoRoot, venvPython } from '../harness/paths';
import { emaSmooth } from '../../src/metrics/store/smoothing';
import { STATUS_SMOOTHING } from '../../src/metrics/view/status-model';
import { pointAtStep } from './charts';
import { attributesOf, openWorkbench, Workbench } from './workbench';

const FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py');
// More steps than the plot has pixels: buckets hold several steps, so the envelope matters.
const STEPS = 2000;
const SPIKE_STEP = 1234;
let tmp: string;
let relay: ChildProcess | undefined;
let url: string;
let lastReward: number;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-metrics-e2e-'));
  const job = path.join(tmp, 'qwen-grpo');
  const w = spawnSync(venvPython, [FIXTURE, 'write', job, '0', String(STEPS), '--spike', `${SPIKE_STEP}:5`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(w.status, 0, w.stderr);
  const expected = JSON.parse(w.stdout) as { tag: string; step: number; value: number }[];
  // The status bar shows the smoothed reward (EMA over the last 200 points).
  const rewards = expected
    .filter((e) => e.tag === 'rollout/accuracy/mean')
    .sort((a, b) => a.step - b.step)
    .map((e) => e.value);
  const sm = emaSmooth(rewards.slice(-200), STATUS_SMOOTHING);
  lastReward = sm[sm.length - 1];
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

/** Opens the view: through the `agentrl.metrics.endpoints` setting, or through the palette's
 *  "Connect to Training Run…" (URL + empty token, as a user types them). */
async function openView(theme: string, via: 'setting' | 'command'): Promise<{ wb: Workbench; view: FrameLocator }> {
  const settings = via === 'setting' ? { 'agentrl.metrics.endpoints': [{ name: 'explorer+trainer', url }] } : {};
  const wb = await openWorkbench({ colorTheme: theme, settings });
  if (via === 'setting') await wb.runCommand('Agent RL: Show Training Metrics');
  else {
    await wb.runCommand('Agent RL: Connect to Training Run…');
    const input = wb.page.locator('.quick-input-widget input');
    await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Relay URL…' }).click();
    await wb.page.locator('.quick-input-widget', { hasText: 'Relay URL' }).waitFor();
    await input.fill(url);
    await wb.page.keyboard.press('Enter');
    await wb.page.locator('.quick-input-widget', { hasText: 'Relay token' }).waitFor();
    await wb.page.keyboard.press('Enter');
  }
  const view = wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await view.locator('.card[data-chart="rollout/accuracy/mean"] canvas').first().waitFor({ timeout: 60000 });
  await view.locator('.chip.state-live').waitFor({ timeout: 60000 });
  return { wb, view };
}

for (const [theme, name, via] of [
  ['Default Dark Modern', 'dark', 'setting'],
  ['Default Light Modern', 'light', 'command'],
] as const) {
  test(`metrics view (${name} theme, endpoint from the ${via}): charts, envelope spike, status bar, drill-down`, async () => {
    const { wb, view } = await openView(theme, via);
    try {
      // The expected charts: pinned row first (reward, eval score, losses, response length).
      const pinned = view.locator('details.section.pinned .card');
      assert.deepEqual(await attributesOf(pinned, 'data-chart'), [
        'rollout/accuracy/mean',
        'critic/rewards/mean',
        'eval/gsm8k-eval/accuracy/mean_4',
        'actor/pg_loss',
        'actor/kl_loss',
        'response_length/mean',
      ]);
      // …then sections in Trinity's order.
      assert.deepEqual(await attributesOf(view.locator('details.section'), 'data-group'), ['', 'rollout', 'actor', 'critic', 'time', 'perf']);
      for (const group of ['rollout', 'critic']) assert.equal(await view.locator(`details.section[data-group="${group}"]`).count(), 1);
      // The planted one-point spike is inside the envelope of its bucket (hover legend).
      const spike = await pointAtStep(view, 'rollout/accuracy/mean', SPIKE_STEP, STEPS);
      assert.ok(spike.range[1] > spike.range[0], `bucket ${spike.range.join('–')} holds one step: the chart is not downsampled`);
      const legend = view.locator('.card[data-chart="rollout/accuracy/mean"] .legend');
      assert.match((await legend.locator('.envelope').innerText()).replace(/\s+/g, ' '), /max 5\b/);
      // Status bar: the latest reward mean and a trend arrow.
      const item = wb.page.locator('.statusbar-item', { hasText: String(Number(lastReward.toPrecision(4))) });
      await item.waitFor({ timeout: 30000 });
      assert.equal(await item.locator('.codicon[class*="codicon-arrow-"]').count(), 1);
      await wb.screenshot(`metrics-${name}`);
      // Click a step on the reward chart: the rollouts of its bucket's steps (4 a step).
      const at = await pointAtStep(view, 'rollout/accuracy/mean', 1500, STEPS);
      await wb.page.mouse.click(at.x, at.y);
      const drill = view.locator('aside.drill');
      await drill.locator('tr.rollout').first().waitFor({ timeout: 30000 });
      const steps = at.range[1] - at.range[0] + 1;
      assert.match(await drill.locator('header .title').innerText(), new RegExp(`step ${at.range[0]}.*model version ${at.range[0]}\\b`));
      assert.equal(await drill.locator('tr.rollout').count(), 4 * steps);
      assert.ok((await drill.locator('.histogram .bin').count()) > 0);
      // A histogram bin filters the list.
      const bins = drill.locator('.histogram .bin');
      for (let i = 0; i < (await bins.count()); i++) {
        if ((await bins.nth(i).locator('span').getAttribute('style'))?.includes('height: 0%')) continue;
        await bins.nth(i).click();
        break;
      }
      const shown = await drill.locator('tr.rollout').count();
      assert.ok(shown >= 1 && shown < 4 * steps, `a bin should filter the ${4 * steps} rollouts, ${shown} shown`);
      await drill.locator('tr.rollout').first().click();
      // …and open one: its messages, read from the SQL buffer through the relay.
      await drill.locator('.detail .message.role-assistant', { hasText: /The answer is \d+\./ }).waitFor({ timeout: 30000 });
      assert.match(await drill.locator('.detail .message.role-user').innerText(), /Task \d+: what is \d+ \+ \d+\?/);
      await wb.screenshot(`metrics-drill-${name}`);
      await drill.locator('header button').click();
      // Export a chart as PNG and its series as CSV (full resolution) through the save dialog.
      for (const [button, file] of [
        ['PNG', 'rollout_accuracy_mean.png'],
        ['CSV', 'rollout_accuracy_mean.csv'],
      ] as const) {
        await view.locator(`.card[data-chart="rollout/accuracy/mean"] .tools button`, { hasText: button }).click();
        const input = wb.page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 30000 });
        // The simple save dialog fills in the folder first, then our default file name.
        let value = '';
        for (let i = 0; i < 50 && !value.endsWith(file); i++, await new Promise((r) => setTimeout(r, 100))) value = await input.inputValue();
        assert.ok(value.endsWith(file), `save dialog proposes "${value}"`);
        await wb.page.keyboard.press('Enter');
        const target = path.join(wb.workspace, file);
        for (let i = 0; i < 100 && !fs.existsSync(target); i++) await new Promise((r) => setTimeout(r, 100));
        const bytes = fs.readFileSync(target);
        if (button === 'PNG') assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
        else assert.equal(bytes.toString().trim().split('\n').length, STEPS + 1, 'CSV: a header and every point');
      }
      // The tag filter (a regular expression; a broken one says so and hides nothing).
      const filter = view.locator('.toolbar input.filter');
      await filter.fill('^actor/');
      await view.locator('.card[data-chart="rollout/accuracy/mean"]').waitFor({ state: 'hidden' });
      assert.deepEqual((await attributesOf(view.locator('.card:visible'), 'data-chart')).sort(), ['actor/entropy', 'actor/kl_loss', 'actor/pg_loss']);
      await filter.fill('actor/(');
      await view.locator('.filter-error').waitFor();
      await filter.fill('');
      await view.locator('.card[data-chart="rollout/accuracy/mean"]').waitFor();
    } finally {
      await wb.close();
    }
  });
}
