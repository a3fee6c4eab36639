// A run opened envelope-first, drawn by the real metrics webview in Chromium:
// zoomed out, the chart's band reaches every point's min and max (a one-point spike among
// 20 000 stays visible); a drag-zoom on the plot makes the host read the exact points of the
// range from the relay (a fake here, answering from the same points) and the chart then shows
// exact values; a double-click goes back to the envelope.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { EnvelopeBuilder } from '../../../../src/relay/envelope/builder';
import { downsample } from '../../../../src/metrics/store/downsample';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { silentLogger } from '../../../../src/base/log';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { RenderedMessage } from '../../../../src/metrics/protocol/view-protocol';
import type { DetailRequestMessage } from '../../../../src/relay-protocol/envelope';
import { toWireNumber } from '../../../../src/relay-protocol/messages';
import { openWebviewPage } from '../../../harness/webview-page';
import { rng } from '../../../harness/rng';
import { sleep, until } from '../../../harness/wait';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const TAG = 'actor/pg_loss';
const N = 20_000;

test('webview: the envelope band holds every point; a zoom shows exact values; double-click goes back', { timeout: 120_000 }, async () => {
  const rand = rng(5);
  const step: number[] = [];
  const value: number[] = [];
  for (let s = 0; s < N; s++) {
    step.push(s);
    value.push(s === 7777 ? 1000 : s === 12_345 ? -500 : s % 997 === 0 ? NaN : Math.sin(s / 40) + rand() * 0.2);
  }
  const b = new EnvelopeBuilder(256); // width 128: a zoomed chart needs detail
  for (let i = 0; i < N; i++) b.add(step[i], 1.7e9 + step[i], value[i]);
  const store = new MetricsStore();
  const zooms: ([number, number] | null)[] = [];
  const asked: Omit<DetailRequestMessage, 'type' | 'request'>[] = [];
  let post: (m: unknown) => void = () => undefined;
  const ctl = new ViewController(
    store,
    {
      post: (m) => post(m),
      readDetail: (_ep, q) => {
        asked.push(q);
        const idx = step.map((_, i) => i).filter((i) => step[i] >= q.from && step[i] <= q.to);
        return Promise.resolve({
          type: 'detail',
          request: 0,
          source: q.source,
          tag: q.tag,
          from: q.from,
          to: q.to,
          points: { step: idx.map((i) => step[i]), wallTime: idx.map((i) => 1.7e9 + step[i]), value: idx.map((i) => toWireNumber(value[i])) },
        });
      },
    },
    silentLogger,
    strings,
    { smoothing: 0 },
  );
  const wp = await openWebviewPage({
    onMessage: (m) => {
      const z = m as { type: string; range?: [number, number] | null };
      if (z.type === 'zoom') zooms.push(z.range ?? null);
      ctl.receive(m);
    },
  });
  post = (m) => void wp.post(m).catch(() => undefined);
  const shown = async (pred: (c: RenderedMessage['charts'][number]) => boolean, what: string) =>
    until(
      what,
      async () => {
        const c = (await ctl.probe(5000))?.charts.find((x) => x.id === TAG);
        return c && c.drawn && pred(c) ? c : undefined;
      },
      30_000,
    );
  try {
    await until('the page is ready', () => ctl.probe(1000), 30_000);
    ctl.ingestEnvelope('ep', {
      type: 'envelope',
      source: 'run/events',
      run: 'run',
      role: 'trainer',
      tag: TAG,
      points: b.points,
      cursor: { source: 'run/events', fid: '1:1', offset: 1 },
      env: b.arrays(),
    });
    const full = await shown((c) => c.buckets > 0, 'the envelope drawn');
    assert.deepEqual([full.hi, full.lo], [1000, -500], 'zoomed out, the band reaches the one-point spikes');

    // Drag across 40–45 % of the plot: the webview reports the zoom, the host reads the detail.
    const over = wp.page.locator(`.card[data-chart="${TAG}"] .u-over`);
    const box = (await over.boundingBox())!;
    await wp.page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await wp.page.mouse.down();
    await wp.page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2, { steps: 5 });
    await wp.page.mouse.up();
    await until('the zoom', () => zooms.length > 0 && asked.length > 0);
    const zoom = zooms[0]!;
    assert.deepEqual([asked[0].from, asked[0].to], [Math.floor(zoom[0]), Math.ceil(zoom[1])]);
    const inRange = step.map((_, i) => i).filter((i) => step[i] >= asked[0].from && step[i] <= asked[0].to);
    const want = downsample(
      inRange.map((i) => step[i]),
      inRange.map((i) => value[i]),
      10_000,
      { range: zoom },
    );
    const his = want.hi.filter((v): v is number => v !== null);
    const los = want.lo.filter((v): v is number => v !== null);
    // The exact points: a bucket for every point or two (the envelope had one per 128 steps).
    const exact = await shown((c) => c.buckets >= (zoom[1] - zoom[0]) / 4, 'the detail drawn');
    assert.deepEqual([exact.hi, exact.lo], [Math.max(...his), Math.min(...los)], 'exact values in the zoom');

    await over.dblclick();
    const back = await shown((c) => c.hi === 1000, 'the envelope again');
    assert.equal(back.lo, -500);
    await sleep(100);
  } finally {
    ctl.dispose();
    await wp.close();
  }
});
