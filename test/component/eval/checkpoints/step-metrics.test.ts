// A Trinity job's eval metrics at its checkpoints, read from real TensorBoard event files
// (tensorboardX's SummaryWriter, as Trinity's TensorboardMonitor writes them: the metrics
// fixture job, eval/gsm8k-eval/accuracy/mean@4 every 10 steps), joined to global_step_N
// folders; `agentrl eval --checkpoints` prints them.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { metricsAt, readEvalSeries } from '../../../../src/eval/checkpoints/step-metrics';
import { main } from '../../../../src/eval/cli';
import type { RolloutService } from '../../../../src/feature-api/rollouts';
import { repoRoot } from '../../../harness/paths';
import { noTbx, python, tmpDir } from '../../relay/helpers';

const TAG = 'eval/gsm8k-eval/accuracy/mean_4'; // "mean@4" as the writer stores it

describe("a Trinity job's eval metrics at its checkpoints", { skip: noTbx }, () => {
  test('each checkpoint gets the values logged at its step, else the last before it; other tags are left out', async () => {
    const job = path.join(tmpDir(), 'job');
    const expected = JSON.parse(python([path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), 'write', job, '0', '45'])) as {
      tag: string;
      step: number;
      value: number;
    }[];
    const at = (step: number) => expected.find((p) => p.tag === TAG && p.step === step)!.value;
    // Bytes that are no event records (a crashed writer's tail) do not stop the others.
    fs.writeFileSync(
      path.join(job, 'monitor', 'tensorboard', 'explorer', 'events.out.tfevents.0.garbage'),
      Buffer.from('not a tfrecord at all, just bytes'.repeat(50)),
    );
    const { series, files, problems } = readEvalSeries(job);
    assert.equal(files, 3);
    assert.deepEqual(problems, []);
    assert.deepEqual([...series.keys()], [TAG], 'only eval/… and bench/… tags');
    assert.deepEqual(
      [...series.get(TAG)!.keys()].sort((a, b) => a - b),
      [0, 10, 20, 30, 40],
    );
    assert.deepEqual(metricsAt(series, 20), { step: 20, values: { [TAG]: at(20) } });
    assert.deepEqual(metricsAt(series, 39), { step: 30, values: { [TAG]: at(30) } });
    assert.equal(metricsAt(series, -1), undefined);

    for (const step of [20, 25, 40]) fs.mkdirSync(path.join(job, `global_step_${step}`, 'actor'), { recursive: true });
    let out = '';
    const code = await main(['--checkpoints', job, '--json'], { rollouts: {} as RolloutService, io: { stdout: (s) => (out += s), stderr: () => undefined } });
    assert.equal(code, 0);
    const list = JSON.parse(out) as { step: number; metrics: { step: number; values: Record<string, number> } | null }[];
    assert.deepEqual(
      list.map((c) => [c.step, c.metrics?.step, c.metrics?.values[TAG]]),
      [
        [20, 20, at(20)],
        [25, 20, at(20)],
        [40, 40, at(40)],
      ],
    );
  });

  test('a job without event files lists its checkpoints with no metrics', () => {
    const job = tmpDir();
    fs.mkdirSync(path.join(job, 'global_step_5'));
    const { series, files } = readEvalSeries(job);
    assert.equal(files, 0);
    assert.equal(metricsAt(series, 5), undefined);
  });
});
