// A layout repeats the specs of the cards already on the board (a run that opens adds its
// tags in bursts, each burst a new layout): in the real metrics webview in Chromium, the
// cards whose spec did not change are not drawn again — only the new card draws.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { openWebviewPage } from '../../../harness/webview-page';
import { sleep, until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const FIRST = ['actor/pg_loss', 'actor/entropy', 'critic/score'];
const LATER = 'rollout/reward_mean';

type Probe = { charts: { id: string; drawn: boolean }[] };

/** Counts each canvas's clearRect calls (uPlot clears its canvas at every draw), by card. */
const COUNT_DRAWS = `(() => {
  const clear = CanvasRenderingContext2D.prototype.clearRect;
  window.__draws = {};
  CanvasRenderingContext2D.prototype.clearRect = function (...a) {
    const id = this.canvas.closest('.card')?.dataset.chart ?? '?';
    window.__draws[id] = (window.__draws[id] ?? 0) + 1;
    return clear.apply(this, a);
  };
})()`;

test('a layout that adds a card does not redraw the cards whose spec is unchanged', { timeout: 90_000 }, async () => {
  const store = new MetricsStore();
  let toPage: (m: HostMessage) => void = () => undefined;
  const ctl = new ViewController(store, { post: (m) => toPage(m as HostMessage) }, silentLogger, strings, { smoothing: 0 });
  const wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m) });
  toPage = (m) => void wp.post(m).catch(() => undefined);
  const points = Array.from({ length: 100 }, (_, i) => ({ step: i, wallTime: i, value: Math.cos(i) }));
  const drawn = async () => ((await ctl.probe(5000)) as Probe | undefined)?.charts.filter((c) => c.drawn).length ?? 0;
  const layouts: number[] = [];
  ctl.tap((m) => m.type === 'layout' && layouts.push(m.charts.length));
  try {
    for (const tag of FIRST) ctl.addPoints('r', 'trainer', tag, points);
    await until('the first cards drawn', async () => (await drawn()) === FIRST.length, 30_000);
    await sleep(300); // let any draw already queued finish
    await wp.page.evaluate(COUNT_DRAWS);
    const before = layouts.length;
    ctl.addPoints('r', 'trainer', LATER, points);
    await until('the new card drawn', async () => (await drawn()) === FIRST.length + 1, 30_000);
    await sleep(300);
    assert.ok(layouts.length > before && layouts[layouts.length - 1] === FIRST.length + 1, `a new layout with every card went out (${layouts.join(', ')})`);
    const draws = await wp.page.evaluate<Record<string, number>>('window.__draws');
    const redrawn = Object.keys(draws).filter((id) => !id.includes(LATER));
    assert.deepEqual(redrawn, [], `cards drawn again after the layout: ${JSON.stringify(draws)}`);
    assert.ok(
      Object.keys(draws).some((id) => id.includes(LATER)),
      `the new card drew (${JSON.stringify(draws)})`,
    );
  } finally {
    ctl.dispose();
    await wp.close();
  }
});
