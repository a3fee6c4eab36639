// Trinity's `Step N: {...}` log lines as 0.5.2 and 0.6 write them, and 0.6's wandb shared-run
// job dir. 0.5.2 logged the raw dict (`f"Step {step}: {data}"`: numpy scalars print as
// np.float64(...)); 0.6's Monitor.format_data_str (pan-x-c/Trinity-RFT trinity/utils/monitor.py)
// converts numpy scalars with .item() and prints floats with `.6g`, other values with repr.
// In shared-run mode 0.6 sends `<role>/<key>` rows to wandb only; the console log keeps the
// plain keys, and `monitor/shared_step_bindings/<role>.json` maps `<role>/<key>` -> `<role>/step`.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { discoverJob } from '../../../src/relay/sources/discovery';
import { parseStepLine } from '../../../src/relay/sources/step-log';

/** What 0.6's format_data_str prints for a value (`.6g` for floats, repr otherwise). */
function g6(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Number.isInteger(v) && Math.abs(v) < 1e6) return String(v);
  const exp = Math.floor(Math.log10(Math.abs(v)));
  if (exp < -4 || exp >= 6) {
    const [m, e] = v.toExponential(5).split('e');
    const mant = m.replace(/\.?0+$/, '');
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(Number(v.toPrecision(6)));
}

const metrics: [string, number, 'float' | 'int'][] = [
  ['rollout/reward/mean', 0.5, 'float'],
  ['rollout/accuracy/mean', 0.375, 'float'],
  ['actor/pg_loss', -0.025, 'float'],
  ['actor/lr', 1e-6, 'float'],
  ['actor/grad_norm', 1234567.0, 'float'],
  ['response_length/mean', 212.25, 'float'],
  ['experience_pipeline/experience_count', 64, 'int'],
  ['critic/score/max', NaN, 'float'],
];

const line05 = (step: number) =>
  `INFO 11-24 10:00:0${step} [monitor.py:135] Step ${step}: {${metrics
    .map(([k, v, t]) => `'${k}': ${t === 'int' ? `np.int64(${v})` : `np.float64(${Number.isNaN(v) ? 'nan' : v})`}`)
    .join(', ')}}`;
const line06 = (step: number) =>
  `INFO 11-24 10:00:0${step} [monitor.py:171] Step ${step}: {${metrics.map(([k, v, t]) => `'${k}': ${t === 'int' ? String(v) : g6(v)}`).join(', ')}}`;

test("0.5.2's raw numpy repr and 0.6's .6g lines give the same points", () => {
  assert.equal(line06(1).includes("'actor/lr': 1e-06"), true, 'the 0.6 line carries .6g exponents');
  assert.equal(line06(1).includes("'actor/grad_norm': 1.23457e+06"), true);
  const a = parseStepLine(line05(1), 2026);
  const b = parseStepLine(line06(1), 2026);
  assert.ok(a && b);
  assert.deepEqual(
    a.values.map(([k]) => k),
    metrics.map(([k]) => k),
  );
  assert.deepEqual(
    b.values.map(([k]) => k),
    metrics.map(([k]) => k),
  );
  for (let i = 0; i < metrics.length; i++) {
    const [k, want] = metrics[i];
    const va: number = a.values[i][1];
    const vb: number = b.values[i][1];
    if (Number.isNaN(want)) {
      assert.ok(Number.isNaN(va) && Number.isNaN(vb), k);
      continue;
    }
    assert.equal(va, want, `0.5.2 ${k}`);
    // .6g keeps six significant digits: equal within that precision (exact for these values but one)
    assert.ok(Math.abs(vb - want) <= Math.abs(want) * 5e-6, `0.6 ${k}: ${vb} vs ${want}`);
  }
  assert.equal(a.step, b.step);
  assert.equal(a.wallTime, b.wallTime);
});

test("0.6 shared-run job dir (wandb): both roles' Step lines are sources, named by role like the per-role layout", () => {
  const job = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-shared-run-'));
  fs.mkdirSync(path.join(job, 'log'));
  fs.mkdirSync(path.join(job, 'monitor', 'shared_step_bindings'), { recursive: true });
  fs.writeFileSync(path.join(job, 'log', 'explorer.log'), `${line06(1)}\n${line06(2)}\n`);
  fs.writeFileSync(path.join(job, 'log', 'trainer.log'), `${line05(1)}\n`);
  fs.writeFileSync(
    path.join(job, 'monitor', 'shared_step_bindings', 'explorer.json'),
    JSON.stringify(Object.fromEntries(metrics.map(([k]) => [`explorer/${k}`, 'explorer/step']))),
  );
  fs.writeFileSync(path.join(job, 'monitor', 'shared_step_bindings', 'trainer.json'), JSON.stringify({ 'trainer/actor/pg_loss': 'trainer/step' }));
  const d = discoverJob({ mode: 'job', dir: job });
  const logs = d.specs.filter((s) => s.kind === 'log').map((s) => [s.role, s.rel]);
  assert.deepEqual(logs, [
    ['explorer', 'log/explorer.log'],
    ['trainer', 'log/trainer.log'],
  ]);
  assert.equal(
    d.specs.some((s) => s.rel.includes('shared_step_bindings')),
    false,
    'the bindings are not a metrics source',
  );
});
