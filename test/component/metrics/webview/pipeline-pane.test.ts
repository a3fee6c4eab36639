// The Pipeline view in the real metrics webview bundle (Chromium), fed by a real relay
// (`agentrl relay --job-dir`) through a real ViewController: a job dir written the way Trinity
// writes it (test/harness/pipeline-run.ts; the bottleneck moves from the explorer to stragglers)
// with Ray's real timeline.json (test/fixtures/pipeline/ray-timeline.json, written by Ray 2.58.0
// here) read by the relay in windows. Then the same with a truncated timeline.json, and none.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { english } from '../../../../src/base/l10n';
import { silentLogger } from '../../../../src/base/log';
import { readRunConfig } from '../../../../src/pipeline/advice';
import { UI_STRING_KEYS, type UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import type { HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { RelayClient } from '../../../../src/relay-protocol/client';
import { repoRoot } from '../../../harness/paths';
import { type StepPlan, repeat, simulate, writeJob } from '../../../harness/pipeline-run';
import { startRelay } from '../../../harness/relay';
import { openWebviewPage } from '../../../harness/webview-page';
import { until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const EXPLORER: StepPlan = { runs: [10, 10.5, 9.8, 10.2], train: 3, sync: 0.5 };
const STRAGGLERS: StepPlan = { runs: [2, 2.2, 1.9, 12], train: 3, sync: 0.5 };
const realTimeline = path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray-timeline.json');
const shots = process.env.AGENTRL_SCREENSHOTS ?? path.join(os.tmpdir(), 'agentrl-screenshots');

async function showJob(timeline: 'real' | 'truncated' | 'none', shot: string) {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-pane-')), 'job');
  const config = JSON.stringify({ cluster: { node_num: 1, gpu_per_node: 8 }, explorer: { rollout_model: { engine_num: 2 } }, buffer: { batch_size: 4 } });
  writeJob(dir, simulate([...repeat(30, EXPLORER), ...repeat(30, STRAGGLERS)]), { config });
  if (timeline !== 'none') {
    fs.mkdirSync(path.join(dir, 'monitor'), { recursive: true });
    const text = fs.readFileSync(realTimeline, 'utf8');
    fs.writeFileSync(path.join(dir, 'monitor', 'timeline.json'), timeline === 'real' ? text : text.slice(0, Math.floor(text.length / 2)));
  }
  const relay = await startRelay(['--job-dir', dir]);
  const client = new RelayClient({ url: relay.url, experiences: false, backoff: { initialMs: 100, maxMs: 1000 } });
  let toPage: (m: HostMessage) => void = () => undefined;
  const ctl = new ViewController(
    new MetricsStore(),
    {
      post: (m) => toPage(m as HostMessage),
      pipeline: {
        config: () => readRunConfig(dir),
        readTimeline: (run, from, to, maxEvents) => client.requestTimeline({ run, from, to, maxEvents }),
      },
    },
    silentLogger,
    strings,
    {},
    english,
  );
  client.on('points', (b) => ctl.ingest('relay', b));
  client.start();
  const wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m), viewport: { width: 1280, height: 1100 } });
  toPage = (m) => void wp.post(m).catch(() => undefined);
  const close = async () => {
    ctl.dispose();
    await wp.close();
    await client.close();
    await relay.stop();
  };
  try {
    await until('the view switch', () => wp.page.$('.view-tab[data-view="pipeline"]'), 30_000);
    await wp.page.click('.view-tab[data-view="pipeline"]');
    await until('the verdict', async () => /stragglers hold every step/.test((await wp.page.textContent('.pipeline-verdict')) ?? ''), 30_000);
    return {
      wp,
      ctl,
      dir,
      close,
      shot: async () => {
        fs.mkdirSync(shots, { recursive: true });
        await wp.page.screenshot({ path: path.join(shots, shot), fullPage: true });
      },
    };
  } catch (e) {
    await close();
    throw e;
  }
}

test(
  'the Pipeline view of a job: the verdict and when it changed, evidence, advice, bars, and Ray timeline lanes read through the relay',
  { timeout: 120_000 },
  async () => {
    const v = await showJob('real', 'pipeline-view.png');
    try {
      const page = v.wp.page;
      assert.match((await page.textContent('.pipeline-changes')) ?? '', /At step \d+ the bottleneck moved from the explorer to stragglers\./);
      const evidence = await page.evaluate<string[]>(`[...document.querySelectorAll('.pipeline-evidence-item')].map((x) => x.textContent)`);
      assert.ok(
        evidence.some((e) => /waiting for the slowest tasks/.test(e)),
        evidence.join(' | '),
      );
      const keys = await page.evaluate<string[]>(`[...document.querySelectorAll('.pipeline-key')].map((x) => x.dataset.key)`);
      assert.ok(keys.includes('explorer.over_rollout.ratio'), keys.join(', '));
      assert.equal(await page.$$eval('.pipeline-bars canvas', (c) => c.length), 2);
      // the lanes of the real timeline: actors named, events drawn
      await until('the timeline note', async () => /zoom/.test((await page.textContent('.pipeline-timeline .pipeline-note')) ?? ''), 30_000);
      const lanesHeight = await page.$eval('.timeline-lanes canvas', (c) => (c as unknown as { height: number }).height);
      assert.ok(lanesHeight > 100, `lanes drawn (${lanesHeight}px)`);
      // hover an event: its name and duration
      const box = (await page.$('.timeline-lanes canvas'))!;
      const b = (await box.boundingBox())!;
      let tip = '';
      for (let y = 8; y < b.height && !tip; y += 22)
        for (let x = 190; x < b.width && !tip; x += 7) {
          await page.mouse.move(b.x + x, b.y + y);
          tip = await page.evaluate<string>(
            `(() => { const t = document.querySelector('.timeline-lanes .pipeline-tip'); return t.hidden ? '' : t.textContent; })()`,
          );
        }
      assert.match(tip, /· \d+(\.\d+)? (ms|µs|s)\n/, tip);
      // evidence click: back to the charts, filtered to its tags
      await page.click('.pipeline-evidence-item');
      await until('the charts shown', () => page.evaluate<boolean>(`document.querySelector('.view-tab[data-view="charts"]').classList.contains('selected')`));
      assert.match(await page.$eval('.filter', (i) => (i as unknown as { value: string }).value), /^\^\(.*time.*\)\$$/);
      await page.click('.view-tab[data-view="pipeline"]');
      await v.shot();
    } finally {
      await v.close();
    }
  },
);

test('a truncated timeline.json: said, and what came before the cut drawn; none: how to turn it on', { timeout: 120_000 }, async () => {
  const cut = await showJob('truncated', 'pipeline-truncated-timeline.png');
  try {
    await until('the truncation said', async () => /truncated\?/.test((await cut.wp.page.textContent('.pipeline-timeline .pipeline-note')) ?? ''), 30_000);
    assert.ok((await cut.wp.page.$eval('.timeline-lanes canvas', (c) => (c as unknown as { height: number }).height)) > 50);
    await cut.shot();
  } finally {
    await cut.close();
  }
  const none = await showJob('none', 'pipeline-no-timeline.png');
  try {
    await until(
      'how to turn it on',
      async () => /monitor\.enable_ray_timeline: true/.test((await none.wp.page.textContent('.pipeline-timeline .pipeline-note')) ?? ''),
      30_000,
    );
  } finally {
    await none.close();
  }
});
