// The page paces the host's updates: the real metrics webview in Chromium answers
// each `update` with `drawn` only once that update's charts are drawn, and the host's feed
// posts the next update only after that ack. The page's `drawn` messages carry, for this test,
// what each card header showed at the moment of the ack (the header is written in the same
// render as uPlot's draw), so "acked after drawing" is checked where it happens.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { DRAWN_TIMEOUT_MS, HostMessage } from '../../../../src/metrics/protocol/view-protocol';
import { openWebviewPage } from '../../../harness/webview-page';
import { sleep, until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const TAGS = ['rollout/accuracy/mean', 'actor/pg_loss', 'actor/entropy'];

type Drawn = { type: 'drawn'; seq: number; shown: Record<string, number> };

test('the webview acks an update with `drawn` after drawing it; the host waits for the ack', { timeout: 90_000 }, async () => {
  const store = new MetricsStore();
  let toPage: (m: HostMessage) => void = () => undefined;
  const ctl = new ViewController(store, { post: (m) => toPage(m as HostMessage) }, silentLogger, strings, { smoothing: 0 });
  const events: ({ kind: 'post'; t: number; seq: number; points: Record<string, number> } | { kind: 'ack'; seq: number; shown: Record<string, number> })[] = [];
  ctl.tap((m) => {
    if (m.type === 'update') events.push({ kind: 'post', t: Date.now(), seq: m.seq, points: Object.fromEntries(m.frames.map((f) => [f.chart, f.points])) });
  });
  const wp = await openWebviewPage({
    onMessage: (m) => {
      if ((m as Drawn).type === 'drawn') events.push({ kind: 'ack', seq: (m as Drawn).seq, shown: (m as Drawn).shown });
      ctl.receive(m);
    },
  });
  toPage = (m) => void wp.post(m).catch(() => undefined);
  try {
    // Each `drawn` leaving the page carries the point counts the card headers show right then.
    await wp.page.evaluate(() => {
      const w = globalThis as unknown as {
        __toHost: (m: unknown) => void;
        document: { querySelectorAll(s: string): { dataset: { chart: string }; querySelector(s: string): { textContent: string } | null }[] };
      };
      const toHost = w.__toHost;
      w.__toHost = (m: unknown) => {
        const msg = m as { type?: string };
        if (msg?.type !== 'drawn') return toHost(m);
        const shown: Record<string, number> = {};
        for (const card of w.document.querySelectorAll('.card'))
          shown[card.dataset.chart] = Number((card.querySelector('.meta')?.textContent ?? '').replace(/[^0-9]/g, '') || 0);
        toHost({ ...msg, shown });
      };
    });
    let step = 0;
    const add = (n: number) => {
      for (const tag of TAGS)
        ctl.addPoints(
          'r',
          'trainer',
          tag,
          Array.from({ length: n }, (_, i) => ({ step: step + i, wallTime: step + i, value: Math.sin(step + i) })),
        );
      step += n;
    };
    add(1);
    await until('every chart drawn', async () => (await ctl.probe(2000))?.charts.filter((c) => c.drawn).length === TAGS.length, 30_000);
    // Live data: a batch of 10 points per chart every 10 ms, for 2 s and until the host has
    // posted 10 updates (counted, not timed: a loaded machine draws fewer per second).
    const posted = () => events.filter((e) => e.kind === 'post').length;
    const before = posted();
    const t0 = Date.now();
    while (Date.now() - t0 < 2000 || posted() - before < 10) {
      if (Date.now() - t0 > 30_000) assert.fail(`${posted() - before} updates posted in 30 s of live data`);
      add(10);
      await sleep(10);
    }
    const shows = (chart: string) =>
      wp.page.evaluate(
        (c) =>
          Number(
            (
              (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector(
                `.card[data-chart="${c}"] .meta`,
              )?.textContent ?? ''
            ).replace(/[^0-9]/g, '') || 0,
          ),
        chart,
      );
    await until('the last points drawn', async () => (await Promise.all(TAGS.map(shows))).every((n) => n === step), 30_000, 50);
    // The last ack on its way.
    await until('every update but the last acked', () => events.filter((e) => e.kind === 'ack').length >= events.filter((e) => e.kind === 'post').length - 1);

    const posts = events.filter((e) => e.kind === 'post');
    const acks = events.filter((e) => e.kind === 'ack');
    assert.ok(posts.length >= 10, `${posts.length} updates`);
    for (const ack of acks) {
      const post = posts.find((p) => p.seq === ack.seq);
      assert.ok(post, `ack ${ack.seq} is for an update that was posted`);
      // Drawn means on screen: every chart of the update shows at least that update's points.
      for (const [chart, points] of Object.entries(post.points)) {
        assert.ok(ack.shown[chart] >= points, `update ${ack.seq}: ${chart} showed ${ack.shown[chart]} of ${points} points when acked`);
      }
    }
    // The host waits for the ack: an update goes out only after the previous one was acked
    // (or after the ack timeout, which a very loaded machine may reach).
    let unacked: number | undefined;
    const early: number[] = [];
    for (const e of events) {
      if (e.kind === 'ack') {
        if (e.seq === unacked) unacked = undefined;
        continue;
      }
      const prev = posts[posts.indexOf(e) - 1];
      if (unacked !== undefined && e.t - prev.t < DRAWN_TIMEOUT_MS) early.push(e.seq);
      unacked = e.seq;
    }
    assert.deepEqual(early, [], 'updates posted while the previous one was not drawn yet');
    assert.ok(acks.length >= posts.length - 1, `${acks.length} acks for ${posts.length} updates`);
  } finally {
    ctl.dispose();
    await wp.close();
  }
});
