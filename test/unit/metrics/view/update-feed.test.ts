// The update feed's pacing: an update goes out as soon as there is new data and the page has
// acked (`drawn`) the previous one, never closer than the floor interval, and after the ack
// timeout anyway. On node:test's fake timers (setTimeout and Date), not the wall clock.
import * as assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { ChartEngine } from '../../../../src/metrics/view/chart-engine';
import { MESSAGE_CELLS, UpdateFeed } from '../../../../src/metrics/view/update-feed';
import { DEFAULT_VIEW_OPTIONS } from '../../../../src/metrics/protocol/view-options';
import { DRAWN_TIMEOUT_MS, HostMessage, MIN_UPDATE_INTERVAL_MS, UpdateMessage } from '../../../../src/metrics/protocol/view-protocol';

const TAG = 'actor/pg_loss';

/** A ready feed with one chart on screen, its first update posted and not yet acked. */
function setup(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const store = new MetricsStore();
  const engine = new ChartEngine(store, () => DEFAULT_VIEW_OPTIONS);
  const updates: UpdateMessage[] = [];
  const feed = new UpdateFeed(store, engine, (m: HostMessage) => m.type === 'update' && updates.push(m));
  let step = 0;
  const add = () => {
    step++;
    engine.onChange(store.add('r', 'trainer', TAG, [{ step, wallTime: step, value: Math.sin(step) }]));
    feed.schedule();
  };
  store.add('r', 'trainer', TAG, [{ step: 0, wallTime: 0, value: 1 }]);
  // A page that reported a screen with nothing on it: the chart waits for its report (it is not
  // assumed on screen), so the update that carries its first frame is the one left unacked.
  engine.setViewport([{ id: 'elsewhere', width: 300 }], []);
  feed.start();
  feed.flush(); // layout (sets the engine's charts) and the status
  feed.drawn(updates.at(-1)!.seq);
  engine.setViewport([{ id: TAG, width: 300 }], [TAG]);
  feed.schedule();
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS);
  assert.equal(updates.at(-1)?.frames.length, 1, 'the chart is on screen');
  t.after(() => feed.dispose());
  return { feed, updates, add, last: () => updates.at(-1)! };
}

test('an acked feed posts new data at once (next macrotask), the points of one batch together', (t) => {
  const { feed, updates, add, last } = setup(t);
  feed.drawn(last().seq);
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS); // past the floor
  const n = updates.length;
  add();
  add();
  assert.equal(updates.length, n, 'not inside the caller (a relay batch adds many series)');
  t.mock.timers.tick(0);
  assert.equal(updates.length, n + 1);
  assert.equal(last().frames[0].points, 3);
  assert.equal(last().seq, updates[n - 1].seq + 1, 'numbered');
});

test('without the ack the feed waits; the ack releases what came meanwhile, in one update', (t) => {
  const { feed, updates, add, last } = setup(t);
  const n = updates.length;
  for (let i = 0; i < 5; i++) {
    add();
    t.mock.timers.tick(100);
  }
  assert.equal(updates.length, n, 'nothing while the page has not drawn the last update');
  feed.drawn(last().seq - 1);
  t.mock.timers.tick(0);
  assert.equal(updates.length, n, 'the ack of an older update does not count');
  feed.drawn(last().seq);
  t.mock.timers.tick(0);
  assert.equal(updates.length, n + 1);
  assert.equal(last().frames[0].points, 6, 'the five batches in one update');
});

test('the floor interval: a page that acks at once still gets ≤ 1000 / MIN_UPDATE_INTERVAL_MS updates a second', (t) => {
  const { feed, updates, add, last } = setup(t);
  const n = updates.length;
  const t0 = Date.now();
  feed.drawn(last().seq);
  for (let i = 0; i < 200; i++) {
    add();
    t.mock.timers.tick(5);
    feed.drawn(last().seq); // an instant page
  }
  const secs = (Date.now() - t0) / 1000;
  const posted = updates.slice(n);
  assert.ok(posted.length >= 25 && posted.length <= Math.ceil((secs * 1000) / MIN_UPDATE_INTERVAL_MS) + 1, `${posted.length} updates in ${secs} s`);
  for (let i = 1; i < posted.length; i++) assert.ok(posted[i].seq > posted[i - 1].seq);
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS);
  assert.equal(last().frames[0].points, 201, 'the last batch went out');
});

test('a lost ack: the feed posts anyway after DRAWN_TIMEOUT_MS, and nothing while the webview is not ready', (t) => {
  const { feed, updates, add, last } = setup(t);
  const n = updates.length;
  add();
  t.mock.timers.tick(DRAWN_TIMEOUT_MS - 1);
  assert.equal(updates.length, n);
  t.mock.timers.tick(1);
  assert.equal(updates.length, n + 1, 'the timeout fallback');
  assert.equal(last().frames[0].points, 2);
  feed.stop();
  add();
  t.mock.timers.tick(2 * DRAWN_TIMEOUT_MS);
  assert.equal(updates.length, n + 1, 'a webview that went away gets nothing');
  feed.start(); // a reloaded page: it owes no ack for what the old page got
  add();
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS);
  assert.equal(updates.length, n + 2);
});

test('many full frames go out as several updates of about MESSAGE_CELLS values, every chart once, the last seq awaited', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  const store = new MetricsStore();
  const engine = new ChartEngine(store, () => DEFAULT_VIEW_OPTIONS);
  const updates: UpdateMessage[] = [];
  const feed = new UpdateFeed(store, engine, (m: HostMessage) => m.type === 'update' && updates.push(m));
  t.after(() => feed.dispose());
  // 40 tags of 2 000 points, on screen at 400 px: a few hundred buckets each (a run opening).
  const tags = Array.from({ length: 40 }, (_, i) => `actor/tag_${i}`);
  for (const tag of tags)
    store.add(
      'r',
      'trainer',
      tag,
      Array.from({ length: 2000 }, (_, step) => ({ step, wallTime: step, value: Math.sin(step + tag.length) })),
    );
  // A page that reported a screen with nothing on it: the charts wait for its report.
  engine.setViewport([{ id: 'elsewhere', width: 400 }], []);
  feed.start();
  feed.flush(); // the layout and the status
  const before = updates.length;
  engine.setViewport(
    tags.map((id) => ({ id, width: 400 })),
    tags,
  );
  feed.flush();
  const cells = (u: UpdateMessage) => u.frames.reduce((a, f) => a + f.series.reduce((b, s) => b + (s.mean ? 5 : 4) * s.y.length, 0), 0);
  const full = updates.slice(before).filter((u) => u.frames.length);
  assert.ok(full.length > 1, `${full.length} update(s) for ${tags.length} full frames`);
  const sizes = full.map(cells);
  for (const [i, u] of full.entries()) {
    const largest = Math.max(...u.frames.map((f) => cells({ ...u, frames: [f] })));
    assert.ok(sizes[i] < MESSAGE_CELLS + largest, `update ${u.seq}: ${sizes[i]} values`);
  }
  assert.deepEqual(full.flatMap((u) => u.frames.map((f) => f.chart)).sort(), [...tags].sort(), 'every chart once');
  assert.deepEqual(
    full.map((u) => u.seq),
    full.map((_, i) => full[0].seq + i),
    'consecutive seqs',
  );
  // Only the last one's ack lets new data out before the ack timeout.
  const n = updates.length;
  engine.onChange(store.add('r', 'trainer', tags[0], [{ step: 2000, wallTime: 2000, value: 0 }]));
  feed.schedule();
  feed.drawn(full[0].seq);
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS);
  assert.equal(updates.length, n, 'an earlier seq acked: still waiting');
  feed.drawn(full.at(-1)!.seq);
  t.mock.timers.tick(MIN_UPDATE_INTERVAL_MS);
  assert.equal(updates.length, n + 1, 'the last seq acked: the new point goes out');
});
