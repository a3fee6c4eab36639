import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStepLine } from '../../../../src/relay/sources/step-log';

test('parses Trinity Step lines: numpy scalars, nan/inf, bools; skips strings and nested values', () => {
  const p = parseStepLine(
    "INFO 11-22 02:39:27 [monitor.py:93] Step 12: {'rollout/accuracy/mean': np.float64(0.5), \"eval/x/mean@4\": np.float32(-1.25e-3), 'a': 3, 'b': nan, 'c': -inf, 'd': float('nan'), 'e': True, 'f': None, 'g': 'text', 'h': [1, 2], 'i': {'j': 1}, 'k': tensor(2.5, dtype=torch.float64), 'l': np.int64(7),}",
    2026,
  );
  assert.ok(p);
  assert.equal(p.step, 12);
  assert.equal(p.wallTime, new Date(2026, 10, 22, 2, 39, 27).getTime() / 1000);
  assert.deepEqual(p.values, [
    ['rollout/accuracy/mean', 0.5],
    ['eval/x/mean@4', -1.25e-3],
    ['a', 3],
    ['b', NaN],
    ['c', -Infinity],
    ['d', NaN],
    ['e', 1],
    ['k', 2.5],
    ['l', 7],
  ]);
});

test('non-Step lines and broken dicts give undefined, never an exception', () => {
  for (const l of ['', 'INFO Saving checkpoint', "Step 3: {'a': 1", "Step x: {'a': 1}", "Step 3: {'a' 1}", "Step 3: {'a': np.float64(}"]) {
    assert.equal(parseStepLine(l), undefined, l);
  }
  assert.deepEqual(parseStepLine('Step 0: {}')?.values, []);
});

// ---- Trinity 0.5 and 0.6 line formats, and 0.6's wandb shared-run keys --------------------

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StepLogSource } from '../../../../src/relay/sources/log-source';
import { JobRoot } from '../../../../src/relay/sources/job-root';
import { OpenFiles } from '../../../../src/relay/sources/open-files';
import { silentLogger } from '../../../../src/base/log';
import { loadSharedStepBindings, sharedRunSeries } from '../../../../src/relay/sources/shared-run';

// Printed by Trinity-RFT 0.5.2's own TensorboardMonitor.log (../shared/upstream, run in
// .cache/trinity-venv with numpy 1.26: `f"Step {step}: {data}"`, the raw dict repr) for
// {reward/mean: np.float64(0.1234567891), reward/max: np.float32(1.0), time/step: 12.5,
//  experience_count: np.int64(64), lr: 1e-06, accuracy/mean: nan}, then step 4.
const V05 = [
  "INFO 11-24 10:42:55 [monitor.py:157] Step 3: {'rollout/reward/mean': 0.1234567891, 'rollout/reward/max': 1.0, 'time/step': 12.5, 'experience_count': 64, 'lr': 1e-06, 'rollout/accuracy/mean': nan}",
  "INFO 11-24 10:42:55 [monitor.py:157] Step 4: {'rollout/reward/mean': 0.25, 'experience_count': 128, 'lr': 2.5e-06}",
];
// The same steps under numpy ≥ 2, whose scalar repr names the type (0.5.2 prints it raw).
const V05_NP2 = [
  "INFO 11-24 10:42:55 [monitor.py:157] Step 3: {'rollout/reward/mean': np.float64(0.1234567891), 'rollout/reward/max': np.float32(1.0), 'time/step': 12.5, 'experience_count': np.int64(64), 'lr': 1e-06, 'rollout/accuracy/mean': np.float64(nan)}",
  "INFO 11-24 10:42:55 [monitor.py:157] Step 4: {'rollout/reward/mean': np.float64(0.25), 'experience_count': 128, 'lr': np.float64(2.5e-06)}",
];
// Trinity-RFT 0.6 (Monitor.format_data_str, pan-x-c/Trinity-RFT trinity/utils/monitor.py):
// numpy scalars made plain (`.item()`), floats printed with `.6g`, other values with repr.
// Written here by that rule (0.6 is not installed on this machine): f"{v:.6g}" of each value.
const V06 = [
  "INFO 11-24 10:42:55 [monitor.py:210] Step 3: {'rollout/reward/mean': 0.123457, 'rollout/reward/max': 1, 'time/step': 12.5, 'experience_count': 64, 'lr': 1e-06, 'rollout/accuracy/mean': nan}",
  "INFO 11-24 10:42:55 [monitor.py:210] Step 4: {'rollout/reward/mean': 0.25, 'experience_count': 128, 'lr': 2.5e-06}",
];

async function pointsOf(
  lines: string[],
  role = 'explorer',
  jobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-steplog-')),
): Promise<[string, string, number, number][]> {
  fs.mkdirSync(path.join(jobDir, 'log'), { recursive: true });
  const file = path.join(jobDir, 'log', `${role}.log`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const src = new StepLogSource(
    { id: `log:log/${role}.log`, kind: 'log', run: '.', role, path: `log/${role}.log` },
    file,
    new OpenFiles(new JobRoot(jobDir)),
    silentLogger,
  );
  const reader = src.open(undefined);
  const out: [string, string, number, number][] = [];
  for (let b = await reader.next(1 << 20); b; b = await reader.next(1 << 20)) {
    assert.equal(b.type, 'points');
    if (b.type !== 'points') continue;
    for (const t of b.series) for (let i = 0; i < t.step.length; i++) out.push([b.role, t.tag, t.step[i], t.value[i]]);
  }
  reader.close();
  return out.sort((x, y) => x[2] - y[2] || x[1].localeCompare(y[1]));
}

/** Equal to the 6 significant digits 0.6 prints. */
const same6 = (a: number, b: number) => (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= 5e-6 * Math.max(Math.abs(a), Math.abs(b));

test('0.5 (raw repr, numpy 1 and 2) and 0.6 (.6g) step lines give the same points', async () => {
  const p05 = await pointsOf(V05);
  const p05np2 = await pointsOf(V05_NP2);
  const p06 = await pointsOf(V06);
  assert.equal(p05.length, 9);
  assert.deepEqual(p05np2, p05, 'numpy 2 reprs read as the same numbers');
  assert.deepEqual(
    p06.map((p) => p.slice(0, 3)),
    p05.map((p) => p.slice(0, 3)),
    'same series and steps',
  );
  for (let i = 0; i < p05.length; i++) assert.ok(same6(p06[i][3], p05[i][3]), `${p05[i][1]}@${p05[i][2]}: ${p06[i][3]} vs ${p05[i][3]}`);
  assert.equal(p06.find((p) => p[1] === 'rollout/reward/mean' && p[2] === 3)?.[3], 0.123457);
  // one log holding both (an upgrade mid-run): every line read
  const mixed = await pointsOf([V05[0], V06[1]]);
  assert.deepEqual(
    mixed.map((p) => [p[1], p[2]]),
    [...p05.filter((p) => p[2] === 3), ...p05.filter((p) => p[2] === 4)].map((p) => [p[1], p[2]]),
  );
});

test('wandb shared-run keys map to the per-role series; hidden step axes are no series', async () => {
  const job = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-shared-'));
  const dir = path.join(job, 'monitor', 'shared_step_bindings');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'explorer.json'), JSON.stringify({ 'explorer/rollout/reward/mean': 'explorer/step', 'explorer/lr': 'explorer/step' }));
  fs.writeFileSync(path.join(dir, 'trainer.json'), JSON.stringify({ 'trainer/actor/pg_loss': 'trainer/step' }));
  fs.writeFileSync(path.join(dir, 'broken.json'), '{"half": ');
  const b = loadSharedStepBindings(path.join(job, 'monitor'));
  assert.deepEqual(b, { 'explorer/rollout/reward/mean': 'explorer/step', 'explorer/lr': 'explorer/step', 'trainer/actor/pg_loss': 'trainer/step' });
  assert.deepEqual(loadSharedStepBindings(path.join(job, 'nowhere')), {});
  assert.deepEqual(sharedRunSeries('explorer/rollout/reward/mean', 'x', b), { role: 'explorer', tag: 'rollout/reward/mean' });
  assert.deepEqual(sharedRunSeries('trainer/actor/pg_loss', 'x', b), { role: 'trainer', tag: 'actor/pg_loss' });
  assert.equal(sharedRunSeries('explorer/step', 'x', b), undefined);
  assert.equal(sharedRunSeries('trainer/step', 'x'), undefined, 'default roles without bindings');
  assert.deepEqual(sharedRunSeries('rollout/reward/mean', 'explorer', b), { role: 'explorer', tag: 'rollout/reward/mean' }, 'per-role keys stay');
  // custom role names come from the bindings' axes
  assert.deepEqual(sharedRunSeries('rollout_0/time/step', 'x', { 'rollout_0/time/step': 'rollout_0/step' }), { role: 'rollout_0', tag: 'time/step' });
  // a log with shared-run keys of its role names the same series as the per-role one
  const shared = V05.map((l) => l.replace(/'([^']+)':/g, "'explorer/$1':").replace('Step 3: {', "Step 3: {'explorer/step': 3, "));
  assert.deepEqual(await pointsOf(shared, 'explorer', job), await pointsOf(V05));
});
