// The drill-down's replay buttons in the real metrics webview (Chromium) against the real view
// controller: a click on a step opens its experiences, one opens with its messages; "Debug this
// rollout" reaches the extension side as the experience's reference; "Re-score this step" asks
// for that step's model version and draws what comes back: the summary with the counts, the
// changed rows first and marked, the flipped advantages marked.
// Screenshot: test-results/screenshots/metrics-rescore.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import type { ExperienceRef } from '../../../../src/metrics/protocol/experience-rows';
import type { RescoreResult } from '../../../../src/metrics/protocol/rescore';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import type { HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { screenshotsDir } from '../../../harness/paths';
import { openWebviewPage } from '../../../harness/webview-page';
import { until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
strings.debugRollout = 'Debug this rollout';
strings.rescoreStep = 'Re-score this step';
strings.rescoreSummary = 'Steps {0}–{1}: {2} of {3} changed, {4} flips';

test('Debug this rollout sends the experience; Re-score this step draws recorded vs now with changes and flips marked', { timeout: 90_000 }, async () => {
  const store = new MetricsStore();
  for (let s = 0; s < 10; s++) store.add('r', 'explorer', 'rollout/accuracy/mean', [{ step: s, wallTime: s, value: s / 10 }]);
  for (let s = 0; s < 10; s++) store.add('r', 'explorer', 'rollout/model_version', [{ step: s, wallTime: s, value: s }]);
  store.addExperiences(
    'e',
    'sql:buf',
    'r',
    Array.from({ length: 40 }, (_, i) => ({
      id: i + 1,
      table: 'buf',
      task_id: `t${i % 2}`,
      run_id: i % 4,
      model_version: Math.floor(i / 4),
      reward: i % 4 === 0 ? 1 : 0,
      timestamp: null,
    })),
  );
  const asked: { endpoint: string; steps: [number, number] }[] = [];
  const debugged: ExperienceRef[] = [];
  let toPage: (m: HostMessage) => void = () => undefined;
  const ctl = new ViewController(
    store,
    {
      post: (m) => toPage(m as HostMessage),
      readExperience: (ref) => Promise.resolve({ ref, messages: [{ role: 'user', content: `task of #${ref.id}` }], fields: [] }),
      rescore: (endpoint, steps) => {
        asked.push({ endpoint, steps });
        const [v] = steps;
        const result: RescoreResult = {
          steps,
          rows: [0, 1, 2, 3].map((k) => ({
            id: v * 4 + k + 1,
            step: v,
            task_index: 0,
            recorded: k === 0 ? 1 : 0,
            now: k === 1 ? 1 : k === 0 ? 1 : 0,
            advantage_recorded: k === 0 ? 1.5 : -0.5,
            advantage_now: k < 2 ? 1 : -1,
            error: null,
          })),
          changed: 1,
          flips: 1,
        };
        return Promise.resolve(result);
      },
    },
    silentLogger,
    strings,
  );
  ctl.on('debugRollout', (ref) => debugged.push(ref));
  const wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m), viewport: { width: 1280, height: 900 } });
  toPage = (m) => void wp.post(m).catch(() => undefined);
  const page = wp.page;
  try {
    const plot = page.locator('.card[data-chart="rollout/accuracy/mean"] .u-over');
    await plot.waitFor({ timeout: 30_000 });
    const box = (await plot.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const drill = page.locator('aside.drill');
    await drill.locator('tr.rollout').first().waitFor({ timeout: 30_000 });
    await drill.locator('tr.rollout').first().click();
    const heading = await until('the opened experience', async () => {
      const t = (await drill.locator('.detail h3').count()) ? await drill.locator('.detail h3').innerText() : '';
      return /#\d+/.test(t) && t;
    });
    const id = Number(/#(\d+)/.exec(heading)![1]);
    await drill.locator('.detail button.debug-rollout', { hasText: 'Debug this rollout' }).click();
    await until('the debug request reached the extension side', () => debugged.length === 1);
    assert.deepEqual({ endpoint: debugged[0].endpoint, source: debugged[0].source, id: debugged[0].id }, { endpoint: 'e', source: 'sql:buf', id });

    await drill.locator('button.rescore-step').click();
    const summary = drill.locator('.rescore-summary');
    await summary.waitFor({ timeout: 30_000 });
    const version = Math.floor((id - 1) / 4);
    assert.deepEqual(asked, [{ endpoint: 'e', steps: [version, version] }], "the drilled step's model version");
    assert.equal(await summary.innerText(), `Steps ${version}–${version}: 1 of 4 changed, 1 flips`);
    const rows = drill.locator('.rescore-rows tr[data-id]');
    assert.equal(await rows.count(), 4);
    // The changed row first, then the flipped one.
    assert.equal(await rows.nth(0).getAttribute('class'), 'changed flipped');
    assert.equal(await rows.nth(0).getAttribute('data-id'), String(version * 4 + 2));
    assert.equal(await drill.locator('.rescore-rows tr.flipped').count(), 1);
    fs.mkdirSync(screenshotsDir, { recursive: true });
    await drill.locator('.rescore').screenshot({ path: path.join(screenshotsDir, 'metrics-rescore.png') });
  } finally {
    ctl.dispose();
    await wp.close();
  }
});
