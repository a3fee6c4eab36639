// Far-off-screen cards give their plot back (board.ts KEEP_MARGIN): with many tags the real
// metrics webview in Chromium keeps canvases only near the window, so the renderer's memory
// follows the window rather than the number of tags; a card scrolled back into view draws
// again from the data it kept, without asking the host.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { openWebviewPage } from '../../../harness/webview-page';
import { until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const TAGS = Array.from({ length: 60 }, (_, i) => `actor/metric_${String(i).padStart(2, '0')}`);

type Probe = { charts: { id: string; visible: boolean; drawn: boolean }[] };

test('cards far off screen release their canvas; scrolled back, they draw again from their data', { timeout: 90_000 }, async () => {
  const store = new MetricsStore();
  let toPage: (m: HostMessage) => void = () => undefined;
  const ctl = new ViewController(store, { post: (m) => toPage(m as HostMessage) }, silentLogger, strings, { smoothing: 0 });
  const wp = await openWebviewPage({ onMessage: (m) => ctl.receive(m), viewport: { width: 1280, height: 700 } });
  toPage = (m) => void wp.post(m).catch(() => undefined);
  const canvases = () => wp.page.evaluate<number>('document.querySelectorAll(".card canvas").length');
  const scroll = (to: 'top' | 'bottom') => wp.page.evaluate(to === 'top' ? 'window.scrollTo(0, 0)' : 'window.scrollTo(0, document.body.scrollHeight)');
  const probe = async () => ((await ctl.probe(5000)) as Probe | undefined)?.charts ?? [];
  try {
    for (const tag of TAGS)
      ctl.addPoints(
        'r',
        'trainer',
        tag,
        Array.from({ length: 200 }, (_, i) => ({ step: i, wallTime: i, value: Math.sin(i) })),
      );
    const first = async () => (await probe()).find((c) => c.id.includes(TAGS[0]));
    await until('the first card drawn', async () => (await first())?.drawn === true, 30_000);
    const atTop = await canvases();
    assert.ok(atTop > 0 && atTop < TAGS.length / 2, `${atTop} canvases at the top of ${TAGS.length} cards`);

    await scroll('bottom');
    const last = async () => (await probe()).find((c) => c.id.includes(TAGS[TAGS.length - 1]));
    await until('the last card drawn', async () => (await last())?.drawn === true, 30_000);
    await until('the first card released its plot', async () => (await first())?.drawn === false);
    const atBottom = await canvases();
    assert.ok(atBottom < TAGS.length / 2, `${atBottom} canvases at the bottom: the cards scrolled past gave theirs back`);

    await scroll('top');
    await until('the first card drawn again', async () => (await first())?.drawn === true, 30_000);
    await until('the last card released its plot', async () => (await last())?.drawn === false);
    const shown = await wp.page.evaluate<string>(`document.querySelector('.card[data-chart*="${TAGS[0]}"] .meta')?.textContent ?? ''`);
    assert.match(shown, /200/, `the first card shows its 200 points again (${shown})`);
  } finally {
    ctl.dispose();
    await wp.close();
  }
});
