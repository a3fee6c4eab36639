// The host side of the view without VS Code: the ready handshake, batching paced by the page,
// malformed webview messages, drill-down from a step to its rollouts, status summary, export.
// The batching timer runs on node:test's fake timers (setTimeout and Date), not the wall clock.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { exportCsv, exportJson } from '../../../../src/metrics/view/export';
import { summarize, trendOf } from '../../../../src/metrics/view/status-model';
import { MetricsStore, seriesKey } from '../../../../src/metrics/store/store';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { decodePointsFrame, encodePointsFrame } from '../../../../src/relay-protocol/points-frame';
import { silentLogger } from '../../../../src/base/log';
import { parseJson } from '../../../harness/json';
import { UI_STRING_KEYS, UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { HostMessage, METRICS_PROTOCOL_VERSION, parseWebviewMessage } from '../../../../src/metrics/protocol/view-protocol';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;

function setup() {
  const store = new MetricsStore();
  const posted: HostMessage[] = [];
  const warnings: string[] = [];
  const ctl = new ViewController(store, { post: (m) => posted.push(m as HostMessage) }, { ...silentLogger, warn: (m) => warnings.push(m) }, strings);
  return { store, ctl, posted, warnings };
}

test('nothing is posted before `ready`; then init, layout and frames of the charts assumed on screen, then of the visible ones', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { ctl, posted } = setup();
  ctl.addPoints('r', 'explorer', 'rollout/accuracy/mean', [{ step: 1, wallTime: 10, value: 0.5 }]);
  t.mock.timers.tick(150);
  assert.equal(posted.length, 0);
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  assert.deepEqual(
    posted.map((m) => m.type),
    ['init', 'pipelineStrings', 'layout', 'update'],
  );
  // The page has not said what is on screen yet: the top of the layout is assumed, so the new
  // chart's frame goes out with the layout (no round trip through the page's viewport report).
  const upd = posted[3];
  assert.ok(upd.type === 'update' && upd.frames.length === 1 && upd.frames[0].series[0].y[0] === 0.5 && upd.status?.length === 0);
  ctl.receive({ type: 'drawn', seq: upd.type === 'update' ? upd.seq : -1 }); // as the page does
  posted.length = 0;
  ctl.receive({ type: 'viewport', charts: [{ id: 'rollout/accuracy/mean', width: 300 }], visible: [] });
  ctl.addPoints('r', 'explorer', 'rollout/accuracy/mean', [{ step: 2, wallTime: 11, value: 0.6 }]);
  t.mock.timers.tick(150);
  // Off screen now: nothing is computed for it.
  assert.equal(posted.filter((m) => m.type === 'update' && m.frames.length).length, 0);
  ctl.receive({ type: 'viewport', charts: [{ id: 'rollout/accuracy/mean', width: 300 }], visible: ['rollout/accuracy/mean'] });
  t.mock.timers.tick(150);
  const back = posted.find((m) => m.type === 'update');
  assert.ok(back && back.type === 'update' && back.frames.length === 1 && back.frames[0].points === 2);
  ctl.dispose();
});

test('updates are batched and paced by the page: a burst of 200 batches, a page that draws in 20 ms', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { ctl, posted } = setup();
  // The page: acks each update 20 ms after it is posted.
  ctl.tap((m) => m.type === 'update' && setTimeout(() => ctl.receive({ type: 'drawn', seq: m.seq }), 20));
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  ctl.addPoints('r', 'trainer', 'actor/pg_loss', [{ step: 0, wallTime: 0, value: 1 }]);
  ctl.flush();
  ctl.receive({ type: 'viewport', charts: [{ id: 'actor/pg_loss', width: 300 }], visible: ['actor/pg_loss'] });
  t.mock.timers.tick(100);
  posted.length = 0;
  const t0 = Date.now();
  for (let i = 1; i <= 200; i++) {
    ctl.addPoints('r', 'trainer', 'actor/pg_loss', [{ step: i, wallTime: i, value: Math.sin(i) }]);
    t.mock.timers.tick(5);
  }
  t.mock.timers.tick(150);
  const secs = (Date.now() - t0) / 1000;
  assert.equal(secs, 1.15, 'the fake clock moved');
  const updates = posted.filter((m) => m.type === 'update').length;
  // points for 1 s: one post per ack (20 ms) but never closer than the floor interval (33 ms)
  assert.ok(updates >= 20 && updates <= Math.ceil(secs * 30) + 1, `${updates} updates in ${secs.toFixed(2)} s`);
  const last = posted.filter((m) => m.type === 'update').at(-1);
  assert.ok(last?.type === 'update' && last.frames[0]?.points === 201, 'the last batch reached the view (steps 0..200)');
  ctl.dispose();
});

test('malformed webview messages are ignored with a warning, never thrown', () => {
  const { ctl, warnings } = setup();
  for (const m of [
    null,
    42,
    'ready',
    { type: 'zoom', chart: 'x', range: [2, 1] },
    { type: 'drill', request: 1 },
    { type: 'exportPng', chart: 'x', dataUrl: 'javascript:1' },
    { type: 'nope' },
  ]) {
    ctl.receive(m);
  }
  assert.equal(warnings.length, 7);
  assert.deepEqual(parseWebviewMessage({ type: 'setOptions', options: { smoothing: 7, xAxis: 'bogus', filter: 'a|b' } }), {
    type: 'setOptions',
    options: { smoothing: 0.999, filter: 'a|b' },
  });
});

test('drill-down: a clicked step → its model version (rollout/model_version) → the rollouts of that version', () => {
  const { store, ctl, posted } = setup();
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  for (let s = 0; s < 20; s++) {
    store.add('r', 'explorer', 'rollout/accuracy/mean', [{ step: s, wallTime: s, value: s / 20 }]);
    store.add('r', 'explorer', 'rollout/model_version', [{ step: s, wallTime: s, value: Math.max(0, s - 2) }]);
  }
  store.addExperiences('e', 'sql:buf', 'r', [
    { id: 1, table: 'buf', task_id: 't2', run_id: 0, model_version: 8, reward: 1, timestamp: null },
    { id: 2, table: 'buf', task_id: 't1', run_id: 1, model_version: 8, reward: 0, timestamp: null },
    { id: 3, table: 'buf', task_id: 't1', run_id: 0, model_version: 8, reward: 0.5, timestamp: null },
    { id: 4, table: 'buf', task_id: 't9', run_id: 0, model_version: 9, reward: 1, timestamp: null },
  ]);
  ctl.receive({ type: 'drill', request: 7, chart: 'rollout/accuracy/mean', run: 'r', role: 'explorer', x: [10, 11] });
  const r = posted.find((m) => m.type === 'rollouts');
  assert.ok(r && r.type === 'rollouts');
  assert.equal(r.request, 7);
  assert.deepEqual(r.modelVersions, [8]);
  assert.deepEqual(r.rows.id, [3, 2, 1], 'grouped by task, then run');
  assert.deepEqual(r.rows.reward, [0.5, 0, 1]);
  ctl.dispose();
});

test('live drill-down: a reward that arrives for a drilled row re-sends the drill under the same request; other versions do not', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { store, ctl, posted } = setup();
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  store.add('r', 'explorer', 'rollout/accuracy/mean', [{ step: 8, wallTime: 8, value: 0.5 }]);
  const row = { id: 1, table: 'proxy_history', task_id: '', run_id: 0, model_version: 8, reward: null, timestamp: null, consumed: 0 };
  store.addExperiences('e', 'sql:h', 'r', [row, { ...row, id: 2 }]);
  ctl.receive({ type: 'drill', request: 3, chart: 'rollout/accuracy/mean', run: 'r', role: 'explorer', x: [8, 9] });
  const drills = () => posted.filter((m): m is Extract<HostMessage, { type: 'rollouts' }> => m.type === 'rollouts');
  assert.deepEqual(drills()[0].rows.reward, [null, null]);
  store.addExperiences('e', 'sql:h', 'r', [{ ...row, id: 77, model_version: 9 }]);
  store.addExperiences('e', 'sql:h', 'r', [{ ...row, reward: 0.75, consumed: 1, task_id: 't1', updated: true, metrics: { accuracy: 1, format_score: -0.25 } }]);
  store.addExperiences('e', 'sql:h', 'r', [{ ...row, id: 2, reward: 0, consumed: 1, task_id: 't1', updated: true }]);
  t.mock.timers.tick(700);
  assert.equal(drills().length, 2, 'one refresh for the two updates (throttled), none for version 9');
  const again = drills()[1];
  assert.equal(again.request, 3);
  assert.deepEqual(
    [again.rows.id, again.rows.reward, again.rows.consumed],
    [
      [1, 2],
      [0.75, 0],
      [1, 1],
    ],
  );
  assert.deepEqual(again.rows.parts, [
    { name: 'accuracy', values: [1, null] },
    { name: 'format_score', values: [-0.25, null] },
  ]);
  assert.equal(store.experiences.size, 3, 'replaced, not added');
  ctl.detach();
  store.addExperiences('e', 'sql:h', 'r', [{ ...row, reward: 1 }]);
  t.mock.timers.tick(700);
  assert.equal(drills().length, 2, 'no drill is followed once the webview is gone');
  ctl.dispose();
});

test('status summary: the active run, its reward, the trend, the worst endpoint state', () => {
  const store = new MetricsStore();
  store.add('old', 'explorer', 'rollout/accuracy/mean', [{ step: 1, wallTime: 1, value: 0.1 }]);
  store.add(
    'new',
    'explorer',
    'rollout/accuracy/mean',
    Array.from({ length: 12 }, (_, i) => ({ step: i, wallTime: 100 + i, value: i / 10 })),
  );
  store.add('new', 'trainer', 'actor/pg_loss', [{ step: 3, wallTime: 50, value: 9 }]);
  const s = summarize(store, [
    { id: 'a', name: 'a', target: '', kind: 'url', state: 'live', runs: [], points: 0 },
    { id: 'b', name: 'b', target: '', kind: 'url', state: 'stale', runs: [], points: 0 },
  ]);
  assert.deepEqual([s.run, s.tag, s.step, s.value, s.trend, s.state], ['new', 'rollout/accuracy/mean', 11, 1.1, 'up', 'stale']);
  // The status bar shows the smoothed reward (EMA 0.6), below the last raw point of a rising curve.
  assert.ok(s.smoothed! < 1.1 && s.smoothed! > 0.8, `smoothed ${s.smoothed}`);
  assert.equal(trendOf([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), 'flat');
  assert.equal(trendOf([5, 5, 5, 5, 5, 1, 1, 1, 1, NaN, 1]), 'down');
});

test('status trend: a noisy flat reward does not flip the arrow point after point; a real rise shows, and holds through noise', () => {
  // a seeded noisy reward around 0.25 (as the demo writes rollout/accuracy/mean), then a clear rise
  let seed = 7;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.2;
  const store = new MetricsStore();
  const trends: string[] = [];
  let last: ReturnType<typeof summarize> | undefined;
  const endpoints = [{ id: 'a', name: 'a', target: '', kind: 'url' as const, state: 'live' as const, runs: [], points: 0 }];
  for (let i = 0; i < 300; i++) {
    const value = i < 200 ? 0.25 + noise() : 0.25 + (i - 200) * 0.01 + noise();
    store.add('demo', 'explorer', 'rollout/accuracy/mean', [{ step: i, wallTime: i, value }]);
    last = summarize(store, endpoints, last);
    trends.push(last.trend!);
  }
  const flips = (xs: string[]) => xs.filter((t, i) => i > 0 && t !== xs[i - 1]).length;
  const flat = trends.slice(40, 200);
  assert.ok(flips(flat) <= 6, `the arrow changed ${flips(flat)} times over 160 points of a flat reward: ${flat.join(' ')}`);
  assert.ok(flat.filter((t) => t === 'flat').length > flat.length * 0.8, 'a flat reward reads flat');
  assert.deepEqual([...new Set(trends.slice(240))], ['up'], 'a rising reward reads up, every point');
});

test('export: every point at full resolution, non-finite values spelled out', () => {
  const store = new MetricsStore();
  store.add('r,1', 'explorer', 'a/b', [
    { step: 1, wallTime: 10.5, value: 0.25 },
    { step: 2, wallTime: 11, value: NaN },
  ]);
  const key = seriesKey('r,1', 'explorer', 'a/b');
  assert.equal(exportCsv(store, [key]), 'run,role,tag,step,wall_time,value\n"r,1",explorer,a/b,1,10.5,0.25\n"r,1",explorer,a/b,2,11,NaN\n');
  assert.deepEqual(parseJson<{ series: unknown[] }>(exportJson(store, [key])).series[0], {
    run: 'r,1',
    role: 'explorer',
    tag: 'a/b',
    step: [1, 2],
    wall_time: [10.5, 11],
    value: [0.25, 'NaN'],
  });
});

test('ingest: a decoded points frame goes into the store tag by tag, columns as they are, cursor saved', () => {
  const { store, ctl } = setup();
  const f = (xs: number[]) => Float64Array.from(xs);
  const frame = encodePointsFrame({
    type: 'points',
    source: 'tfevents:a',
    run: 'node-1',
    role: 'trainer',
    series: [
      { tag: 'actor/pg_loss', step: f([1, 2]), wallTime: f([10, 20]), value: f([0.5, NaN]) },
      { tag: 'none', step: f([]), wallTime: f([]), value: f([]) },
      { tag: 'critic/vf_loss', step: f([1]), wallTime: f([10]), value: f([-Infinity]) },
    ],
    cursor: { source: 'tfevents:a', fid: '1:2', offset: 77 },
  });
  // An endpoint merged into a run renames the batch once (connections.ts), not each point.
  ctl.ingest('ep', { ...decodePointsFrame(frame), run: 'job' });
  assert.deepEqual(
    store
      .list()
      .map((s) => s.key)
      .sort(),
    [seriesKey('job', 'trainer', 'actor/pg_loss'), seriesKey('job', 'trainer', 'critic/vf_loss')].sort(),
    'an empty tag makes no series',
  );
  const c = store.columns(seriesKey('job', 'trainer', 'actor/pg_loss'))!;
  assert.deepEqual(
    [[...c.step.subarray(0, c.length)], [...c.wallTime.subarray(0, c.length)], [...c.value.subarray(0, c.length)]],
    [
      [1, 2],
      [10, 20],
      [0.5, NaN],
    ],
  );
  assert.equal(store.columns(seriesKey('job', 'trainer', 'critic/vf_loss'))!.value[0], -Infinity);
  assert.deepEqual(store.cursors('ep'), [{ source: 'tfevents:a', fid: '1:2', offset: 77 }]);
  ctl.dispose();
});

test("openTokens: the rollout's tokens from the port under the same request, its error as the answer, malformed asks ignored", async () => {
  const store = new MetricsStore();
  const posted: HostMessage[] = [];
  const asked: unknown[] = [];
  const ref = { run: 'r', endpoint: 'e', source: 'sql:buffer', table: 'experience_buffer', id: 7 };
  const experience = {
    ids: [1, 2, 3],
    promptLength: 1,
    trained: [0, 1, 1],
    truncateStatus: null,
    truncated: false,
    source: { kind: 'buffer' as const },
    missing: [],
  };
  const ctl = new ViewController(
    store,
    {
      post: (m) => posted.push(m as HostMessage),
      readTokens: (r) => {
        asked.push(r);
        return r.id === 7
          ? Promise.resolve({ experience, notes: ['from the experience buffer'] })
          : Promise.reject(new Error('row 8 is not a TRXP experience'));
      },
    },
    silentLogger,
    strings,
  );
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  const init = posted.find((m) => m.type === 'init');
  assert.ok(init?.type === 'init' && init.tokenStrings.copyJson === 'Copy as JSON', "the token view's words go with init");
  posted.length = 0;
  ctl.receive({ type: 'openTokens', request: 4, ref });
  ctl.receive({ type: 'openTokens', request: 5, ref: { ...ref, id: 8 } });
  ctl.receive({ type: 'openTokens', request: 6, ref: { ...ref, id: 'x' } });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(asked, [ref, { ...ref, id: 8 }]);
  assert.deepEqual(
    posted.filter((m) => m.type === 'tokens'),
    [
      { type: 'tokens', request: 4, ref, experience, notes: ['from the experience buffer'] },
      { type: 'tokens', request: 5, ref: { ...ref, id: 8 }, error: 'row 8 is not a TRXP experience' },
    ],
  );
  ctl.dispose();
});

test('Debug This Rollout is an event with the experience; Re-score answers with the port’s result, its error, or nothing when cancelled', async () => {
  const store = new MetricsStore();
  const posted: HostMessage[] = [];
  const asked: unknown[] = [];
  const result = { steps: [3, 3] as [number, number], rows: [], changed: 0, flips: 0 };
  let answer: () => Promise<typeof result | undefined> = () => Promise.resolve(result);
  const ctl = new ViewController(
    store,
    {
      post: (m) => posted.push(m as HostMessage),
      rescore: (endpoint, steps, ask) => {
        asked.push({ endpoint, steps, ask });
        return answer();
      },
    },
    silentLogger,
    strings,
  );
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  const refs: unknown[] = [];
  ctl.on('debugRollout', (ref) => refs.push(ref));
  const ref = { run: 'r', endpoint: 'e', source: 'sql', table: 'experience_buffer', id: 7 };
  ctl.receive({ type: 'debugRollout', ref });
  assert.deepEqual(refs, [ref]);
  ctl.receive({ type: 'debugRollout', ref: { ...ref, id: 'seven' } });
  assert.equal(refs.length, 1, 'a malformed ref is dropped');
  const rescored = async (request: number) => {
    ctl.receive({ type: 'rescore', request, endpoint: 'e', steps: [3, 3], ask: false });
    await new Promise((r) => setImmediate(r));
    ctl.flush();
    return posted.filter((m) => m.type === 'rescored').at(-1);
  };
  assert.deepEqual(await rescored(1), { type: 'rescored', request: 1, result });
  assert.deepEqual(asked, [{ endpoint: 'e', steps: [3, 3], ask: false }]);
  answer = () => Promise.reject(new Error('the job directory cannot be read'));
  assert.deepEqual(await rescored(2), { type: 'rescored', request: 2, error: 'the job directory cannot be read' });
  answer = () => Promise.resolve(undefined);
  assert.deepEqual(await rescored(3), { type: 'rescored', request: 3 });
  assert.equal(parseWebviewMessage({ type: 'rescore', request: 4, endpoint: 'e', steps: [5, 3], ask: false }), undefined, 'a reversed range is refused');
});
