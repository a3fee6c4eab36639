// The Pipeline view in the real workbench (packaged VSIX, Chromium) on the demo run
// ("Agent RL: Start Demo Run": demo/demo_trainer.py, the stand-in trainer, logs Trinity's time/*
// tags with a bottleneck that moves from the explorer to stragglers): the switch beside the
// charts, the verdict with its numbers, a link of the advice that opens the run's config at the
// key with its value selected, the verdict changing as the run goes, and what the view says
// when the job dir has no Ray timeline. Screenshots: test-results/screenshots/pipeline-*.png.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { openWorkbench } from '../../workbench';

test('the demo run in the Pipeline view: verdict, evidence, a config link opening the key, the verdict changing', { timeout: 600_000 }, async () => {
  const wb = await openWorkbench({ viewport: { width: 1400, height: 1000 } });
  try {
    await wb.runCommand('Agent RL: Start Demo Run');
    const view = wb.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const tab = view.locator('.view-tab[data-view="pipeline"]');
    await tab.waitFor({ timeout: 120_000 });
    assert.equal(await tab.innerText(), 'Pipeline');
    await tab.click();
    const verdict = view.locator('.pipeline-verdict');
    await verdict.filter({ hasText: /the explorer is the bottleneck/ }).waitFor({ timeout: 120_000 });
    assert.match(await verdict.innerText(), /^Since step \d+ the trainer waits for experiences \d+ % of its time: the explorer is the bottleneck\.$/);
    assert.ok((await view.locator('.pipeline-evidence-item').count()) > 0);
    // no timeline.json in the demo's job dir: how to turn it on
    await view.locator('.pipeline-timeline .pipeline-note', { hasText: 'monitor.enable_ray_timeline: true' }).waitFor({ timeout: 60_000 });
    await wb.screenshot('pipeline-demo-explorer');

    // the advice: the engines, now 2 (the demo's config), to 3, and the 8 GPUs leave room
    const link = view.locator('.pipeline-key[data-key="explorer.rollout_model.engine_num"]');
    assert.match(await link.innerText(), /^explorer\.rollout_model\.engine_num: 2 → 3$/);
    await link.click();
    await wb.page.locator('.tab.active', { hasText: 'config.json' }).waitFor({ timeout: 60_000 });
    // the value of the key selected: one character ("2"), on the key's line
    const selection = wb.page.locator('.statusbar-item', { hasText: /\(1 selected\)/ });
    await selection.waitFor({ timeout: 30_000 });
    const line = wb.page.locator('.editor-group-container.active .view-line', { hasText: '"engine_num": 2' });
    await line.waitFor({ timeout: 30_000 });
    await wb.screenshot('pipeline-config-at-key');

    // back to the view: the demo's curriculum change makes stragglers the bottleneck, said with when
    await wb.runCommand('Agent RL: Show Training Metrics');
    await view.locator('.view-tab[data-view="pipeline"].selected').waitFor({ timeout: 60_000 });
    await verdict.filter({ hasText: /stragglers hold every step/ }).waitFor({ timeout: 240_000 });
    await view.locator('.pipeline-changes', { hasText: /the bottleneck moved from the explorer to stragglers/ }).waitFor({ timeout: 30_000 });
    await wb.screenshot('pipeline-demo-stragglers');
  } finally {
    await wb.close();
  }
});
