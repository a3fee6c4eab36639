// The pipeline analysis on job dirs written the way Trinity-RFT writes them (test/harness/pipeline-run.ts
// builds their timeline from Trinity's own loops): event files per role, or the `Step N:` log
// lines of a run whose monitor is not TensorBoard, read by the relay's own readers.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { english } from '../../src/base/l10n';
import { RunConfig, readRunConfig } from '../../src/pipeline/advice';
import { type PipelineReport, pipelineReport, reportJson } from '../../src/pipeline/report';
import { StepTable } from '../../src/pipeline/step-table';
import { reportText, verdictSentence } from '../../src/pipeline/text';
import { readJobScalars } from '../../src/relay/pipeline/job-points';
import { type Logged, type StepPlan, repeat, simulate, writeJob } from '../harness/pipeline-run';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'pipeline-'));

const KINDS: Record<string, StepPlan> = {
  explorer: { runs: [10, 10.5, 9.8, 10.2], train: 3, sync: 0.5 },
  stragglers: { runs: [2, 2.2, 1.9, 12], train: 3, sync: 0.5 },
  trainer: { runs: [2, 2.1, 1.9, 2], train: 10, sync: 0.5 },
  sync: { runs: [3, 3, 3, 3], train: 3, sync: 5 },
  checkpoint: { runs: [3, 3, 3, 3], train: 3, sync: 0.5, checkpoint: 6 },
  eval: { runs: [3, 3, 3, 3], train: 3, sync: 0.5, eval: 10 },
  balanced: { runs: [3, 3.1, 2.9, 3], train: 3, sync: 0.3 },
};

function load(dir: string, opts: { from?: number; to?: number } = {}): PipelineReport {
  const t = new StepTable();
  readJobScalars(dir, (role, tag, step, wall, value) => t.add(role, tag, step, wall, value));
  return pipelineReport(t, { ...opts, config: readRunConfig(dir) });
}

function job(logged: Logged[], opts: Parameters<typeof writeJob>[2] = {}): string {
  return writeJob(tmp(), logged, opts);
}

for (const monitor of ['tensorboard', 'log'] as const) {
  for (const [kind, plan] of Object.entries(KINDS)) {
    test(`${monitor}: a run bound by ${kind} is named so, with its evidence`, () => {
      const r = load(job(simulate(repeat(20, plan)), { monitor }));
      assert.equal(r.bottleneck, kind, JSON.stringify(reportJson(r)));
      assert.deepEqual(r.steps, [1, 20]);
      assert.equal(r.since, 1);
      assert.deepEqual(r.missing, []);
      assert.ok(kind === 'balanced' || r.evidence.length > 0);
      for (const e of r.evidence) assert.ok(Number.isFinite(e.value) && e.tags.length > 0);
    });
  }
}

test('shares are fractions of each role’s wall time, from the timers that wrap each part', () => {
  const r = load(job(simulate(repeat(10, KINDS.explorer))));
  const T = r.shares.trainer;
  // Trainer per step: read ≈ 10.5 + 0.05, train 3, sync 0.5 (no checkpoint logged: null).
  assert.ok(Math.abs(T.wait_experience! - 10.55 / 14.05) < 0.02, String(T.wait_experience));
  assert.ok(Math.abs(T.compute! - 3 / 14.05) < 0.02);
  assert.equal(T.checkpoint, null);
  const sum = T.wait_experience! + T.compute! + T.sync_weight!;
  assert.ok(Math.abs(sum - 1) < 1e-9);
  // Explorer: the step's wait (slowest run 10.5, mean 10.125) then the gap while the trainer trains and syncs.
  const E = r.shares.explorer;
  assert.ok(E.wait_stragglers! > 0 && E.wait_stragglers! < 0.05);
  assert.ok(Math.abs(E.wait_sync! - 3.5 / 14.05) < 0.03, String(E.wait_sync));
  assert.equal(E.eval, null);
});

test('a run whose bottleneck moves half way says when: explorer, then stragglers after a curriculum change', () => {
  const dir = job(simulate([...repeat(30, KINDS.explorer), ...repeat(30, KINDS.stragglers)]));
  const r = load(dir);
  assert.equal(r.bottleneck, 'stragglers');
  assert.equal(r.since, 31);
  assert.deepEqual(
    r.segments.map((s) => [s.from, s.to, s.bottleneck]),
    [
      [1, 30, 'explorer'],
      [31, 60, 'stragglers'],
    ],
  );
  assert.deepEqual(reportJson(r).changes, [{ step: 31, from: 'explorer', to: 'stragglers' }]);
  assert.match(verdictSentence(english, r), /^Since step 31 the slowest task of a step takes \d+\.\d× the mean/);
  // --from/--to: the first half alone is explorer-bound.
  const first = load(dir, { to: 30 });
  assert.equal(first.bottleneck, 'explorer');
  assert.deepEqual(first.steps, [1, 30]);
});

test('a missing tag: the verdict is "unknown", naming the tag and what turns it on; the rest is still shown', () => {
  const logged = simulate(repeat(20, KINDS.explorer)).map((l) => {
    const scalars = { ...l.scalars };
    delete scalars['time/read_experience'];
    return { ...l, scalars };
  });
  const r = load(job(logged));
  assert.equal(r.bottleneck, 'unknown');
  assert.deepEqual(
    r.missing.map((m) => m.tag),
    ['time/read_experience'],
  );
  assert.match(r.missing[0].enable, /monitor/);
  assert.match(verdictSentence(english, r), /time\/read_experience is missing/);
  assert.equal(r.shares.trainer.wait_experience, null);
  assert.ok(r.shares.trainer.compute! > 0 && r.shares.explorer.generate! > 0);
  assert.equal(reportJson(r).bottleneck, 'unknown');
});

test('a role missing is named, and the other role is still shown', () => {
  const r = load(job(simulate(repeat(10, KINDS.explorer)), { roles: ['explorer'] }));
  assert.equal(r.bottleneck, 'unknown');
  assert.ok(r.problems.some((p) => p.kind === 'role-missing' && p.subject === 'trainer'));
  assert.deepEqual(
    r.missing.map((m) => m.tag),
    ['time/read_experience', 'time/train_step'],
  );
  assert.ok(r.shares.explorer.generate! > 0);
  assert.match(reportText(english, r), /No trainer timings in this window/);
});

test('negative and NaN timings are set aside and counted; steps out of order are sorted', () => {
  const t = new StepTable();
  const logged = simulate(repeat(12, KINDS.trainer));
  // The trainer's points in reverse order (a merged log), one NaN and one negative sync.
  for (const l of [...logged].reverse()) {
    for (const [tag, v] of Object.entries(l.scalars)) {
      const bad = l.role === 'trainer' && tag === 'time/sync_weight' && (l.step === 3 || l.step === 4);
      t.add(l.role, tag, l.step, l.wallTime, bad ? (l.step === 3 ? NaN : -1) : v);
    }
  }
  const r = pipelineReport(t);
  assert.equal(r.bottleneck, 'trainer');
  assert.deepEqual(r.steps, [1, 12]);
  assert.ok(r.problems.some((p) => p.kind === 'bad-values' && p.subject === 'time/sync_weight' && p.count === 2));
  assert.ok(r.problems.some((p) => p.kind === 'out-of-order' && p.subject === 'time/train_step'));
  assert.match(reportText(english, r), /time\/sync_weight: 2 negative or NaN values set aside/);
});

test('unknown timing names are listed under "other", never dropped; suffixed names map onto their base', () => {
  const t = new StepTable();
  for (let s = 1; s <= 10; s++) {
    t.add('trainer', 'time/read_experience:sum', s, undefined, 8);
    t.add('trainer', 'time/train_step:max', s, undefined, 2);
    t.add('trainer', 'time/my_reward_server', s, undefined, 1);
    t.add('trainer', 'timing_s/some_new_phase', s, undefined, 1);
  }
  const r = pipelineReport(t);
  assert.deepEqual(r.other, ['time/my_reward_server', 'timing_s/some_new_phase']);
  assert.equal(r.bottleneck, 'explorer');
  assert.ok(Math.abs(r.shares.trainer.wait_experience! - 0.8) < 1e-9);
});

test("verl's own timing_s names (an AgentJet run) map onto the same phases", () => {
  const t = new StepTable();
  for (let s = 1; s <= 20; s++) {
    const v: Record<string, number> = {
      'timing_s/gen': 12,
      'timing_s/agent_loop/generate_sequences/mean': 3,
      'timing_s/agent_loop/generate_sequences/max': 11.5,
      'timing_s/old_log_prob': 1,
      'timing_s/update_actor': 2,
      'timing_s/step': 15.5,
      'perf/throughput': 800,
    };
    for (const [tag, x] of Object.entries(v)) t.add('', tag, s, 1.7e9 + s * 15.5, x);
  }
  const r = pipelineReport(t);
  assert.equal(r.bottleneck, 'stragglers');
  assert.ok(Math.abs(r.shares.trainer.wait_experience! - 12 / 15.5) < 1e-9);
  assert.equal(r.throughput.tokensPerSecond, 800);
  assert.deepEqual(r.other, []);
});

test('advice: the config keys of the bottleneck with the run’s own values (its config copy) and a suggestion', () => {
  const cfg = [
    'cluster:',
    '  node_num: 1',
    '  gpu_per_node: 8',
    'explorer:',
    '  rollout_model:',
    '    engine_num: 2',
    '    tensor_parallel_size: 2',
    'buffer:',
    '  batch_size: 32',
    '',
  ].join('\n');
  const r = load(job(simulate(repeat(20, KINDS.explorer)), { config: cfg }));
  assert.deepEqual(reportJson(r).advice, [
    { key: 'explorer.rollout_model.engine_num', now: 2, suggest: 3 },
    { key: 'buffer.batch_size', now: 32, suggest: 16 },
  ]);
  assert.equal(r.advice[0].fits, true, '3 engines × 2 GPUs leave 2 of the 8 GPUs to the trainer');
  assert.deepEqual(r.gpu && [r.gpu.explorer, r.gpu.trainer], [4, 4]);
  const s = load(job(simulate(repeat(20, KINDS.stragglers)), { config: 'explorer:\n  over_rollout:\n    ratio: 0.0\n' }));
  assert.deepEqual(
    s.advice.map((a) => [a.key, a.now, a.suggest, a.defaulted]),
    [
      ['explorer.over_rollout.ratio', 0, 0.25, false],
      // Trinity refuses over_rollout with sync_style fixed (its config_validator.py): the advice says so.
      ['synchronizer.sync_style', 'fixed', 'explorer_driven', true],
      ['explorer.dynamic_timeout.enable', false, true, true],
    ],
  );
  const driven = load(job(simulate(repeat(20, KINDS.stragglers)), { config: 'synchronizer:\n  sync_style: trainer_driven\n' }));
  assert.deepEqual(
    driven.advice.map((a) => a.key),
    ['explorer.over_rollout.ratio', 'explorer.dynamic_timeout.enable'],
  );
  const none = load(job(simulate(repeat(20, KINDS.checkpoint))));
  assert.deepEqual(none.advice, []);
  assert.match(none.configProblem ?? '', /no run config/);
  assert.deepEqual(new RunConfig({ trainer: { save_interval: 50 } }).value('trainer.save_interval'), { value: 50, defaulted: false });
});

test('the JSON has the shape the CLI promises; absent parts are null', () => {
  const j = reportJson(load(job(simulate(repeat(10, KINDS.balanced)))));
  assert.deepEqual(Object.keys(j).slice(0, 5), ['steps', 'bottleneck', 'shares', 'advice', 'missing']);
  assert.deepEqual(Object.keys(j.shares as object), ['trainer', 'explorer']);
  const shares = j.shares as { trainer: Record<string, unknown>; explorer: Record<string, unknown> };
  assert.deepEqual(Object.keys(shares.trainer), ['wait_experience', 'compute', 'sync_weight', 'checkpoint']);
  assert.deepEqual(Object.keys(shares.explorer), ['generate', 'wait_stragglers', 'wait_sync', 'eval']);
  assert.equal(shares.trainer.checkpoint, null);
  assert.equal(shares.explorer.eval, null);
});
