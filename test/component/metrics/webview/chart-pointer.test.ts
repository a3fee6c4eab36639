// A click on a live chart opens the step the pointer is over, as drawn: new points arrive and
// the chart re-buckets its x axis (a longer run, wider buckets) between one frame and the next;
// a click in that gap (the data has changed, the plot not yet redrawn) opens the bucket the user
// sees under the pointer — the same one a click before the data changed opens — not the bucket
// with that index in the new data (hovered 138, opened 140). In the real webview, in Chromium.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../../src/base/log';
import { HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { openWebviewPage } from '../../../harness/webview-page';
import { sleep, until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const TAG = 'rollout/accuracy/mean';

type Drill = { type: 'drill'; x: [number, number] };

/** Dispatches the held host messages and clicks the chart's plot at (x, y), in one task (no frame between). */
const RACE = `(args) => {
  const over = document.querySelector('.card .u-over');
  const r = over.getBoundingClientRect();
  const at = { clientX: r.left + args.x, clientY: r.top + args.y, bubbles: true };
  for (const m of args.messages) window.dispatchEvent(new MessageEvent('message', { data: m }));
  over.dispatchEvent(new MouseEvent('mousedown', at));
  over.dispatchEvent(new MouseEvent('click', at));
}`;

test(
  'a click on a live chart opens the step under the pointer, even when new points re-bucket the axis before the next frame',
  { timeout: 120_000 },
  async () => {
    const store = new MetricsStore();
    let hold: HostMessage[] | undefined;
    let toPage: (m: HostMessage) => void = () => undefined;
    const ctl = new ViewController(store, { post: (m) => (hold ? hold.push(m as HostMessage) : toPage(m as HostMessage)) }, silentLogger, strings, {
      smoothing: 0,
    });
    const drills: Drill[] = [];
    const wp = await openWebviewPage({ onMessage: (m) => ((m as Drill).type === 'drill' ? drills.push(m as Drill) : ctl.receive(m)) });
    toPage = (m) => void wp.post(m).catch(() => undefined);
    const points = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ({ step: from + i, wallTime: from + i, value: ((from + i) % 7) / 7 }));
    try {
      ctl.addPoints('r', 'explorer', TAG, points(0, 3000));
      await until('the chart drawn', () => wp.page.evaluate<boolean>("!!document.querySelector('.card canvas')"), 30_000);
      await sleep(500);
      const box = await wp.page.evaluate<{ w: number; h: number; left: number; top: number }>(
        "(() => { const r = document.querySelector('.card .u-over').getBoundingClientRect(); return { w: r.width, h: r.height, left: r.left, top: r.top }; })()",
      );
      const x = Math.round(box.w * 0.7);
      const y = Math.round(box.h / 2);
      await wp.page.mouse.move(box.left + x, box.top + y);
      await sleep(200);
      // A click with nothing changing: the bucket under the pointer.
      await wp.page.evaluate(`(${RACE})(${JSON.stringify({ x, y, messages: [] })})`);
      await until('the first drill', () => drills.length === 1, 10_000);
      const seen = drills[0].x;
      // The run goes on: many more points, wider buckets. Their data reaches the page in the same
      // task as a click at the same spot, before the chart draws them.
      hold = [];
      ctl.addPoints('r', 'explorer', TAG, points(3000, 30000));
      await until('the new data posted', () => (hold?.length ?? 0) > 0, 10_000);
      await sleep(300); // the controller's batched posts
      const messages = hold;
      hold = undefined;
      await wp.page.evaluate(`(${RACE})(${JSON.stringify({ x, y, messages })})`);
      await until('the second drill', () => drills.length === 2, 10_000);
      assert.deepEqual(drills[1].x, seen, `the click opened steps ${drills[1].x.join('–')}, the pointer was over ${seen.join('–')}`);
    } finally {
      ctl.dispose();
      await wp.close();
    }
  },
);
