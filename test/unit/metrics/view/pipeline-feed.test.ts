// The Pipeline view's extension side without VS Code: the run's timings fed through the view
// controller's own scalars (as the relay delivers them), the verdict worded while the view is
// shown, live as steps arrive (fake timers), bad input said, the timeline and config links
// through its port. Job timelines from Trinity's own loops (test/harness/pipeline-run.ts).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { english } from '../../../../src/base/l10n';
import { silentLogger } from '../../../../src/base/log';
import { RunConfig } from '../../../../src/pipeline/advice';
import type { PipelineHostMessage, PipelineViewData } from '../../../../src/metrics/protocol/pipeline-protocol';
import { UI_STRING_KEYS, type UiStrings } from '../../../../src/metrics/protocol/ui-strings';
import { type HostMessage, METRICS_PROTOCOL_VERSION, parseWebviewMessage } from '../../../../src/metrics/protocol/view-protocol';
import { MetricsStore } from '../../../../src/metrics/store/store';
import { PipelineFeed, type PipelinePort, REPORT_MS } from '../../../../src/metrics/view/pipeline-feed';
import type { EnvelopeBatch } from '../../../../src/relay-protocol/envelope-frame';
import { ViewController } from '../../../../src/metrics/view/view-controller';
import { type Logged, type StepPlan, repeat, simulate } from '../../../harness/pipeline-run';

const strings = Object.fromEntries(UI_STRING_KEYS.map((k) => [k, k])) as UiStrings;
const EXPLORER: StepPlan = { runs: [10, 10.5, 9.8, 10.2], train: 3, sync: 0.5 };
const STRAGGLERS: StepPlan = { runs: [2, 2.2, 1.9, 12], train: 3, sync: 0.5 };

function setup(port: PipelinePort = {}) {
  const posted: HostMessage[] = [];
  const ctl = new ViewController(new MetricsStore(), { post: (m) => posted.push(m as HostMessage), pipeline: port }, silentLogger, strings, {}, english);
  ctl.receive({ type: 'ready', protocol: METRICS_PROTOCOL_VERSION });
  const reports = () => posted.filter((m): m is Extract<PipelineHostMessage, { type: 'pipeline' }> => m.type === 'pipeline');
  const last = (): PipelineViewData | null => {
    const r = reports();
    return r.length ? r[r.length - 1].data : null;
  };
  return { ctl, posted, reports, last };
}

/** The points as the relay delivers them: one batch per role and tag. */
function feed(ctl: ViewController, logged: Logged[], run = 'job'): void {
  const by = new Map<string, { role: string; tag: string; step: number[]; wallTime: number[]; value: number[] }>();
  for (const l of logged)
    for (const [tag, v] of Object.entries(l.scalars)) {
      const k = `${l.role} ${tag}`;
      let b = by.get(k);
      if (!b) by.set(k, (b = { role: l.role, tag, step: [], wallTime: [], value: [] }));
      b.step.push(l.step);
      b.wallTime.push(l.wallTime);
      b.value.push(v);
    }
  for (const b of by.values()) ctl.addColumns(run, b.role, b.tag, b);
}

test('the pipelineStrings go out after init; nothing is computed while the view is hidden', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { ctl, posted, reports } = setup();
  const s = posted.find((m) => m.type === 'pipelineStrings');
  assert.ok(s?.type === 'pipelineStrings' && s.strings.viewPipeline === 'Pipeline' && s.strings.parts.wait_experience === 'waiting for experiences');
  feed(ctl, simulate(repeat(20, EXPLORER)));
  t.mock.timers.tick(REPORT_MS * 2);
  ctl.flush();
  assert.equal(reports().length, 0);
});

test('shown: the verdict, its evidence with the tags of its charts, bars per step, idle shares, the advice from the config', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const cfg = new RunConfig({ cluster: { node_num: 1, gpu_per_node: 8 }, explorer: { rollout_model: { engine_num: 2 } } });
  const { ctl, last } = setup({ config: () => cfg });
  feed(ctl, simulate(repeat(20, EXPLORER)));
  ctl.receive({ type: 'pipelineView', visible: true });
  ctl.flush();
  const d = last()!;
  assert.equal(d.bottleneck, 'explorer');
  assert.match(d.verdict, /^Since step 1 the trainer waits for experiences \d+ % of its time: the explorer is the bottleneck\.$/);
  assert.ok(
    d.evidence.some((e) => e.tags.includes('time/read_experience')),
    JSON.stringify(d.evidence),
  );
  assert.equal(d.bars.steps.length, 20);
  assert.deepEqual(d.bars.trainer.parts, ['wait_experience', 'compute', 'sync_weight', 'checkpoint']);
  assert.ok(d.idle.trainer! > 0.6, String(d.idle.trainer));
  const engines = d.advice.find((a) => a.key === 'explorer.rollout_model.engine_num');
  assert.deepEqual(engines && { now: engines.now, suggest: engines.suggest, fits: engines.fits }, { now: '2', suggest: '3', fits: true });
  assert.equal(d.gpu?.explorer, 2);
  assert.ok((d.gpu?.hours.trainer.compute ?? 0) > 0);
});

test('live: a bottleneck that moves is reported as the steps arrive, at most every REPORT_MS, with when it changed', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { ctl, reports, last } = setup();
  ctl.receive({ type: 'pipelineView', visible: true });
  const logged = simulate([...repeat(30, EXPLORER), ...repeat(30, STRAGGLERS)]);
  const before = reports().length;
  feed(
    ctl,
    logged.filter((l) => l.step <= 30),
  );
  assert.equal(reports().length, before, 'not before REPORT_MS');
  t.mock.timers.tick(REPORT_MS);
  assert.equal(last()?.bottleneck, 'explorer');
  feed(
    ctl,
    logged.filter((l) => l.step > 30),
  );
  t.mock.timers.tick(REPORT_MS);
  const d = last()!;
  assert.equal(d.bottleneck, 'stragglers');
  assert.equal(d.changes.length, 1);
  assert.match(d.changes[0], /^At step 3\d the bottleneck moved from the explorer to stragglers\.$/);
  // a window of steps: shares over it only
  ctl.receive({ type: 'pipelineView', visible: true, from: 1, to: 20 });
  assert.equal(last()?.bottleneck, 'explorer');
  assert.deepEqual(last()?.steps, [1, 20]);
});

test('bad input: NaN and negative timings, steps out of order, a role missing: said, the rest shown', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
  const { ctl, last } = setup();
  const trainerOnly = simulate(repeat(10, EXPLORER)).filter((l) => l.role === 'trainer');
  ctl.addPoints('job', 'trainer', 'time/read_experience', [
    { step: 3, wallTime: 1, value: Number.NaN },
    { step: 2, wallTime: 1, value: -1 },
  ]);
  feed(ctl, trainerOnly);
  ctl.receive({ type: 'pipelineView', visible: true });
  const d = last()!;
  const notes = d.notes.join('\n');
  assert.match(notes, /time\/read_experience: 2 negative or NaN values set aside\./);
  assert.match(notes, /came out of step order/);
  assert.match(notes, /No explorer timings in this window: that role is missing/);
  assert.equal(d.bars.steps.length, 10, 'the trainer is still drawn');
  assert.ok(
    d.missing.some((m) => m.includes('time/wait_explore_step')),
    d.missing.join('\n'),
  );
});

test('nothing yet: null data (the view says which metrics it needs)', () => {
  const { ctl, last, reports } = setup();
  ctl.addPoints('job', 'explorer', 'rollout/accuracy/mean', [{ step: 1, wallTime: 1, value: 1 }]);
  ctl.receive({ type: 'pipelineView', visible: true });
  assert.equal(reports().length, 1);
  assert.equal(last(), null);
});

test('the timeline through the port: the window with its problems worded and the steps marked; none; a malformed answer', async () => {
  const logged = simulate(repeat(5, EXPLORER));
  const wall1 = logged.find((l) => l.role === 'explorer' && l.step === 1)!.wallTime;
  const window = {
    from: 0,
    to: 10,
    origin: wall1 * 1e6 - 5,
    span: 10,
    lanes: ['explorer (Explorer) · 127.0.0.1'],
    lane: [0],
    start: [1],
    dur: [2],
    name: [0],
    names: ['Explorer.explore_step'],
    dropped: 0,
    problems: [{ kind: 'truncated', count: 1 }],
  };
  const answers: unknown[] = [window, undefined, { from: 0 }];
  const asked: unknown[] = [];
  const { ctl, posted } = setup({
    readTimeline: (run, from, to, maxEvents) => {
      asked.push([run, from, to, maxEvents]);
      return Promise.resolve(answers.shift() as undefined);
    },
  });
  feed(ctl, logged);
  const tl = () => posted.filter((m) => m.type === 'timeline');
  for (let i = 1; i <= 3; i++) {
    ctl.receive({ type: 'timelineRequest', request: i, run: 'job', from: null, to: null });
    await new Promise((r) => setImmediate(r));
  }
  const [a, b, c] = tl();
  assert.ok(a.type === 'timeline' && a.slice);
  assert.deepEqual(a.slice.problems, ['timeline.json ends in the middle of its events (truncated?): the 1 events before the cut are shown.']);
  assert.equal(a.slice.steps?.[0].step, 1);
  assert.ok(Math.abs((a.slice.steps?.[0].at ?? Number.NaN) - 5) < 1);
  assert.ok(b.type === 'timeline' && !b.slice && !b.error, 'none: the view says how to turn it on');
  assert.ok(c.type === 'timeline' && c.error?.includes('not well formed'));
  assert.deepEqual(asked[0], ['job', null, null, 20_000]);
});

test('config links and quick fixes go through the port; a fix is offered only where it was proven', async () => {
  const cfg = new RunConfig({ cluster: { node_num: 1, gpu_per_node: 8 }, explorer: { rollout_model: { engine_num: 2 } } }, '/job/config.json');
  const opened: unknown[] = [];
  const { ctl, last } = setup({
    config: () => cfg,
    openConfigKey: (...a) => opened.push(a),
    proveFixes: (_run, advice) => Promise.resolve(advice.filter((a) => a.key === 'explorer.rollout_model.engine_num').map((a) => a.key)),
  });
  feed(ctl, simulate(repeat(20, EXPLORER)));
  ctl.receive({ type: 'pipelineView', visible: true });
  assert.equal(
    last()?.advice.find((a) => a.fix),
    undefined,
    'not before the engine answered',
  );
  await new Promise((r) => setImmediate(r));
  const fixes = last()!
    .advice.filter((a) => a.fix)
    .map((a) => a.key);
  assert.deepEqual(fixes, ['explorer.rollout_model.engine_num']);
  ctl.receive({ type: 'openConfigKey', run: 'job', key: 'explorer.rollout_model.engine_num', value: '3' });
  assert.deepEqual(opened, [['job', 'explorer.rollout_model.engine_num', '3']]);
});

test('the webview messages are validated', () => {
  assert.equal(parseWebviewMessage({ type: 'openConfigKey', run: 'r', key: 'a.b; rm -rf' }), undefined);
  assert.equal(parseWebviewMessage({ type: 'pipelineView', visible: true, from: -1 }), undefined);
  assert.equal(parseWebviewMessage({ type: 'timelineRequest', request: 1, run: 'r', from: 'x', to: null }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: 'pipelineView', visible: true, run: 'r', from: 2, to: null }), {
    type: 'pipelineView',
    visible: true,
    run: 'r',
    from: 2,
    to: null,
  });
});

test("a run opened from its envelope: the explorer's wait on the sync is named as missing, never guessed; from its points it is measured", () => {
  const logged = simulate(repeat(40, EXPLORER));
  const run = (envelope: boolean) => {
    const f = new PipelineFeed(() => undefined, english);
    const by = new Map<string, Logged[]>();
    for (const l of logged)
      for (const tag of Object.keys(l.scalars)) {
        const k = `${l.role}\u0000${tag}`;
        by.set(k, [...(by.get(k) ?? []), l]);
      }
    for (const [k, ls] of by) {
      const [role, tag] = k.split('\u0000');
      if (!envelope) {
        f.add('job', role, tag, { step: ls.map((l) => l.step), wallTime: ls.map((l) => l.wallTime), value: ls.map((l) => l.scalars[tag]) });
        continue;
      }
      // one bucket per 10 steps: its mean at its first step (what the relay's envelope pass sends)
      const buckets = new Map<number, Logged[]>();
      for (const l of ls) buckets.set(Math.floor((l.step - 1) / 10), [...(buckets.get(Math.floor((l.step - 1) / 10)) ?? []), l]);
      const col = (g: (b: Logged[]) => number) => Float64Array.from([...buckets.values()].map(g));
      const env = {
        width: 10,
        bucket: Float64Array.from(buckets.keys()),
        count: col((b) => b.length),
        min: col((b) => Math.min(...b.map((l) => l.scalars[tag]))),
        max: col((b) => Math.max(...b.map((l) => l.scalars[tag]))),
        sum: col((b) => b.reduce((a, l) => a + l.scalars[tag], 0)),
        firstStep: col((b) => b[0].step),
        firstValue: col((b) => b[0].scalars[tag]),
        firstWall: col((b) => b[0].wallTime),
      };
      f.addEnvelope('job', { role, tag, env } as unknown as EnvelopeBatch);
    }
    return f.data()!;
  };
  const points = run(false);
  assert.notEqual(points.shares.explorer.wait_sync, null);
  assert.ok(!points.missing.some((m) => m.includes('wait on the sync')), points.missing.join('\n'));
  const env = run(true);
  assert.equal(env.shares.explorer.wait_sync, null);
  assert.ok(
    env.missing.some((m) => m.includes("explorer's wait on the sync") && m.includes('time/wait_explore_step')),
    env.missing.join('\n'),
  );
});
